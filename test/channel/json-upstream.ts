import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UpstreamSource } from '../../src/channel/upstream.js';

/**
 * A real upstream for snapshot-store tests: a node:http server on 127.0.0.1 that serves whatever
 * body the test sets, counts requests, can fail on demand, and holds its answers while the test
 * keeps a fetch in flight (`hold()`); plus an UpstreamSource that reads it with fetch(), as the
 * platform adapters do.
 */
export interface JsonUpstream<T> {
  source: UpstreamSource<T>;
  requests: number;
  body: T;
  status: number;
  /** From now on every answer waits until the returned function is called (it answers those held). */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startJsonUpstream<T>(name: string, body: T): Promise<JsonUpstream<T>> {
  let held: Promise<void> | undefined;
  const upstream = {
    requests: 0,
    body,
    status: 200,
    hold() {
      let release: () => void = () => undefined;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
  } as JsonUpstream<T>;
  const server: Server = createServer((_request, response) => {
    upstream.requests += 1;
    const answer = (): void => {
      response.writeHead(upstream.status, { 'content-type': 'application/json' });
      response.end(upstream.status === 200 ? JSON.stringify(upstream.body) : '{"error":"down"}');
    };
    if (held === undefined) answer();
    else void held.then(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  upstream.source = {
    name,
    async fetch(signal?: AbortSignal): Promise<T> {
      const response = await fetch(url, { signal });
      if (!response.ok) throw new Error(`${name}: upstream answered HTTP ${response.status}`);
      return (await response.json()) as T;
    },
  };
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}
