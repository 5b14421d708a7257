import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { MembershipChange } from '../../src/channel/membership.js';
import type { StatsSnapshot, Supporter, SupportersSnapshot } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import { ChannelEventLog, type ChannelEvent } from '../../src/channel/supporter-events.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { createRedisEventJournal } from '../../src/redis/event-journal.js';
import { createRedisSharedSnapshots } from '../../src/redis/redis-shared-snapshots.js';
import { silentLogger } from '../http/harness.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';

/**
 * Two SnapshotStores sharing their snapshots through src/redis (what two replicas do), over upstream
 * sources each test controls: compare-and-set writes, the refresh that overlapped another replica's
 * webhook, an unusable shared snapshot, and events numbered once across replicas.
 */
function supporter(id: string, amountCents: number): Supporter {
  return { id, platform: 'membership', name: id, tierId: null, amountCents, since: '2024-01-01T00:00:00.000Z' };
}

function join(id: string, amountCents: number): MembershipChange {
  return { kind: 'upsert', supporter: supporter(id, amountCents), tiers: [] };
}

/** A membership upstream answering `supporters`; `hold()` makes the next fetch wait until released. */
function controlledUpstream(supporters: Supporter[]) {
  let gate: Promise<void> | undefined;
  let release: (() => void) | undefined;
  let started: (() => void) | undefined;
  const source: UpstreamSource<SupportersSnapshot> = {
    name: 'membership',
    async fetch() {
      const snapshot: SupportersSnapshot = { platform: 'membership', supporters: [...supporters], tiers: [], fetchedAt: new Date().toISOString() };
      started?.();
      if (gate) await gate;
      return snapshot;
    },
  };
  return {
    source,
    hold(): { fetchStarted: Promise<void>; release(): void } {
      gate = new Promise((resolve) => (release = resolve));
      const fetchStarted = new Promise<void>((resolve) => (started = resolve));
      return {
        fetchStarted,
        release: () => {
          gate = undefined;
          release?.();
        },
      };
    },
  };
}

const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: () => Promise.resolve({ platform: 'video', supporters: [], tiers: [], fetchedAt: new Date().toISOString() }) };
const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: () => Promise.resolve({ subscribers: 1, fetchedAt: new Date().toISOString() }) };

describeWithBinary(REDIS_SERVER, 'snapshot stores sharing snapshots and events through src/redis and a real redis-server', (path) => {
  let redis: RunningRedis;
  let testNumber = 0;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    redis = await startRedisServer(path);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(() => redis.stop());

  /** One "replica": a store over `membership` sharing through Redis under this test's prefix. */
  async function replica(membership: UpstreamSource<SupportersSnapshot>) {
    const settings = { url: redis.url, prefix: `shared-test-${testNumber}:` };
    const connection = createRedisConnection(settings);
    const subscriber = createRedisConnection(settings);
    const reader = createRedisConnection(settings, { commandTimeoutMs: 3_000 });
    await Promise.all([connection.connect(), reader.connect()]);
    const shared = createRedisSharedSnapshots({ settings, connection, subscriber });
    const journal = await createRedisEventJournal({ settings, connection, reader, maxEntries: 100, logger: silentLogger });
    // What the store warns about (a shared snapshot it could not read or use) is what a test waits for.
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (line: string) => void warnings.push(line), error: () => undefined };
    const store = new SnapshotStore({ sources: { membership, video, stats }, shared, lease: shared, refreshIntervalMs: 0, logger });
    await store.start();
    await store.read('membership');
    const log = new ChannelEventLog({ store, journal, logger: silentLogger });
    const events: ChannelEvent[] = [];
    log.subscribe((event) => events.push(event));
    cleanups.push(async () => {
      log.close();
      await store.close();
      shared.close();
      journal.close();
      reader.disconnect(false);
      await Promise.all([closeRedisConnection(connection), closeRedisConnection(subscriber)]);
    });
    return { store, log, events, connection, settings, warnings };
  }

  const ids = (store: SnapshotStore) => store.current('membership')?.data.supporters.map((entry) => entry.id).sort();

  it('concurrent webhooks on two replicas both land (compare-and-set), and each replica ends with both', async () => {
    testNumber += 1;
    const one = await replica(controlledUpstream([supporter('a', 100)]).source);
    const two = await replica(controlledUpstream([supporter('a', 100)]).source);
    await Promise.all(Array.from({ length: 10 }, (_unused, index) => (index % 2 === 0 ? one : two).store.applyMembershipChange(join(`n${index}`, 200 + index))));
    const expected = ['a', ...Array.from({ length: 10 }, (_unused, index) => `n${index}`)].sort();
    await eventually('both replicas with every change', () => JSON.stringify(ids(one.store)) === JSON.stringify(expected) && JSON.stringify(ids(two.store)) === JSON.stringify(expected));
    // Ten JOINED events, each diffed once, numbered consecutively, the same on both replicas. An
    // eleventh change comes after them: once both replicas have its event, an event diffed twice
    // would have come before it.
    await one.store.applyMembershipChange(join('last', 999));
    const hasLast = (events: ChannelEvent[]): boolean => events.some((event) => event.type === 'supporter' && event.supporter.id === 'last');
    await eventually('the eleventh event on each', () => hasLast(one.events) && hasLast(two.events));
    expect(one.events.map((event) => event.id)).toEqual(two.events.map((event) => event.id));
    expect(one.events).toHaveLength(11);
    expect(one.events.at(-1)).toMatchObject({ type: 'supporter', supporter: { id: 'last' } });
    const numbers = one.events.map((event) => Number(event.id));
    expect(numbers).toEqual(numbers.map((_id, index) => numbers[0]! + index));
    expect(new Set(one.events.map((event) => event.type === 'supporter' && event.supporter.id)).size).toBe(11);
  });

  it('a refresh that overlapped a webhook written by another replica keeps the webhook (the fetch may predate it)', async () => {
    testNumber += 1;
    const slow = controlledUpstream([supporter('a', 100)]);
    const one = await replica(slow.source);
    const two = await replica(controlledUpstream([supporter('a', 100)]).source);
    const held = slow.hold();
    const refreshing = one.store.refresh('membership');
    await held.fetchStarted;
    await two.store.applyMembershipChange(join('late', 900));
    await eventually('the webhook on replica one', () => ids(one.store)?.includes('late') === true);
    held.release();
    await refreshing;
    expect(ids(one.store)).toEqual(['a', 'late']);
    expect(ids(two.store)).toEqual(['a', 'late']);
  });

  it('a change heard while the command connection is down is read when that connection is back (not at the next interval)', async () => {
    testNumber += 1;
    const one = await replica(controlledUpstream([supporter('a', 100)]).source);
    const two = await replica(controlledUpstream([supporter('a', 100)]).source);
    // Replica one's subscriber stays connected and hears the change; its re-read fails at once (no
    // offline queue) — what happens when Redis restarts and the subscriber reconnects first.
    one.connection.disconnect();
    await eventually('the command connection closed', () => one.connection.status === 'end');
    await two.store.applyMembershipChange(join('while-down', 300));
    await eventually('replica one heard the change and could not read it', () => one.warnings.some((line) => line.includes('the shared membership snapshot is unreachable, serving the one in memory')));
    expect(ids(one.store)).toEqual(['a']);
    await one.connection.connect();
    // The interval is off (refreshIntervalMs 0): only the reconnection can bring the change.
    await eventually('the change on replica one after its reconnection', () => ids(one.store)?.includes('while-down') === true);
  });

  it('an unusable shared snapshot is ignored with the one in memory kept', async () => {
    testNumber += 1;
    const one = await replica(controlledUpstream([supporter('a', 100)]).source);
    const two = await replica(controlledUpstream([supporter('a', 100)]).source);
    const key = `${one.settings.prefix}snapshot:membership`;
    await one.connection.hset(key, 'version', String(Date.now() * 1000 + 10_000_000), 'json', '{"platform":"membership","supporters":"not a list"}');
    await one.connection.publish(`${one.settings.prefix}snapshots`, 'membership 1 someone-else');
    const ignored = (warnings: string[]): boolean => warnings.some((line) => line.startsWith('snapshot store: ignoring the shared membership snapshot'));
    await eventually('both replicas read the unusable snapshot and ignored it', () => ignored(one.warnings) && ignored(two.warnings));
    expect(ids(one.store)).toEqual(['a']);
    expect(ids(two.store)).toEqual(['a']);
  });
});
