/**
 * The history recorder over a real SnapshotStore (its upstreams return what each test sets) and a
 * real database, on PGlite and on PostgreSQL: what each refresh changed is stored once, with the
 * totals; a restart or a retry records nothing twice; the database down loses nothing; goals are
 * announced once.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatsSnapshot, Supporter, SupportersSnapshot, Tier } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { createGoalTracker, type Goal, type GoalReached } from '../../src/history/goals.js';
import { createHistoryDatabase, type HistoryDatabase } from '../../src/history/history-database.js';
import { compactTotals, readChanges, readHistory } from '../../src/history/history-queries.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { describeOnDatabases } from '../support/databases.js';
import { eventually } from '../support/eventually.js';

const silent = { info() {}, warn() {}, error() {} };
const TIERS: Tier[] = [
  { id: 't5', platform: 'membership', title: 'Fan', amountCents: 500 },
  { id: 't10', platform: 'membership', title: 'Super fan', amountCents: 1000 },
];
const patron = (id: string, tierId: string, amountCents: number): Supporter => ({ id, platform: 'membership', name: `P${id}`, tierId, amountCents, since: '2024-01-01T00:00:00.000Z' });

interface Harness {
  store: SnapshotStore;
  recorder: HistoryRecorder;
  database: HistoryDatabase;
  set(supporters: Supporter[], subscribers?: number): void;
  /** A refresh of every source, recorded (unless `recorded` is false: the database is down). */
  refresh(recorded?: boolean): Promise<void>;
  clock: { now: number };
  reached: GoalReached[];
  close(): Promise<void>;
}

describeOnDatabases('history recorder', (backend) => {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
  });

  /** The store starts with `initial` (its first snapshot: where history starts). */
  async function harness(options: { initial?: Supporter[]; goals?: Goal[]; clock?: { now: number }; databaseOptions?: Awaited<ReturnType<typeof backend.fresh>> } = {}): Promise<Harness> {
    const current: { supporters: Supporter[]; subscribers: number } = { supporters: options.initial ?? [], subscribers: 100 };
    const clock = options.clock ?? { now: Date.parse('2025-01-01T00:00:00Z') };
    const fetchedAt = () => new Date(clock.now).toISOString();
    const membership: UpstreamSource<SupportersSnapshot> = { name: 'membership', fetch: async () => ({ platform: 'membership', supporters: [...current.supporters], tiers: TIERS, fetchedAt: fetchedAt() }) };
    const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: async () => ({ platform: 'video', supporters: [], tiers: [], fetchedAt: fetchedAt() }) };
    const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: async () => ({ subscribers: current.subscribers, fetchedAt: fetchedAt() }) };
    const store = new SnapshotStore({ sources: { membership, video, stats }, refreshIntervalMs: 0, logger: silent });
    const database = createHistoryDatabase({ ...(options.databaseOptions ?? (await backend.fresh())), logger: silent, retryMs: 50 });
    const recorder = new HistoryRecorder({ database, store, now: () => clock.now, logger: silent, retryMs: 50 });
    const reached: GoalReached[] = [];
    if (options.goals !== undefined) {
      const tracker = createGoalTracker(options.goals);
      recorder.addHook(tracker.hook);
      recorder.onRecorded((recorded) => reached.push(...tracker.takeReached(recorded)));
    }
    recorder.start();
    await store.start();
    await database.opened();
    const h: Harness = {
      store, recorder, database, clock, reached,
      set(supporters, subscribers) {
        current.supporters = supporters;
        if (subscribers !== undefined) current.subscribers = subscribers;
      },
      async refresh(recorded = true) {
        clock.now += 300_000;
        await Promise.all((['membership', 'video', 'stats'] as const).map((source) => store.refresh(source)));
        await recorder.settled();
        // A recording that failed is tried again after a pause: wait for the backlog, not only the run.
        if (recorded) await eventually('the refresh to be recorded', async () => {
          await recorder.settled();
          return recorder.backlog.length === 0;
        });
      },
      async close() {
        await recorder.close();
        await store.close();
        await database.close();
      },
    };
    open.push(h);
    await recorder.settled();
    return h;
  }

  const kindsOf = async (h: Harness) => (await readChanges(h.database.get().db, { since: new Date(0), platforms: ['membership', 'video'], limit: 100 })).rows.map((row) => `${row.kind} ${row.supporterId} ${row.amountCentsBefore ?? '-'}→${row.amountCentsAfter ?? '-'}`);

  it('records each change between refreshes with the amounts and tiers before and after, and the totals of each refresh', async () => {
    const h = await harness({ initial: [patron('1', 't5', 500), patron('2', 't5', 500), patron('3', 't10', 1000)] });
    await h.refresh();
    // The first recording is where history starts: no change.
    expect(await kindsOf(h)).toEqual([]);
    h.set([patron('1', 't10', 1000), patron('3', 't5', 500), patron('4', 't5', 500)], 120);
    await h.refresh();
    expect(await kindsOf(h)).toEqual(['upgraded 1 500→1000', 'downgraded 3 1000→500', 'joined 4 -→500', 'left 2 500→-']);
    const changes = (await readChanges(h.database.get().db, { since: new Date(0), platforms: ['membership'], limit: 10 })).rows;
    expect(changes[0]).toMatchObject({ tierIdBefore: 't5', tierTitleBefore: 'Fan', tierIdAfter: 't10', tierTitleAfter: 'Super fan', name: 'P1' });
    const history = await readHistory(h.database.get().db, { from: new Date(h.clock.now - 3_600_000), to: new Date(h.clock.now + 1), interval: 'day', platforms: ['membership'] });
    expect(history).toHaveLength(1);
    expect(history[0]?.platforms[0]).toMatchObject({ platform: 'membership', members: 3, monthlyCents: 2000 });
    expect(history[0]?.platforms[0]?.tiers).toEqual([
      { tierId: 't10', title: 'Super fan', members: 1, monthlyCents: 1000 },
      { tierId: 't5', title: 'Fan', members: 2, monthlyCents: 1000 },
    ]);
    expect(history[0]?.subscribers).toBe(120);
  });

  it('records a snapshot once: a restart over the same snapshots, and a refresh that brings nothing new, add no change', async () => {
    const databaseOptions = await backend.fresh();
    const clock = { now: Date.parse('2025-01-01T00:00:00Z') };
    const first = await harness({ databaseOptions, clock, initial: [patron('1', 't5', 500)] });
    first.set([patron('1', 't5', 500), patron('2', 't5', 500)]);
    await first.refresh();
    await first.refresh();
    expect(await kindsOf(first)).toEqual(['joined 2 -→500']);
    await first.close();
    open.splice(open.indexOf(first), 1);
    // A new process over the same database and the same upstream data.
    const second = await harness({ databaseOptions, clock, initial: [patron('1', 't5', 500), patron('2', 't5', 500)] });
    await second.refresh();
    expect(await kindsOf(second)).toEqual(['joined 2 -→500']);
    second.set([patron('2', 't5', 500)]);
    await second.refresh();
    expect(await kindsOf(second)).toEqual(['joined 2 -→500', 'left 1 500→-']);
  });

  it('announces a goal once: not again after a dip recovered within the hour, again after a longer one', async () => {
    const goal: Goal = { id: 'three', title: 'Three patrons', measure: 'members', platform: null, target: 3 };
    const h = await harness({ goals: [goal], initial: [patron('1', 't5', 500), patron('2', 't5', 500)] });
    expect(h.reached).toEqual([]);
    h.set([patron('1', 't5', 500), patron('2', 't5', 500), patron('3', 't5', 500)]);
    await h.refresh();
    expect(h.reached.map((entry) => `${entry.goal.id} ${entry.value}`)).toEqual(['three 3']);
    // A dip and a recovery 10 minutes later: no new announcement.
    h.set([patron('1', 't5', 500), patron('2', 't5', 500)]);
    await h.refresh();
    h.set([patron('1', 't5', 500), patron('2', 't5', 500), patron('3', 't5', 500)]);
    await h.refresh();
    expect(h.reached).toHaveLength(1);
    // Below for more than an hour, then above: announced again.
    h.set([patron('1', 't5', 500)]);
    await h.refresh();
    h.clock.now += 3_600_000;
    await h.refresh();
    h.set([patron('1', 't5', 500), patron('2', 't5', 500), patron('3', 't5', 500), patron('4', 't5', 500)]);
    await h.refresh();
    expect(h.reached.map((entry) => `${entry.goal.id} ${entry.value}`)).toEqual(['three 3', 'three 4']);
  });

  it('compacts the totals: the last sample of each hour after 7 days, of each day after 90', async () => {
    const start = Date.parse('2025-01-01T00:00:00Z');
    // Two days of refreshes every 30 minutes, 100 days ago.
    const h = await harness({ initial: [patron('1', 't5', 500)], clock: { now: start - 100 * 86_400_000 } });
    for (let i = 0; i < 2 * 48; i += 1) {
      if (i % 20 === 0) h.set(i % 40 === 0 ? [patron('1', 't5', 500)] : [patron('1', 't5', 500), patron(`x${i}`, 't5', 500)]);
      h.clock.now += 25 * 60_000;
      await h.refresh();
    }
    const db = h.database.get().db;
    const count = async () => Number((await db.selectFrom('totals_sample').select((eb) => eb.fn.countAll<number>().as('n')).where('source', '=', 'membership').executeTakeFirstOrThrow()).n);
    expect(await count()).toBeGreaterThanOrEqual(2 * 48);
    await compactTotals(db, new Date(start));
    // The last sample of each of the two (or three, by the clock's start) days.
    expect(await count()).toBeLessThanOrEqual(3);
    const days = await readHistory(db, { from: new Date(start - 101 * 86_400_000), to: new Date(start), interval: 'day', platforms: ['membership'] });
    expect(days.length).toBeGreaterThanOrEqual(2);
    // Changes are history: compaction keeps them all.
    expect((await kindsOf(h)).length).toBeGreaterThan(0);
    // And the tables are vacuumed: on PGlite, which runs no autovacuum, nothing else would.
    const vacuumed = async () => (await sql<{ relname: string }>`SELECT relname FROM pg_stat_user_tables WHERE last_vacuum IS NOT NULL AND relname IN ('totals_sample', 'totals_tier', 'recorded_supporter', 'recorded_snapshot', 'supporter_change')`.execute(db)).rows;
    await eventually('the history tables vacuumed', async () => (await vacuumed()).length === 5);
  }, 120_000);

  if (backend.name === 'PostgreSQL') {
    describe('with the database down', () => {
      it('keeps what it has to record and, once the database is back, records the changes since the last stored snapshot, once', async () => {
        const h = await harness({ initial: [patron('1', 't5', 500), patron('2', 't5', 500)] });
        const server = backend.server;
        if (server === undefined) throw new Error('no server');
        await server.stop();
        h.set([patron('2', 't10', 1000), patron('3', 't5', 500)]);
        await h.refresh(false);
        h.set([patron('2', 't10', 1000), patron('3', 't5', 500), patron('4', 't5', 500)]);
        await h.refresh(false);
        expect(h.recorder.backlog).toContain('membership');
        expect(h.database.health().state).toBe('unreachable');
        await server.start();
        await eventually('the backlog to be recorded', () => h.recorder.backlog.length === 0);
        await h.recorder.settled();
        expect(await kindsOf(h)).toEqual(['upgraded 2 500→1000', 'joined 3 -→500', 'joined 4 -→500', 'left 1 500→-']);
        expect(h.database.health().state).toBe('open');
      }, 60_000);
    });
  }
});
