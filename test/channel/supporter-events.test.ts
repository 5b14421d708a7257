import { describe, expect, it } from 'vitest';
import type { StatsSnapshot, Supporter, SupportersSnapshot } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import { ChannelEventLog, RESET, type ChannelEvent } from '../../src/channel/supporter-events.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { silentLogger } from '../http/harness.js';

/**
 * The event log over a real SnapshotStore whose upstream sources return what each test sets: every
 * refresh is diffed against the previous snapshot; no change, no event.
 */
function supporter(id: string, amountCents: number, tierId: string | null = null): Supporter {
  return { id, platform: 'membership', name: id, tierId, amountCents, since: '2024-01-01T00:00:00.000Z' };
}

function storeWith() {
  const current = { membership: [] as Supporter[], subscribers: 10 as number | null };
  const membership: UpstreamSource<SupportersSnapshot> = {
    name: 'membership',
    fetch: () => Promise.resolve({ platform: 'membership', supporters: [...current.membership], tiers: [], fetchedAt: new Date().toISOString() }),
  };
  const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: () => Promise.resolve({ platform: 'video', supporters: [], tiers: [], fetchedAt: new Date().toISOString() }) };
  const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: () => Promise.resolve({ subscribers: current.subscribers, fetchedAt: new Date().toISOString() }) };
  const store = new SnapshotStore({ sources: { membership, video, stats }, refreshIntervalMs: 0, logger: silentLogger });
  return { store, current };
}

async function started(maxEntries?: number) {
  const { store, current } = storeWith();
  current.membership = [supporter('a', 300), supporter('b', 500)];
  await store.start();
  await Promise.all([store.refresh('membership'), store.refresh('stats'), store.refresh('video')]);
  const log = new ChannelEventLog({ store, ...(maxEntries === undefined ? {} : { maxEntries }), logger: silentLogger });
  const events: ChannelEvent[] = [];
  log.subscribe((event) => events.push(event));
  return { store, current, log, events };
}

describe('ChannelEventLog', () => {
  it('turns a refresh into JOINED, UPDATED and LEFT events with consecutive ids; an unchanged refresh emits nothing', async () => {
    const { store, current, log, events } = await started();
    await store.refresh('membership');
    await store.refresh('stats');
    expect(events).toEqual([]);

    current.membership = [supporter('a', 1000, 't3'), supporter('c', 300)];
    await store.refresh('membership');
    expect(events.map((event) => (event.type === 'supporter' ? [event.change, event.supporter.id, event.previousAmountCents] : event.type))).toEqual([
      ['updated', 'a', 300],
      ['joined', 'c', null],
      ['left', 'b', 500],
    ]);
    expect(events.map((event) => BigInt(event.id) - BigInt(events[0]!.id))).toEqual([0n, 1n, 2n]);
    expect(log.lastEventId).toBe(events[2]!.id);

    current.subscribers = 11;
    await store.refresh('stats');
    expect(events[3]).toMatchObject({ type: 'stats', stats: { subscribers: 11 } });
    log.close();
    await store.close();
  });

  it('replays from an id in the log and answers RESET for an older or unknown one; refuses a malformed id', async () => {
    const { store, current, log, events } = await started(2);
    const start = log.lastEventId;
    current.membership = [];
    await store.refresh('membership'); // two LEFT events
    current.membership = [supporter('z', 100)];
    await store.refresh('membership'); // one JOINED: the log (2 entries) forgets the first LEFT
    expect(events).toHaveLength(3);
    expect(log.since(events[0]!.id)).toEqual(events.slice(1));
    expect(log.since(events[2]!.id)).toEqual([]);
    expect(log.since(start)).toBe(RESET);
    expect(log.since(String(BigInt(log.lastEventId) + 5n))).toBe(RESET);
    expect(() => log.since('x')).toThrow(RangeError);
    log.close();
    await store.close();
  });

  it('frees a listener on unsubscribe, and tells the remaining ones when it closes', async () => {
    const { store, log } = await started();
    const unsubscribers = Array.from({ length: 1000 }, () => log.subscribe(() => undefined));
    expect(log.listenerCount).toBe(1001);
    for (const unsubscribe of unsubscribers) unsubscribe();
    expect(log.listenerCount).toBe(1);
    let closed = 0;
    log.subscribe(() => undefined, () => (closed += 1));
    log.close();
    expect(closed).toBe(1);
    expect(log.listenerCount).toBe(0);
    await store.close();
  });
});
