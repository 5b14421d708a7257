import { print } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { StatsChangedDocument, SupporterChangedDocument } from '@channel-graph/client/graphql';
import { startGraphApp } from '../graphql/graph-harness.js';
import { eventually } from '../support/eventually.js';
import { sendCreateUpdateDelete } from './event-harness.js';

/**
 * The Subscription type over both transports of /graphql — GraphQL over SSE (graphql-sse client,
 * distinct connections mode) and GraphQL over WebSocket (graphql-ws client, graphql-transport-ws) —
 * against the real app and signed webhooks from the sandbox.
 */
type Started = Awaited<ReturnType<typeof startGraphApp>>;
type Payload = { data?: { supporterChanged?: { id: string; change: string; previousAmountCents: number | null; supporter: { id: string; __typename: string; tier: { id: string } | null } } } | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };

interface Transport {
  name: string;
  subscribe(url: string, query: string, variables?: Record<string, unknown>): { received: Payload[]; stop(): void; done: Promise<void> };
}

/**
 * What a client's iteration threw, as a payload: graphql-ws throws the Error message's GraphQL
 * errors (an array), graphql-sse the body of a non-streamed refusal (an Error whose message is it).
 */
function refusalOf(error: unknown): Payload {
  if (Array.isArray(error)) return { errors: error as NonNullable<Payload['errors']> };
  if (error instanceof Error) {
    try {
      return JSON.parse(error.message) as Payload;
    } catch {
      return { errors: [{ message: error.message }] };
    }
  }
  return { errors: [{ message: 'closed', extensions: { closeEvent: error } }] };
}

const transports: Transport[] = [
  {
    name: 'GraphQL over SSE',
    subscribe(url, query, variables) {
      const client = createSseClient({ url: `${url}/graphql`, retryAttempts: 0 });
      const received: Payload[] = [];
      const iterator = client.iterate<Payload['data']>({ query, ...(variables && { variables }) });
      const done = (async () => {
        try {
          for await (const result of iterator) received.push(result as Payload);
        } catch (error) {
          received.push(refusalOf(error));
        }
      })();
      return { received, done, stop: () => void iterator.return?.() };
    },
  },
  {
    name: 'GraphQL over WebSocket',
    subscribe(url, query, variables) {
      const client = createWsClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
      const received: Payload[] = [];
      const iterator = client.iterate<Payload['data']>({ query, ...(variables && { variables }) });
      const done = (async () => {
        try {
          for await (const result of iterator) received.push(result as Payload);
        } catch (error) {
          received.push(refusalOf(error));
        } finally {
          await client.dispose();
        }
      })();
      return { received, done, stop: () => void iterator.return?.() };
    },
  },
];

const SUPPORTER_CHANGED = print(SupporterChangedDocument);

describe.each(transports)('$name', (transport) => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('receives JOINED, UPDATED and LEFT for create, update and delete webhooks, in order, filtered by platform and kinds', async () => {
    const { app } = started;
    const all = transport.subscribe(app.url, SUPPORTER_CHANGED);
    const membershipLeftOrUpdated = transport.subscribe(app.url, SUPPORTER_CHANGED, { platform: 'MEMBERSHIP', changes: ['LEFT', 'UPDATED'] });
    const videoOnly = transport.subscribe(app.url, SUPPORTER_CHANGED, { platform: 'VIDEO' });
    const joinedOnly = transport.subscribe(app.url, SUPPORTER_CHANGED, { changes: ['JOINED'] });
    await eventually('four subscriptions', () => app.events.listenerCount === 4);
    const { expected, newcomer } = await sendCreateUpdateDelete(app.sandbox, app.url);
    await eventually('the events', () => all.received.length >= 3 && membershipLeftOrUpdated.received.length >= 2 && joinedOnly.received.length >= 1);
    for (const subscription of [all, membershipLeftOrUpdated, videoOnly, joinedOnly]) subscription.stop();
    await Promise.all([all.done, membershipLeftOrUpdated.done, videoOnly.done, joinedOnly.done]);

    const summary = (payloads: Payload[]) => payloads.map(({ data }) => [data?.supporterChanged?.change.toLowerCase(), data?.supporterChanged?.supporter.id, data?.supporterChanged?.previousAmountCents]);
    expect(summary(all.received)).toEqual(expected);
    expect(summary(membershipLeftOrUpdated.received)).toEqual(expected.slice(1));
    expect(summary(joinedOnly.received)).toEqual(expected.slice(0, 1));
    expect(videoOnly.received).toEqual([]);
    // The supporter resolves through the graph (type, tier) as of its event: tier 3 after the update.
    expect(all.received[1]!.data?.supporterChanged?.supporter).toMatchObject({ __typename: 'Patron', id: newcomer.id, tier: { id: app.sandbox.datasets.membership.tiers[3]!.id } });
    expect(Number(all.received[1]!.data!.supporterChanged!.id)).toBe(Number(all.received[0]!.data!.supporterChanged!.id) + 1);
    await eventually('the subscriptions to unsubscribe', () => app.events.listenerCount === 0);
  });

  it('subscribers of one document and variables share one execution per event; other variables get their own', async () => {
    const { app } = started;
    // One execution = one subscription to the event log, so each event is executed once for all of them.
    const same = Array.from({ length: 10 }, () => transport.subscribe(app.url, SUPPORTER_CHANGED, { platform: 'MEMBERSHIP' }));
    const other = transport.subscribe(app.url, SUPPORTER_CHANGED, { platform: 'MEMBERSHIP', changes: ['LEFT'] });
    // Each subscription is acknowledged by the server before the events are sent: wait until all are executing.
    await eventually('two shared executions', () => app.events.listenerCount === 2);
    const { expected } = await sendCreateUpdateDelete(app.sandbox, app.url);
    await eventually('the events', () => same.every((subscription) => subscription.received.length >= 3) && other.received.length >= 1);
    expect(app.events.listenerCount).toBe(2);
    const changes = (payloads: Payload[]) => payloads.map(({ data }) => [data?.supporterChanged?.change.toLowerCase(), data?.supporterChanged?.supporter.id, data?.supporterChanged?.previousAmountCents]);
    for (const subscription of same) expect(changes(subscription.received)).toEqual(expected);
    expect(changes(other.received)).toEqual(expected.slice(2));
    // Leaving one by one: the shared execution ends with its last subscriber, not before.
    for (const subscription of same.slice(1)) subscription.stop();
    await Promise.all(same.slice(1).map((subscription) => subscription.done));
    const again = await sendCreateUpdateDelete(app.sandbox, app.url);
    await eventually('the next events', () => same[0]!.received.length >= 6);
    expect(changes(same[0]!.received.slice(3))).toEqual(again.expected);
    same[0]!.stop();
    other.stop();
    await Promise.all([same[0]!.done, other.done]);
    await eventually('the executions to end', () => app.events.listenerCount === 0);
  });

  it('applies the limits to subscriptions (a document over the depth limit is refused)', async () => {
    const deep = `subscription { supporterChanged { supporter { tier { supporters { tier { supporters { tier { supporters { tier { id } } } } } } } } } }`;
    const refused = transport.subscribe(started.app.url, deep);
    await refused.done.catch(() => undefined);
    const errors = refused.received.flatMap((payload) => payload.errors ?? []);
    expect(errors.map((error) => error.extensions?.code)).toContain('MAX_DEPTH_EXCEEDED');
    expect(started.app.events.listenerCount).toBe(0);
  });

  it('app.close() completes the subscriptions cleanly', async () => {
    const own = await startGraphApp();
    const subscription = transport.subscribe(own.app.url, print(StatsChangedDocument));
    await eventually('the subscription', () => own.app.events.listenerCount === 1);
    await own.close();
    // The iteration ends (no error thrown out of it) and the listener is gone.
    await expect(subscription.done).resolves.toBeUndefined();
    expect(own.app.events.listenerCount).toBe(0);
  });
});

describe('trusted-documents mode', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp({ trustedDocumentsOnly: true });
  });
  afterAll(() => started.close());

  it.each(transports)('over $name, a subscription sent as text is refused before it subscribes', async (transport) => {
    const refused = transport.subscribe(started.app.url, 'subscription { statsChanged { subscribers } }');
    await refused.done.catch(() => undefined);
    const errors = refused.received.flatMap((payload) => payload.errors ?? []);
    // Over SSE too the client reads the GraphQL error (a 200 stream with a `next` event, as the
    // protocol requires), not only a failed connection.
    expect(errors.map((error) => error.extensions?.code)).toEqual(['TRUSTED_DOCUMENTS_ONLY']);
    expect(errors[0]!.message).toContain('Only trusted documents run on this server');
    expect(started.app.events.listenerCount).toBe(0);
  });
});
