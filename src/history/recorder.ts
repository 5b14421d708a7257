/**
 * Records the channel over time: each snapshot this process writes (a refresh or a webhook here) is
 * compared, in one transaction, with the supporters as last recorded in the database, and what
 * changed (joined, left, upgraded, downgraded, tier changed) is stored with the snapshot's totals.
 *
 * - Nothing lost, nothing doubled: the comparison is with what the database holds, not with the
 *   previous snapshot in memory. A snapshot recorded once (its id is in `recorded_snapshot`) is not
 *   recorded again; one that could not be recorded (the database down, the process killed in the
 *   middle: the transaction leaves nothing) is recorded from the latest snapshot once it can be, with
 *   every change since the last recorded one.
 * - Replicas (REDIS_URL): a shared snapshot has one writer, which records it; the row lock on the
 *   source's `recorded_snapshot` row makes the recordings of one source one after another, and a
 *   snapshot fetched before the one recorded is not recorded over it.
 * - Hooks (`addHook`) run inside the recording's transaction, after its rows: what another module
 *   writes there (the goals' state; an outbox of notifications) commits or rolls back with it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Platform, StatsSnapshot, SupportersSnapshot } from '../channel/models.js';
import type { SnapshotStore, SourceName, SourceSnapshots } from '../channel/snapshot-store.js';
import type { Tables } from '../db/database.js';
import type { HistoryDatabase } from './history-database.js';
import { compactTotals } from './history-queries.js';
import { diffRecorded, recordedSupportersOf, snapshotId, totalsOf, type PlatformTotals, type RecordedSupporter, type SupporterChangeRecord } from './snapshot-diff.js';

/** What one recording stored: the hooks and the listeners get it. */
export interface RecordedSnapshot {
  source: SourceName;
  snapshotId: string;
  /** When this process took the snapshot (the time of its changes). */
  observedAt: Date;
  /** Empty for a source's first recording (where history starts) and for the statistics. */
  changes: readonly SupporterChangeRecord[];
  /** A platform's totals, or the statistics' subscribers. */
  totals: PlatformTotals | { subscribers: number | null };
}

/** Runs inside the recording's transaction; throwing rolls the whole recording back (it is tried again later). */
export type RecordingHook = (tx: Transaction<Tables>, recorded: RecordedSnapshot) => Promise<void>;

export interface HistoryRecorderOptions {
  database: HistoryDatabase;
  store: Pick<SnapshotStore, 'onChange' | 'current'>;
  now?: () => number;
  logger: Pick<Console, 'info' | 'warn' | 'error'>;
  /** First pause before a failed recording is tried again, doubling up to 30 s; default 1 s. */
  retryMs?: number;
  /** Compact the totals at most this often; default an hour. */
  compactEveryMs?: number;
}

interface Pending {
  snapshot: SourceSnapshots[SourceName];
  observedAt: Date;
}

const MAX_RETRY_MS = 30_000;
/** Rows per INSERT (PostgreSQL takes at most 65,535 parameters in a statement). */
const ROWS_PER_INSERT = 1_000;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function chunks<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < list.length; start += ROWS_PER_INSERT) out.push(list.slice(start, start + ROWS_PER_INSERT));
  return out;
}

const isStats = (source: SourceName, _snapshot: SourceSnapshots[SourceName]): _snapshot is StatsSnapshot => source === 'stats';

export class HistoryRecorder {
  readonly #database: HistoryDatabase;
  readonly #store: HistoryRecorderOptions['store'];
  readonly #now: () => number;
  readonly #logger: HistoryRecorderOptions['logger'];
  readonly #retryMs: number;
  readonly #compactEveryMs: number;
  readonly #hooks = new Set<RecordingHook>();
  readonly #listeners = new Set<(recorded: RecordedSnapshot) => void>();
  readonly #pending = new Map<SourceName, Pending>();
  readonly #running = new Map<SourceName, Promise<void>>();
  readonly #timers = new Map<SourceName, NodeJS.Timeout>();
  /** The supporters as this process last recorded them, by platform: spares reading them back. */
  readonly #recorded = new Map<Platform, { snapshotId: string; supporters: Map<string, RecordedSupporter> }>();
  #lastCompaction = Number.NEGATIVE_INFINITY;
  #unsubscribe: (() => void) | undefined;
  #closed = false;
  /** Resolves when close() is called: a run still waiting for the database to open gives up then. */
  #closing!: () => void;
  readonly #whenClosing = new Promise<undefined>((resolve) => {
    this.#closing = () => resolve(undefined);
  });

  constructor(options: HistoryRecorderOptions) {
    this.#database = options.database;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
    this.#retryMs = options.retryMs ?? 1_000;
    this.#compactEveryMs = options.compactEveryMs ?? 3_600_000;
  }

  /** Adds a hook run in every recording's transaction; returns its removal. */
  addHook(hook: RecordingHook): () => void {
    this.#hooks.add(hook);
    return () => this.#hooks.delete(hook);
  }

  /** Calls `listener` after each recording is committed. */
  onRecorded(listener: (recorded: RecordedSnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Records every snapshot this process writes from now on, and, once the database is open, the
   * snapshots in memory (what a previous run could not record is recorded then).
   */
  start(): void {
    this.#unsubscribe = this.#store.onChange((source, written) => {
      if (written !== undefined) this.#enqueue(source, written.current);
    });
    this.#database.opened().then(
      () => {
        for (const source of ['membership', 'video', 'stats'] as const) {
          const current = this.#store.current(source);
          if (current !== null && !this.#pending.has(source)) this.#enqueue(source, current.data);
        }
      },
      () => undefined,
    );
  }

  /** Resolves once nothing is waiting to be recorded that can be recorded now (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Sources whose latest snapshot is not recorded yet. */
  get backlog(): SourceName[] {
    return [...this.#pending.keys()];
  }

  /** Stops taking snapshots; what is pending is recorded first (unless the database is down: then the next start records it). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing();
    this.#unsubscribe?.();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all(this.#running.values());
  }

  #enqueue(source: SourceName, snapshot: SourceSnapshots[SourceName]): void {
    if (this.#closed) return;
    this.#pending.set(source, { snapshot, observedAt: new Date(this.#now()) });
    this.#run(source, this.#retryMs);
  }

  #run(source: SourceName, retryMs: number): void {
    if (this.#running.has(source) || this.#timers.has(source)) return;
    const run = (async () => {
      let database;
      try {
        database = await Promise.race([this.#database.opened(), this.#whenClosing]);
      } catch {
        return;
      }
      if (database === undefined) return;
      // Also after close(): what is pending is recorded before the database closes.
      for (;;) {
        const pending = this.#pending.get(source);
        if (pending === undefined) return;
        try {
          await this.#record(database.db, source, pending);
          this.#database.succeeded();
        } catch (error) {
          this.#database.failed(error);
          this.#logger.warn(`history: recording the ${source} snapshot failed (${describe(error)}); trying again in ${Math.round(retryMs / 1000)} s`);
          const timer = setTimeout(() => {
            this.#timers.delete(source);
            this.#run(source, Math.min(retryMs * 2, MAX_RETRY_MS));
          }, retryMs);
          timer.unref();
          this.#timers.set(source, timer);
          return;
        }
        // A newer snapshot may have come while this one was recorded: the loop records it next.
        if (this.#pending.get(source) === pending) this.#pending.delete(source);
      }
    })().finally(() => this.#running.delete(source));
    this.#running.set(source, run);
  }

  async #record(db: Kysely<Tables>, source: SourceName, pending: Pending): Promise<void> {
    const { snapshot, observedAt } = pending;
    const id = snapshotId(snapshot);
    const outcome = await db.transaction().execute(async (tx) => {
      await tx.insertInto('recorded_snapshot').values({ source, snapshot_id: '', fetched_at: new Date(0), observed_at: new Date(0) }).onConflict((conflict) => conflict.column('source').doNothing()).execute();
      const last = await tx.selectFrom('recorded_snapshot').select(['snapshot_id', 'fetched_at']).where('source', '=', source).forUpdate().executeTakeFirstOrThrow();
      // Recorded already (a retry, another replica, a restart), or fetched before what is recorded (a
      // replica's older fetch; after a crash, a snapshot file older than the last recording).
      if (last.snapshot_id === id || Date.parse(snapshot.fetchedAt) < last.fetched_at.getTime()) return undefined;
      const seen = await tx.selectFrom('totals_sample').select('id').where('source', '=', source).where('snapshot_id', '=', id).executeTakeFirst();
      if (seen !== undefined) return undefined;
      let recorded: RecordedSnapshot;
      let supporters: Map<string, RecordedSupporter> | undefined;
      if (isStats(source, snapshot)) {
        recorded = { source, snapshotId: id, observedAt, changes: [], totals: { subscribers: snapshot.subscribers } };
        await tx.insertInto('totals_sample').values({ source, snapshot_id: id, observed_at: observedAt, subscribers: snapshot.subscribers }).execute();
      } else {
        const platform = (snapshot).platform;
        supporters = recordedSupportersOf(snapshot);
        const changes = await this.#storeSupporters(tx, platform, last.snapshot_id, supporters);
        const totals = totalsOf(snapshot);
        recorded = { source, snapshotId: id, observedAt, changes, totals };
        for (const part of chunks(changes)) {
          await tx.insertInto('supporter_change').values(part.map((change) => ({
            snapshot_id: id, observed_at: observedAt, platform, supporter_id: change.supporterId, kind: change.kind, name: change.name,
            tier_id_before: change.before?.tierId ?? null, tier_title_before: change.before?.tierTitle ?? null, amount_cents_before: change.before?.amountCents ?? null,
            tier_id_after: change.after?.tierId ?? null, tier_title_after: change.after?.tierTitle ?? null, amount_cents_after: change.after?.amountCents ?? null,
          }))).execute();
        }
        const sample = await tx.insertInto('totals_sample').values({ source, snapshot_id: id, observed_at: observedAt, members: totals.members, monthly_cents: totals.monthlyCents }).returning('id').executeTakeFirstOrThrow();
        if (totals.tiers.length > 0) {
          await tx.insertInto('totals_tier').values(totals.tiers.map((tier) => ({ sample_id: sample.id, tier_id: tier.tierId, tier_title: tier.title, members: tier.members, monthly_cents: tier.monthlyCents }))).execute();
        }
      }
      await tx.updateTable('recorded_snapshot').set({ snapshot_id: id, fetched_at: snapshot.fetchedAt, observed_at: observedAt }).where('source', '=', source).execute();
      for (const hook of this.#hooks) await hook(tx, recorded);
      return { recorded, supporters };
    });
    if (outcome === undefined) return;
    const { recorded, supporters } = outcome;
    if (recorded.changes.length > 0) this.#logger.info(`history: recorded ${recorded.changes.length} ${source} changes`);
    if (supporters !== undefined) this.#recorded.set((snapshot as SupportersSnapshot).platform, { snapshotId: id, supporters });
    for (const listener of this.#listeners) {
      try {
        listener(recorded);
      } catch (error) {
        this.#logger.error(`history: a recording listener failed: ${describe(error)}`);
      }
    }
    if (observedAt.getTime() - this.#lastCompaction >= this.#compactEveryMs) {
      this.#lastCompaction = observedAt.getTime();
      await compactTotals(db, observedAt).catch((error: unknown) => this.#logger.warn(`history: compacting the totals failed: ${describe(error)}`));
    }
  }

  /**
   * Brings `recorded_supporter` of `platform` to `current` and returns the changes; none for the
   * platform's first recording (`lastId` empty), which is where its history starts.
   */
  async #storeSupporters(tx: Transaction<Tables>, platform: Platform, lastId: string, current: Map<string, RecordedSupporter>): Promise<SupporterChangeRecord[]> {
    const cached = this.#recorded.get(platform);
    let recorded: ReadonlyMap<string, RecordedSupporter>;
    if (lastId === '') recorded = new Map();
    else if (cached?.snapshotId === lastId) recorded = cached.supporters;
    else {
      const rows = await tx.selectFrom('recorded_supporter').select(['supporter_id', 'name', 'tier_id', 'tier_title', 'amount_cents']).where('platform', '=', platform).execute();
      recorded = new Map(rows.map((row) => [row.supporter_id, { id: row.supporter_id, name: row.name, tierId: row.tier_id, tierTitle: row.tier_title, amountCents: row.amount_cents }]));
    }
    const { changes, rewritten } = diffRecorded(platform, recorded, current);
    if (lastId !== '' && changes.length > 0) this.#logger.info(`history: recording ${changes.length} ${platform} changes`);
    const left = changes.filter((change) => change.kind === 'left').map((change) => change.supporterId);
    for (const part of chunks(left)) await tx.deleteFrom('recorded_supporter').where('platform', '=', platform).where('supporter_id', 'in', part).execute();
    const upserts = [...changes.filter((change) => change.kind !== 'left').map((change) => current.get(change.supporterId) as RecordedSupporter), ...rewritten];
    for (const part of chunks(upserts)) {
      await tx.insertInto('recorded_supporter')
        .values(part.map((supporter) => ({ platform, supporter_id: supporter.id, name: supporter.name, tier_id: supporter.tierId, tier_title: supporter.tierTitle, amount_cents: supporter.amountCents })))
        .onConflict((conflict) => conflict.columns(['platform', 'supporter_id']).doUpdateSet({
          name: sql`excluded.name`, tier_id: sql`excluded.tier_id`, tier_title: sql`excluded.tier_title`, amount_cents: sql`excluded.amount_cents`,
        }))
        .execute();
    }
    if (lastId === '') this.#logger.info(`history: the ${platform} history starts with ${current.size} supporters`);
    return lastId === '' ? [] : changes;
  }
}
