import { print } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SupporterChangedDocument } from '@channel-graph/client/graphql';
import type { ChannelEvent } from '../../src/channel/supporter-events.js';
import type { Redis } from 'ioredis';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { sendWebhook, memberWithStatus } from '../events/event-harness.js';
import { sandboxRequests } from '../http/harness.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';
import { startReplicaSet, type ReplicaSet } from './replica-set.js';

const SUPPORTERS_QUERY = JSON.stringify({ query: '{ supporters(platform: MEMBERSHIP) { id } }' });

async function graphSupporters(url: string): Promise<{ ids: string[]; etag: string | null }> {
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: SUPPORTERS_QUERY });
  const body = (await response.json()) as { data: { supporters: Array<{ id: string }> } };
  return { ids: body.data.supporters.map((supporter) => supporter.id), etag: response.headers.get('etag') };
}

async function restPledges(url: string): Promise<{ text: string; etag: string | null }> {
  const response = await fetch(`${url}/membership/pledges`);
  return { text: await response.text(), etag: response.headers.get('etag') };
}

/** Redis's count of calls per command (INFO commandstats), read over `connection`. */
async function commandCounts(connection: Redis): Promise<Map<string, number>> {
  const info = await connection.info('commandstats');
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts.set(match[1]!, Number(match[2]));
  return counts;
}

type SupporterChangedResult = { data?: { supporterChanged: { id: string; change: string } } | null };

/** `supporterChanged` on one replica over GraphQL SSE (graphql-sse) or GraphQL over WebSocket (graphql-ws). */
function subscribeToSupporters(url: string, transport: 'sse' | 'ws') {
  const query = print(SupporterChangedDocument);
  const ws = transport === 'ws' ? createWsClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 }) : undefined;
  const iterator = ws !== undefined
    ? ws.iterate<SupporterChangedResult['data']>({ query })
    : createSseClient({ url: `${url}/graphql`, retryAttempts: 0 }).iterate<SupporterChangedResult['data']>({ query });
  const received: Array<[id: string, change: string]> = [];
  const done = (async () => {
    try {
      for await (const result of iterator) {
        const event = (result as SupporterChangedResult).data?.supporterChanged;
        if (event) received.push([event.id, event.change]);
      }
    } finally {
      await ws?.dispose();
    }
  })();
  return { received, stop: async () => {
    await iterator.return?.();
    await done;
  } };
}

describeWithBinary(REDIS_SERVER, 'three replicas sharing snapshots, caches and events through a real redis-server', (path) => {
  let redis: RunningRedis;
  let set: ReplicaSet;
  beforeAll(async () => {
    redis = await startRedisServer(path);
    set = await startReplicaSet({ count: 3, redisUrl: redis.url, prefix: 'replicas-test:' });
    for (const replica of set.replicas) await replica.store.read('membership');
  }, 60_000);
  afterAll(async () => {
    await set?.close();
    await redis?.stop();
  });

  it('a webhook sent to replica A shows in B and C through Redis, with no platform read: REST, GraphQL (response cache on) and their ETags', async () => {
    const [a, b, c] = set.replicas as [typeof set.replicas[0], typeof set.replicas[0], typeof set.replicas[0]];
    const newcomer = memberWithStatus(set.sandbox, 'former_patron');
    // The graph asked twice: the response cache keeps an answer from its second occurrence on, with its ETag.
    const before = await Promise.all([b, c].map(async (replica) => ({ rest: await restPledges(replica.url), graph: await graphSupporters(replica.url).then(() => graphSupporters(replica.url)) })));
    const platformReads = await sandboxRequests(set.sandbox);
    for (const seen of before) {
      expect(seen.rest.text).not.toContain(newcomer.id);
      expect(seen.graph.ids).not.toContain(newcomer.id);
      // The graph's answer is kept (second request) and carries its ETag.
      expect(seen.graph.etag).not.toBeNull();
    }
    const tier = set.sandbox.datasets.membership.tiers[1]!;
    await sendWebhook(set.sandbox, a.url, 'members:pledge:create', newcomer.id, tier.id);
    await Promise.all(
      [b, c].map(async (replica, index) => {
        await eventually(`the webhook's change on ${replica.url}`, async () => {
          const [rest, graph] = await Promise.all([restPledges(replica.url), graphSupporters(replica.url)]);
          return rest.text.includes(newcomer.id) && graph.ids.includes(newcomer.id) && rest.etag !== before[index]!.rest.etag && graph.etag !== null && graph.etag !== before[index]!.graph.etag;
        });
      }),
    );
    // The interval is off (REFRESH_INTERVAL_SECONDS 0) and nobody read the platform: B and C were told
    // through Redis, at once (a poll or a re-read would have shown in the counts).
    expect(await sandboxRequests(set.sandbox)).toEqual({ ...platformReads, webhook: platformReads.webhook + 1 });
    await sendWebhook(set.sandbox, a.url, 'members:pledge:delete', newcomer.id);
    await eventually('the delete on C', async () => !(await restPledges(c.url)).text.includes(newcomer.id));
  });

  it('events cross replicas: each change is diffed once, every replica streams it with the same id, and any replica replays it', async () => {
    const [a, b, c] = set.replicas as [typeof set.replicas[0], typeof set.replicas[0], typeof set.replicas[0]];
    const received = set.replicas.map(() => [] as ChannelEvent[]);
    const unsubscribe = set.replicas.map((replica, index) => replica.events.subscribe((event) => received[index]!.push(event)));
    const resumeFrom = b.events.lastEventId;
    const overSse = subscribeToSupporters(b.url, 'sse');
    const overWs = subscribeToSupporters(c.url, 'ws');
    // Subscribed once the server registered both (one listener each, besides this test's own).
    await eventually('both subscriptions registered', () => b.events.listenerCount === 2 && c.events.listenerCount === 2);
    try {
      const newcomer = memberWithStatus(set.sandbox, 'former_patron', 1);
      const marker = memberWithStatus(set.sandbox, 'former_patron', 2);
      const tiers = set.sandbox.datasets.membership.tiers;
      await sendWebhook(set.sandbox, a.url, 'members:pledge:create', newcomer.id, tiers[1]!.id);
      await sendWebhook(set.sandbox, b.url, 'members:pledge:update', newcomer.id, tiers[3]!.id);
      await sendWebhook(set.sandbox, c.url, 'members:pledge:delete', newcomer.id);
      // A fourth change, after the three: once every replica has streamed it, an event diffed twice
      // (by more than one replica) would have been streamed before it.
      await sendWebhook(set.sandbox, a.url, 'members:pledge:create', marker.id, tiers[1]!.id);
      const markerSeen = (events: ChannelEvent[]): boolean => events.some((event) => event.type === 'supporter' && event.supporter.id === marker.id);
      await eventually('the fourth change on every replica', () => received.every(markerSeen));
      for (const events of received) {
        expect(events.map((event) => event.type === 'supporter' && [event.change, event.supporter.id])).toEqual([
          ['joined', newcomer.id],
          ['updated', newcomer.id],
          ['left', newcomer.id],
          ['joined', marker.id],
        ]);
      }
      const ids = received[0]!.map((event) => event.id);
      expect(received[1]!.map((event) => event.id)).toEqual(ids);
      expect(received[2]!.map((event) => event.id)).toEqual(ids);
      expect(ids.map(Number)).toEqual([0, 1, 2, 3].map((offset) => Number(ids[0]) + offset));
      // Last-Event-ID: a client that saw nothing since `resumeFrom` (on B) resumes on C.
      const missed = c.events.since(resumeFrom);
      expect(missed === 'reset' ? missed : missed.map((event) => event.id)).toEqual(ids);
      const replay = await fetch(`${c.url}/events?lastEventId=${resumeFrom}`, { signal: AbortSignal.timeout(5_000) });
      const reader = replay.body!.getReader();
      let text = '';
      while (!ids.every((id) => text.includes(`id: ${id}\n`))) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      await reader.cancel();
      for (const id of ids) expect(text).toContain(`id: ${id}\n`);
      // The graph's subscriptions on B (SSE) and C (WebSocket) got the same events, same ids.
      await eventually('the subscriptions on B and C', () => overSse.received.length >= 4 && overWs.received.length >= 4);
      const expected = ids.map((id, index) => [id, ['JOINED', 'UPDATED', 'LEFT', 'JOINED'][index]]);
      expect(overSse.received).toEqual(expected);
      expect(overWs.received).toEqual(expected);
      // The marker leaves again, and every replica has taken that in before the next test measures Redis.
      await sendWebhook(set.sandbox, b.url, 'members:pledge:delete', marker.id);
      await eventually('the fifth change on every replica', () => received.every((events) => events.length === 5));
    } finally {
      for (const stop of unsubscribe) stop();
      await Promise.all([overSse.stop(), overWs.stop()]);
    }
  });

  it('serves reads from memory: the hot path (REST and GraphQL, cached or not) sends Redis no command', async () => {
    const urls = set.replicas.map((replica) => replica.url);
    // Warm every path once (the first GraphQL request of a document fills the caches).
    for (const url of urls) await Promise.all([restPledges(url), graphSupporters(url)]);
    const measurement = createRedisConnection({ url: redis.url, prefix: '' });
    await measurement.connect();
    const before = await commandCounts(measurement);
    const requests = 100;
    for (let index = 0; index < requests; index += 1) {
      const url = urls[index % urls.length]!;
      const uncached = JSON.stringify({ query: `{ supporters(platform: MEMBERSHIP) { id name } n${index}: stats { subscribers } }` });
      await Promise.all([
        restPledges(url),
        graphSupporters(url),
        fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: uncached }).then((response) => response.text()),
        fetch(`${url}/video/stats`).then((response) => response.text()),
      ]);
    }
    const after = await commandCounts(measurement);
    await closeRedisConnection(measurement);
    const sent = [...after].map(([command, calls]) => [command, calls - (before.get(command) ?? 0)] as const).filter(([, calls]) => calls > 0);
    // What runs meanwhile is not per request: each replica's blocking event read (XREAD BLOCK, once a
    // second while idle) and the INFO of this measurement.
    expect(sent.filter(([command]) => command !== 'xread' && command !== 'info')).toEqual([]);
  });

  it('one replica at a time refreshes a source: three replicas on a 1 s interval fetch about once a second, not three times', async () => {
    const interval = await startReplicaSet({ count: 3, redisUrl: redis.url, prefix: 'lease-test:', config: { refreshIntervalSeconds: 1 } });
    try {
      for (const replica of interval.replicas) await replica.store.read('membership');
      const start = await sandboxRequests(interval.sandbox);
      const started = performance.now();
      // As many refreshes as it takes to tell one per lease from one per replica: three replicas each
      // refreshing every second would fetch six times in about 2 s, where the bound below allows 4.
      const refreshes = await eventually(
        'six membership refreshes',
        async () => {
          const count = (await sandboxRequests(interval.sandbox)).campaign - start.campaign;
          return count >= 6 ? count : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      const seconds = (performance.now() - started) / 1000;
      // The lease lasts 0.8 of the interval: at most one refresh per 0.8 s, with a tick of slack (a
      // loaded machine only lengthens the time they took).
      expect(refreshes).toBeLessThanOrEqual(Math.ceil(seconds / 0.8) + 1);
    } finally {
      await interval.close();
    }
  }, 60_000);
});
