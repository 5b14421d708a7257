import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, it } from 'vitest';
import WebSocket from 'ws';
import { startSandboxApp } from '../http/harness.js';
import { eventually } from './event-harness.js';

/** A client that disconnects mid-stream frees what it held: 1,000 cycles on GET /events (slow: ~10 s). */
let harness: Awaited<ReturnType<typeof startSandboxApp>>;
let url: string;

beforeAll(async () => {
  harness = await startSandboxApp();
  url = harness.app.url;
});
afterAll(() => harness.close());

describe('GET /events, connect and disconnect', () => {
  it('1,000 connect/disconnect cycles leave no listener behind', async () => {
    for (let cycle = 0; cycle < 1000; cycle += 1) {
      const controller = new AbortController();
      const response = await fetch(`${url}/events`, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
    }
    await eventually(() => harness.app.events.listenerCount === 0, 'every listener to be freed', 20_000);
  });

  it('1,000 graphql-ws subscribe/disconnect cycles leave no listener behind', async () => {
    for (let cycle = 0; cycle < 1000; cycle += 1) {
      const client = createClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
      const iterator = client.iterate({ query: 'subscription { statsChanged { subscribers } }' });
      const next = iterator.next();
      await eventually(() => harness.app.events.listenerCount >= 1, 'the subscription');
      await client.dispose();
      await next.catch(() => undefined);
    }
    await eventually(() => harness.app.events.listenerCount === 0, 'every listener to be freed', 20_000);
  });
});
