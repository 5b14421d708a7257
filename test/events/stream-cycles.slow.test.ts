import { createClient } from 'graphql-ws';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { eventually } from '../support/eventually.js';
import { useSandboxApp } from './event-harness.js';

/**
 * A client that disconnects mid-stream frees what it held: 1,000 cycles on each transport (slow: ~10 s
 * each). Each cycle first sees its stream hold a listener of the event log, so that what is freed
 * was held.
 */
const started = useSandboxApp();

/** The stream of this cycle holds a listener (probed every millisecond: the wait is a thousand times over). */
const listening = (cycle: number): Promise<unknown> => eventually(`cycle ${cycle}: a listener of the event log`, () => started.app.events.listenerCount >= 1, { intervalMs: 1 });

describe('connect and disconnect', () => {
  it('1,000 connect/disconnect cycles leave no listener behind', async () => {
    for (let cycle = 0; cycle < 1000; cycle += 1) {
      const controller = new AbortController();
      const response = await fetch(`${started.url}/events`, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      await listening(cycle);
      controller.abort();
    }
    await eventually('every listener to be freed', () => started.app.events.listenerCount === 0, { timeoutMs: 20_000 });
  });

  it('1,000 GraphQL over SSE subscribe/disconnect cycles leave no listener and no stream slot behind', async () => {
    const subscription = `${started.url}/graphql?query=${encodeURIComponent('subscription { statsChanged { subscribers } }')}`;
    for (let cycle = 0; cycle < 1000; cycle += 1) {
      const controller = new AbortController();
      const response = await fetch(subscription, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      if (response.status !== 200) throw new Error(`cycle ${cycle}: answered ${response.status}`);
      const reader = response.body!.getReader();
      await reader.read();
      await listening(cycle);
      controller.abort();
    }
    await eventually('every listener to be freed', () => started.app.events.listenerCount === 0, { timeoutMs: 20_000 });
    // Every stream slot of the bound (EVENTS_MAX_STREAMS) is free again.
    await vi.waitFor(async () => expect(await started.app.metrics()).toMatch(/^channel_event_subscribers\{transport="graphql-sse"\} 0$/m), { timeout: 20_000, interval: 100 });
  });

  it('1,000 graphql-ws subscribe/disconnect cycles leave no listener behind', async () => {
    for (let cycle = 0; cycle < 1000; cycle += 1) {
      const client = createClient({ url: `${started.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
      const iterator = client.iterate({ query: 'subscription { statsChanged { subscribers } }' });
      const next = iterator.next();
      await listening(cycle);
      await client.dispose();
      await next.catch(() => undefined);
    }
    await eventually('every listener to be freed', () => started.app.events.listenerCount === 0, { timeoutMs: 20_000 });
  });
});
