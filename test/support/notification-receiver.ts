import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One POST as a receiver got it: headers, the raw body (what a signature covers) and when it arrived. */
export interface ReceivedNotification {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  path: string;
  atMs: number;
}

/**
 * How the receiver answers its n-th request (0-based): a status and headers, a body, or `hang` (reads
 * the request and never answers).
 */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

export interface NotificationReceiver {
  /** Base URL, e.g. http://127.0.0.1:41234 (append a path). */
  url: string;
  /** Every request so far, oldest first (a hung one included). */
  received: ReceivedNotification[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** A real receiver on 127.0.0.1 (or `host`), answering each request as `answer` says (default 204). */
export async function startNotificationReceiver(answer: (request: ReceivedNotification, index: number) => ReceiverAnswer | Promise<ReceiverAnswer> = () => ({ status: 204 }), host = '127.0.0.1'): Promise<NotificationReceiver> {
  const received: ReceivedNotification[] = [];
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, raw: Buffer.concat(chunks), path: request.url ?? '/', atMs: Date.now() };
      const index = received.push(entry) - 1;
      void Promise.resolve(answer(entry, index)).then((reply) => {
        if (reply === 'hang') {
          held.add(response);
          return;
        }
        response.writeHead(reply.status, reply.headers ?? {}).end(reply.body);
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    received,
    get connections() {
      return connections;
    },
    close: async () => {
      held.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function webhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}
