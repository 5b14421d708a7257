import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** One request as the server received it. */
export interface Recorded {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  form: URLSearchParams;
  /** Subject CN of the TLS client certificate, when one was presented. */
  clientCertCn: string | undefined;
}

export type Handler = (request: Recorded, response: ServerResponse) => unknown;

export interface TestServer {
  url: string;
  origin: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** A real HTTP(S) server on 127.0.0.1 that records every request and answers through `handler`. */
export async function startServer(handler: Handler, tls?: ServerOptions): Promise<TestServer> {
  const requests: Recorded[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const socket = req.socket as Partial<TLSSocket>;
      const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      const cn = cert?.subject?.CN;
      const recorded: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        form: new URLSearchParams(body),
        clientCertCn: typeof cn === 'string' ? cn : undefined,
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
  };
  const server: Server = tls === undefined ? createHttpServer(listener) : createHttpsServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  return {
    url: `${origin}/`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Answers every request with a token response echoing nothing secret. */
export const tokenHandler: Handler = (_request, response) => {
  json(response, 200, { access_token: 'issued-access', token_type: 'Bearer', expires_in: 3600, refresh_token: 'issued-refresh' });
};
