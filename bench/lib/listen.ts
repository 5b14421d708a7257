/** Starts a `node:http` server on 127.0.0.1 with an ephemeral port and gives back its URL. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}

/** A request handler; it may return a promise (a yoga instance does) that the server ignores. */
export type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** Listens on 127.0.0.1:0 (or `port`); accepts a server or a request handler (e.g. a yoga instance). */
export function listen(serverOrHandler: Server | Handler, port = 0): Promise<Listening> {
  const server =
    typeof serverOrHandler === 'function'
      ? createServer((request, response) => void serverOrHandler(request, response))
      : serverOrHandler;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
