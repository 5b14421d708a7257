import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatsSnapshot, SupportersSnapshot } from '../../src/channel/models.js';
import { type SnapshotChange, SnapshotStore, type SourceName, UpstreamUnavailableError } from '../../src/channel/snapshot-store.js';
import { eventually } from '../support/eventually.js';
import { type JsonUpstream, startJsonUpstream } from './json-upstream.js';

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;
const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function supporters(platform: 'membership' | 'video', count: number): SupportersSnapshot {
  return {
    platform,
    fetchedAt: new Date().toISOString(),
    tiers: [{ id: 't1', platform, title: 'Gold', amountCents: 500 }],
    supporters: Array.from({ length: count }, (_, index) => ({
      id: `${platform}-${index}`,
      platform,
      name: `Name${index}`,
      tierId: 't1',
      amountCents: 500,
      since: new Date(Date.UTC(2020, 0, 1 + index)).toISOString(),
    })),
  };
}

describe('SnapshotStore', () => {
  let dataDir: string;
  let membership: JsonUpstream<SupportersSnapshot>;
  let video: JsonUpstream<SupportersSnapshot>;
  let stats: JsonUpstream<StatsSnapshot>;
  const stores: SnapshotStore[] = [];

  function createStore(options: { refreshIntervalMs?: number; dataDir?: string | null; logger?: Logger } = {}): SnapshotStore {
    const store = new SnapshotStore({
      sources: { membership: membership.source, video: video.source, stats: stats.source },
      dataDir: options.dataDir === null ? undefined : (options.dataDir ?? dataDir),
      refreshIntervalMs: options.refreshIntervalMs ?? 0,
      retryAfterSeconds: 7,
      logger: options.logger ?? silent,
    });
    stores.push(store);
    return store;
  }

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'snapshot-store-'));
    membership = await startJsonUpstream('membership', supporters('membership', 3));
    video = await startJsonUpstream('video', supporters('video', 2));
    stats = await startJsonUpstream('stats', { subscribers: 1234, fetchedAt: new Date().toISOString() });
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await Promise.all([membership.close(), video.close(), stats.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves concurrent reads on a cold cache from ONE upstream fetch', async () => {
    const release = membership.hold();
    const store = createStore();
    const reading = Promise.all(Array.from({ length: 50 }, () => store.read('membership')));
    await eventually('the fetch at the upstream', () => membership.requests === 1);
    release();
    const reads = await reading;
    expect(membership.requests).toBe(1);
    expect(new Set(reads.map((served) => served.data)).size).toBe(1);
    expect(reads[0]?.data.supporters.map((supporter) => supporter.id)).toEqual(['membership-0', 'membership-1', 'membership-2']);
    expect(reads[0]?.stale).toBe(false);
    // Warm reads do not touch the upstream.
    await store.read('membership');
    expect(membership.requests).toBe(1);
  });

  it('start() warms every source in the background and reads join that fetch', async () => {
    const release = video.hold();
    const store = createStore();
    await store.start();
    await eventually('the warming fetch at the upstream', () => video.requests === 1);
    const reading = store.read('video'); // while that fetch is held
    release();
    const served = await reading;
    expect(served.data.supporters).toHaveLength(2);
    expect(video.requests).toBe(1);
  });

  it('tells listeners of every refresh and what changed: the content (not for the same data fetched again), the staleness', async () => {
    const store = createStore();
    const changes: Array<[SourceName, SnapshotChange]> = [];
    store.onChange((source, _written, change) => changes.push([source, change]));
    const later = (seconds: number): string => new Date(Date.now() + seconds * 1000).toISOString();
    await store.read('stats');
    stats.body = { subscribers: 1234, fetchedAt: later(1) };
    await store.refresh('stats');
    stats.status = 503;
    await expect(store.refresh('stats')).rejects.toThrow('HTTP 503');
    stats.status = 200;
    stats.body = { subscribers: 1234, fetchedAt: later(2) };
    await store.refresh('stats');
    stats.body = { subscribers: 1300, fetchedAt: later(3) };
    await store.refresh('stats');
    expect(changes).toEqual([
      ['stats', { content: true, staleness: false }],
      ['stats', { content: false, staleness: false }],
      ['stats', { content: false, staleness: true }],
      ['stats', { content: false, staleness: true }],
      ['stats', { content: true, staleness: false }],
    ]);
  });

  it('measures the first fetch after a restart against the snapshot loaded from disk', async () => {
    const first = createStore();
    await first.refresh('membership');
    await first.close();
    // The same data, fetched again later: what start()'s background refresh brings.
    membership.body = { ...supporters('membership', 3), fetchedAt: new Date(Date.now() + 1000).toISOString() };
    const restarted = createStore();
    const changes: SnapshotChange[] = [];
    restarted.onChange((source, _written, change) => source === 'membership' && changes.push(change));
    await restarted.start();
    await restarted.refresh('membership'); // joins the background refresh
    membership.body = supporters('membership', 4);
    await restarted.refresh('membership');
    expect(changes).toEqual([
      { content: false, staleness: false },
      { content: true, staleness: false },
    ]);
  });

  it('keeps the last snapshot marked stale when a refresh fails, and recovers', async () => {
    const store = createStore();
    const changes: SourceName[] = [];
    store.onChange((source) => changes.push(source));
    await store.read('stats');
    stats.status = 503;
    await expect(store.refresh('stats')).rejects.toThrow('HTTP 503');
    const served = await store.read('stats');
    expect(served).toMatchObject({ stale: true, data: { subscribers: 1234 } });
    expect(store.health().stats).toMatchObject({ stale: true, lastError: 'stats: upstream answered HTTP 503' });
    expect(changes).toEqual(['stats', 'stats']);

    stats.status = 200;
    stats.body = { subscribers: 1300, fetchedAt: new Date().toISOString() };
    await store.refresh('stats');
    expect(await store.read('stats')).toMatchObject({ stale: false, data: { subscribers: 1300 } });
    expect(store.health().stats).toMatchObject({ stale: false, lastError: null });
  });

  it('throws UpstreamUnavailableError (with retryAfterSeconds) only when there is no snapshot', async () => {
    const store = createStore();
    membership.status = 500;
    const error = await store.read('membership').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(error).toMatchObject({ source: 'membership', retryAfterSeconds: 7 });
    expect((error as Error).message).toContain('HTTP 500');
    expect(store.health().membership).toMatchObject({ fetchedAt: null, ageSeconds: null, lastError: 'membership: upstream answered HTTP 500' });
    // Each later read retries the upstream: once it is back, data is served.
    membership.status = 200;
    expect((await store.read('membership')).data.supporters).toHaveLength(3);
  });

  it('persists snapshots atomically and serves them after a restart without the upstream', async () => {
    const first = createStore();
    await first.refresh('membership');
    await first.refresh('stats');
    await first.close();
    const files = (await readdir(dataDir)).sort();
    expect(files).toEqual(['snapshot-membership.json', 'snapshot-stats.json']);
    const stored = JSON.parse(await readFile(join(dataDir, 'snapshot-membership.json'), 'utf8')) as { snapshot: SupportersSnapshot };
    expect(stored.snapshot.supporters).toHaveLength(3);

    membership.status = 503;
    stats.status = 503;
    const requestsBefore = membership.requests;
    const second = createStore({ refreshIntervalMs: 60_000 });
    await second.start();
    // Served at once from disk, while the background refresh fails.
    const served = await second.read('membership');
    expect(served.data.supporters.map((supporter) => supporter.id)).toEqual(stored.snapshot.supporters.map((supporter) => supporter.id));
    await expect(second.refresh('membership')).rejects.toThrow();
    expect(membership.requests).toBeGreaterThan(requestsBefore);
    expect(await second.read('membership')).toMatchObject({ stale: true });
  });

  it('removes the temporary files an interrupted save left behind when it starts (kill -9 between write and rename)', async () => {
    const first = createStore();
    await first.refresh('membership');
    await first.close();
    // What a process killed mid-save leaves: a torn temporary file of a pid that is gone.
    const leftover = join(dataDir, 'snapshot-membership.json.4194305.0123456789ab.tmp');
    await writeFile(leftover, '{"version":1,"snap');
    membership.status = 503;
    const second = createStore();
    await second.start();
    expect((await second.read('membership')).data.supporters).toHaveLength(3);
    expect((await readdir(dataDir)).sort()).toEqual(['snapshot-membership.json']);
  });

  it('keeps serving from memory and logs when the snapshot cannot be written', async () => {
    const notADirectory = join(dataDir, 'file');
    await writeFile(notADirectory, 'a file where DATA_DIR should be');
    const errors: string[] = [];
    const store = createStore({ dataDir: notADirectory, logger: { ...silent, error: (message: string) => void errors.push(message) } });
    await store.refresh('stats');
    expect((await store.read('stats')).data.subscribers).toBe(1234);
    expect(errors).toEqual([expect.stringMatching(/^snapshot store: could not persist the stats snapshot: EEXIST/)]);
  });

  it('reports a stored snapshot older than one refresh interval as stale until a refresh succeeds', async () => {
    const old = { ...supporters('video', 2), fetchedAt: new Date(Date.now() - 3_600_000).toISOString() };
    await writeFile(join(dataDir, 'snapshot-video.json'), JSON.stringify({ version: 1, snapshot: old }));
    const release = video.hold(); // the start-up refresh stays in flight
    const store = createStore({ refreshIntervalMs: 60_000 });
    await store.start();
    expect(await store.read('video')).toMatchObject({ stale: true, data: { fetchedAt: old.fetchedAt } });
    expect(store.health().video.ageSeconds).toBeGreaterThanOrEqual(3600);
    release();
    await store.refresh('video');
    expect((await store.read('video')).stale).toBe(false);
  });

  it('ignores an unusable snapshot file with a warning instead of serving it', async () => {
    await writeFile(join(dataDir, 'snapshot-video.json'), '{"version":1,"snapshot":{"platform":"video"}}');
    const warnings: string[] = [];
    const store = createStore({ logger: { ...silent, warn: (message: string) => void warnings.push(message) } });
    await store.start();
    expect(warnings.some((warning) => warning.includes('ignoring the stored video snapshot'))).toBe(true);
    expect((await store.read('video')).data.supporters).toHaveLength(2);
  });

  it('applies membership changes in place, persists them and notifies listeners', async () => {
    const store = createStore();
    await store.read('membership');
    const changes: SourceName[] = [];
    store.onChange((source) => changes.push(source));

    await store.applyMembershipChange({
      kind: 'upsert',
      supporter: { id: 'membership-1', platform: 'membership', name: 'Renamed', tierId: 't2', amountCents: 900, since: '2021-05-01T00:00:00.000Z' },
      tiers: [{ id: 't2', platform: 'membership', title: 'Platinum', amountCents: 900 }],
    });
    await store.applyMembershipChange({
      kind: 'upsert',
      supporter: { id: 'new', platform: 'membership', name: 'Newcomer', tierId: 't1', amountCents: 500, since: '2022-01-01T00:00:00.000Z' },
      tiers: [],
    });
    await store.applyMembershipChange({ kind: 'remove', id: 'membership-0' });

    const { data } = await store.read('membership');
    expect(data.supporters.map((supporter) => `${supporter.id}:${supporter.name}`)).toEqual(['membership-1:Renamed', 'membership-2:Name2', 'new:Newcomer']);
    expect(data.tiers.map((tier) => tier.id)).toEqual(['t1', 't2']);
    expect(changes).toEqual(['membership', 'membership', 'membership']);
    expect(membership.requests).toBe(1);

    const onDisk = JSON.parse(await readFile(join(dataDir, 'snapshot-membership.json'), 'utf8')) as { snapshot: SupportersSnapshot };
    expect(onDisk.snapshot).toEqual(data);
  });

  it('replays a webhook change that lands while a refresh is in flight over its result', async () => {
    const store = createStore({ dataDir: null });
    await store.read('membership');
    const release = membership.hold();
    const refreshing = store.refresh('membership');
    await eventually('the refresh at the upstream', () => membership.requests === 2);
    await store.applyMembershipChange({ kind: 'remove', id: 'membership-2' });
    release();
    await refreshing;
    const { data } = await store.read('membership');
    expect(data.supporters.map((supporter) => supporter.id)).toEqual(['membership-0', 'membership-1']);
  });

  it('with no snapshot, a webhook change triggers a full fetch instead', async () => {
    const store = createStore();
    await store.applyMembershipChange({ kind: 'remove', id: 'membership-0' });
    expect(membership.requests).toBe(1);
    expect((await store.read('membership')).data.supporters).toHaveLength(3);
  });

  it('refreshes on the interval', async () => {
    const store = createStore({ refreshIntervalMs: 40 });
    await store.start();
    await expect.poll(() => stats.requests, { timeout: 2_000 }).toBeGreaterThanOrEqual(3);
    stats.body = { subscribers: 99, fetchedAt: new Date().toISOString() };
    await expect.poll(async () => (await store.read('stats')).data.subscribers, { timeout: 2_000 }).toBe(99);
  });
});
