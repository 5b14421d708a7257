import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Upstreams that hang at the TCP level, for deadline tests: `silent` accepts the connection, reads
 * the request and never answers; `stalledBody` answers the headers and the first bytes of a body
 * that never completes.
 */
export interface HungUpstream {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** Requests received so far (one per connection's first data). */
  readonly requests: number;
  /** Connections accepted and still open. */
  open: Set<Socket>;
  close(): Promise<void>;
}

export type HangKind = 'silent' | 'stalledBody';

const STALLED_BODY = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4096\r\n\r\n{"data":';

export async function startHungUpstream(kind: HangKind): Promise<HungUpstream> {
  const open = new Set<Socket>();
  let requests = 0;
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => {
      requests += 1;
      if (kind === 'stalledBody') socket.write(STALLED_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    open,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Runs a full garbage collection every 5 ms until the returned function is called. On Node 20 this
 * is what makes `AbortSignal.any([signal, AbortSignal.timeout(ms)])` lose its timeout.
 */
export function collectGarbageContinuously(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const timer = setInterval(gc, 5);
  return () => clearInterval(timer);
}
