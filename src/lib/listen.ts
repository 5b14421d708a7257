/**
 * Listening and closing a node:http server, the same way for the app, the sandbox, tests and
 * benchmarks: `listen()` resolves with the server's base URL once it accepts connections, and
 * `close()` stops accepting, lets the requests in flight finish, and cuts whatever connection is
 * still open when the grace period ends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request listener; it may return a promise (a yoga instance does), which the server ignores. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

export interface ListenOptions {
  /** Default 0: an ephemeral port chosen by the system. */
  port?: number;
  /** Default `127.0.0.1`: reachable from this machine only. */
  host?: string;
  /** How long `close()` lets requests in flight finish before cutting their connections (default 5 s). */
  closeGraceMs?: number;
}

export interface Listening {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234` (`http://[::1]:41234` for IPv6). */
  url: string;
  /** Idempotent: every call returns the same promise. */
  close(): Promise<void>;
}

export const DEFAULT_CLOSE_GRACE_MS = 5_000;

/** While closing, keep-alive connections whose request just finished are closed this often. */
const IDLE_SWEEP_MS = 50;

/**
 * Stops accepting connections and resolves once every connection is gone. Idle keep-alive
 * connections are closed at once; a connection with a request in flight is closed as soon as that
 * request is answered (node:http would otherwise keep it open for `keepAliveTimeout`), and any
 * connection still open after `graceMs` is cut.
 */
export function closeServer(server: Server, graceMs = DEFAULT_CLOSE_GRACE_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close((error) => {
      clearInterval(sweep);
      clearTimeout(cut);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

function baseUrl(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Listens a server (or a request handler, served by a new node:http server) on `host:port`. */
export function listen(serverOrHandler: Server | RequestHandler, options: ListenOptions = {}): Promise<Listening> {
  const server = typeof serverOrHandler === 'function' ? createServer((request, response) => void serverOrHandler(request, response)) : serverOrHandler;
  const graceMs = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      let closing: Promise<void> | undefined;
      resolve({
        url: baseUrl(server.address() as AddressInfo),
        close: () => (closing ??= closeServer(server, graceMs)),
      });
    });
  });
}
