import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { useSandboxApp } from './event-harness.js';

/**
 * The streamed answers of /graphql (GraphQL over SSE): bounded in number like GET /events and the
 * WebSockets (EVENTS_MAX_STREAMS), and with one true Connection header.
 */
const started = useSandboxApp({ events: { logSize: 5, maxStreams: 3 } });

const SUBSCRIPTION = `/graphql?query=${encodeURIComponent('subscription { statsChanged { subscribers } }')}`;

function subscribeOverSse(signal: AbortSignal): Promise<Response> {
  return fetch(`${started.url}${SUBSCRIPTION}`, { headers: { accept: 'text/event-stream' }, signal });
}

describe('GraphQL over SSE on /graphql', () => {
  it('refuses a stream over EVENTS_MAX_STREAMS with 503, a GraphQL error and Retry-After; a plain query still runs; a freed slot is usable again', async () => {
    const held = new AbortController();
    const streams = await Promise.all([subscribeOverSse(held.signal), subscribeOverSse(held.signal), subscribeOverSse(held.signal)]);
    expect(streams.map((response) => response.status)).toEqual([200, 200, 200]);
    // Three subscriptions of one document share one execution: one listener on the log.
    await eventually('the shared subscription', () => started.app.events.listenerCount === 1);

    const refused = await fetch(`${started.url}${SUBSCRIPTION}`, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await refused.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors).toEqual([{ message: '3 streams are open on /graphql, the most this server keeps; try again later.', extensions: { code: 'TOO_MANY_STREAMS' } }]);
    // Only requests that may stream are counted: a JSON query is not refused.
    const plain = await fetch(`${started.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: '{ stats { subscribers } }' }) });
    expect(plain.status).toBe(200);
    // Nor is a multipart request refused silently: it is counted with the SSE ones.
    const multipart = await fetch(`${started.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'multipart/mixed' }, body: JSON.stringify({ query: 'subscription { statsChanged { subscribers } }' }) });
    expect(multipart.status).toBe(503);
    await multipart.arrayBuffer();

    held.abort();
    await eventually('the streams to end', () => started.app.events.listenerCount === 0);
    const again = new AbortController();
    let reopened: Response | undefined;
    // The slots are freed when node:http sees the connections close: retried until then.
    const deadline = Date.now() + 10_000;
    while (reopened?.status !== 200 && Date.now() < deadline) {
      await reopened?.arrayBuffer();
      reopened = await subscribeOverSse(again.signal);
    }
    expect(reopened?.status).toBe(200);
    again.abort();
  });

  it('sends one Connection header, and "close" when the client asked for it (not keep-alive)', async () => {
    const target = new URL(started.url);
    const headersOf = (extra: Record<string, string>) =>
      new Promise<string[]>((resolve, reject) => {
        const outgoing = httpRequest({ host: target.hostname, port: target.port, path: SUBSCRIPTION, headers: { accept: 'text/event-stream', ...extra } }, (response) => {
          const connection: string[] = [];
          for (let index = 0; index < response.rawHeaders.length; index += 2) {
            if (response.rawHeaders[index]!.toLowerCase() === 'connection') connection.push(response.rawHeaders[index + 1]!.toLowerCase());
          }
          response.destroy();
          resolve(connection);
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    expect(await headersOf({ connection: 'close' })).toEqual(['close']);
    expect(await headersOf({})).toEqual(['keep-alive']);
    await eventually('the streams to end', () => started.app.events.listenerCount === 0);
  });
});
