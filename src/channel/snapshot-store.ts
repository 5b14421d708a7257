import type { z } from 'zod';
import { removeTemporaryFiles } from '../lib/atomic-file.js';
import type { MembershipChange } from './membership.js';
import type { StatsSnapshot, Supporter, SupportersSnapshot, Tier } from './models.js';
import {
  readSnapshotFile,
  snapshotPath,
  statsSnapshotSchema,
  supportersSnapshotSchema,
  writeSnapshotFile,
} from './snapshot-file.js';
import type { UpstreamSource } from './upstream.js';

/**
 * The last good result of every upstream source, in memory and on disk. Readers never wait for an
 * upstream once a snapshot exists: a refresh that fails keeps the previous snapshot and marks it
 * stale. Only a source that has never been fetched (and has nothing on disk) waits for the upstream,
 * and all readers waiting at that moment share one fetch.
 */

export type SourceName = 'membership' | 'video' | 'stats';
export const SOURCE_NAMES: readonly SourceName[] = ['membership', 'video', 'stats'];

export interface SourceSnapshots {
  membership: SupportersSnapshot;
  video: SupportersSnapshot;
  stats: StatsSnapshot;
}

export interface Served<T> {
  data: T;
  /** True when the last refresh failed (or the snapshot on disk is older than one refresh interval). */
  stale: boolean;
}

export interface SourceHealth {
  fetchedAt: string | null;
  ageSeconds: number | null;
  stale: boolean;
  lastError: string | null;
}

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface SnapshotStoreOptions {
  sources: { [K in SourceName]: UpstreamSource<SourceSnapshots[K]> };
  /** Where snapshots are persisted; without it they live in memory only. */
  dataDir?: string;
  /** Interval between background refreshes; default 5 minutes, 0 turns the interval off. */
  refreshIntervalMs?: number;
  /** Retry-After given to callers when a source has no snapshot and its upstream fails; default 5. */
  retryAfterSeconds?: number;
  logger?: Logger;
}

/** No snapshot of `source` exists and its upstream could not be read. */
export class UpstreamUnavailableError extends Error {
  override readonly name = 'UpstreamUnavailableError';
  constructor(
    readonly source: SourceName,
    readonly retryAfterSeconds: number,
    cause: unknown,
  ) {
    super(`no ${source} data yet and the upstream is unavailable (${describeError(cause)})`, { cause });
  }
}

const DEFAULT_REFRESH_INTERVAL_MS = 5 * 60_000;
const DEFAULT_RETRY_AFTER_SECONDS = 5;

const FILE_SCHEMAS: { [K in SourceName]: z.ZodType<SourceSnapshots[K]> } = {
  membership: supportersSnapshotSchema,
  video: supportersSnapshotSchema,
  stats: statsSnapshotSchema,
};

interface SourceState<T> {
  snapshot: T | null;
  stale: boolean;
  lastError: string | null;
  /** The upstream fetch in progress; every concurrent reader and refresher awaits this one. */
  inflight: Promise<T> | null;
  /** Webhook changes applied while a fetch was in flight, replayed over its (possibly older) result. */
  changesDuringFetch: MembershipChange[] | null;
  /** Pending disk write; writes of one source are chained so the last snapshot is the one on disk. */
  writes: Promise<void>;
}

type States = { [K in SourceName]: SourceState<SourceSnapshots[K]> };

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function emptyState<T>(): SourceState<T> {
  return { snapshot: null, stale: false, lastError: null, inflight: null, changesDuringFetch: null, writes: Promise.resolve() };
}

function upsertById<T extends { id: string }>(list: readonly T[], items: readonly T[]): T[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  const updated = list.map((entry) => {
    const replacement = byId.get(entry.id);
    if (replacement === undefined) return entry;
    byId.delete(entry.id);
    return replacement;
  });
  return [...updated, ...byId.values()];
}

/** A new snapshot with one webhook change applied; the input snapshot is not modified. */
export function applyChangeToSnapshot(snapshot: SupportersSnapshot, change: MembershipChange): SupportersSnapshot {
  if (change.kind === 'remove') {
    return { ...snapshot, supporters: snapshot.supporters.filter((supporter) => supporter.id !== change.id) };
  }
  const supporters: Supporter[] = upsertById(snapshot.supporters, [change.supporter]);
  const tiers: Tier[] = upsertById(snapshot.tiers, change.tiers);
  return { ...snapshot, supporters, tiers };
}

export class SnapshotStore {
  readonly #sources: SnapshotStoreOptions['sources'];
  readonly #dataDir: string | undefined;
  readonly #refreshIntervalMs: number;
  readonly #retryAfterSeconds: number;
  readonly #logger: Logger;
  readonly #states: States = { membership: emptyState(), video: emptyState(), stats: emptyState() };
  readonly #listeners = new Set<(source: SourceName) => void>();
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SnapshotStoreOptions) {
    this.#sources = options.sources;
    this.#dataDir = options.dataDir;
    this.#refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS;
    this.#retryAfterSeconds = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    this.#logger = options.logger ?? console;
  }

  /**
   * Loads the snapshots persisted by a previous run (so they are served at once), then refreshes
   * every source in the background and on the interval. Never waits for an upstream.
   */
  async start(): Promise<void> {
    await Promise.all(SOURCE_NAMES.map((source) => this.#load(source)));
    this.#refreshAllInBackground();
    if (this.#refreshIntervalMs > 0) {
      this.#timer = setInterval(() => this.#refreshAllInBackground(), this.#refreshIntervalMs);
      this.#timer.unref();
    }
  }

  /**
   * Stops the interval, aborts the fetches in flight and waits until they have ended (a fetch that
   * completed anyway is persisted) and every pending write is on disk.
   */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#abort.abort(new Error('snapshot store closed'));
    await Promise.all(SOURCE_NAMES.map((source) => this.#states[source].inflight?.catch(() => undefined) ?? Promise.resolve()));
    await Promise.all(SOURCE_NAMES.map((source) => this.#states[source].writes));
  }

  async read<K extends SourceName>(source: K): Promise<Served<SourceSnapshots[K]>> {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    if (state.snapshot !== null) return { data: state.snapshot, stale: state.stale };
    try {
      return { data: await this.#fetch(source), stale: false };
    } catch (error) {
      if (state.snapshot !== null) return { data: state.snapshot, stale: state.stale };
      throw new UpstreamUnavailableError(source, this.#retryAfterSeconds, error);
    }
  }

  /**
   * Fetches `source` now (joining a fetch already in flight) and waits until the result is on disk.
   * Rejects with the upstream's error when the fetch fails; the previous snapshot is then kept, stale.
   */
  async refresh(source: SourceName): Promise<void> {
    await this.#fetch(source);
    await this.#states[source].writes;
  }

  /**
   * Applies a membership webhook change to the snapshot in place and persists it. With no snapshot to
   * apply it to, a full fetch is made instead (its result already contains the change); when that
   * fails, UpstreamUnavailableError (the platform retries webhooks that were not accepted).
   */
  async applyMembershipChange(change: MembershipChange): Promise<void> {
    const state = this.#states.membership;
    if (state.snapshot === null) {
      try {
        await this.refresh('membership');
      } catch (error) {
        throw new UpstreamUnavailableError('membership', this.#retryAfterSeconds, error);
      }
      return;
    }
    state.snapshot = applyChangeToSnapshot(state.snapshot, change);
    state.changesDuringFetch?.push(change);
    this.#persist('membership', state.snapshot);
    this.#emit('membership');
    await state.writes;
  }

  /** The snapshot of `source` as it is now, without fetching; null before the first one exists. */
  current<K extends SourceName>(source: K): Served<SourceSnapshots[K]> | null {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    return state.snapshot === null ? null : { data: state.snapshot, stale: state.stale };
  }

  /** Calls `listener` whenever a snapshot changes: new data (refresh or webhook) or turning stale. */
  onChange(listener: (source: SourceName) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  health(): Record<SourceName, SourceHealth> {
    const now = Date.now();
    const entry = (source: SourceName): SourceHealth => {
      const { snapshot, stale, lastError } = this.#states[source];
      const fetchedAt = snapshot?.fetchedAt ?? null;
      const ageSeconds = fetchedAt === null ? null : Math.max(0, Math.round((now - Date.parse(fetchedAt)) / 1000));
      return { fetchedAt, ageSeconds, stale, lastError };
    };
    return { membership: entry('membership'), video: entry('video'), stats: entry('stats') };
  }

  async #load<K extends SourceName>(source: K): Promise<void> {
    if (this.#dataDir === undefined) return;
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    const path = snapshotPath(this.#dataDir, source);
    try {
      await removeTemporaryFiles(path);
      const snapshot = await readSnapshotFile(path, FILE_SCHEMAS[source]);
      if (snapshot === null || state.snapshot !== null) return;
      state.snapshot = snapshot;
      // A snapshot older than one refresh interval is reported stale until a refresh succeeds.
      state.stale = this.#refreshIntervalMs > 0 && Date.now() - Date.parse(snapshot.fetchedAt) > this.#refreshIntervalMs;
    } catch (error) {
      this.#logger.warn(`snapshot store: ignoring the stored ${source} snapshot: ${describeError(error)}`);
    }
  }

  #refreshAllInBackground(): void {
    for (const source of SOURCE_NAMES) {
      // Failures are recorded in the source's state (lastError, stale) and logged by #fetch.
      this.#fetch(source).catch(() => undefined);
    }
  }

  #fetch<K extends SourceName>(source: K): Promise<SourceSnapshots[K]> {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    if (state.inflight !== null) return state.inflight;
    const upstream: UpstreamSource<SourceSnapshots[K]> = this.#sources[source];
    state.changesDuringFetch = source === 'membership' ? [] : null;
    const run = async (): Promise<SourceSnapshots[K]> => {
      // Yield once so that `state.inflight` is set before any outcome (even a synchronous throw) lands.
      await Promise.resolve();
      try {
        let snapshot = await upstream.fetch(this.#abort.signal);
        for (const change of state.changesDuringFetch ?? []) {
          snapshot = applyChangeToSnapshot(snapshot as SupportersSnapshot, change) as SourceSnapshots[K];
        }
        state.snapshot = snapshot;
        state.stale = false;
        state.lastError = null;
        this.#persist(source, snapshot);
        this.#emit(source);
        return snapshot;
      } catch (error) {
        // A fetch cut short by close() says nothing about the upstream.
        if (this.#abort.signal.aborted) throw error;
        state.lastError = describeError(error);
        this.#logger.warn(`snapshot store: ${source} refresh failed: ${state.lastError}`);
        if (state.snapshot !== null && !state.stale) {
          state.stale = true;
          this.#emit(source);
        }
        throw error;
      } finally {
        state.inflight = null;
        state.changesDuringFetch = null;
      }
    };
    state.inflight = run();
    return state.inflight;
  }

  #persist(source: SourceName, snapshot: SourceSnapshots[SourceName]): void {
    if (this.#dataDir === undefined) return;
    const path = snapshotPath(this.#dataDir, source);
    const state = this.#states[source];
    state.writes = state.writes
      .then(() => writeSnapshotFile(path, snapshot))
      .catch((error: unknown) => {
        // Serving continues from memory; the next successful write brings the disk up to date.
        this.#logger.error(`snapshot store: could not persist the ${source} snapshot: ${describeError(error)}`);
      });
  }

  #emit(source: SourceName): void {
    for (const listener of this.#listeners) {
      try {
        listener(source);
      } catch (error) {
        this.#logger.error(`snapshot store: a change listener failed: ${describeError(error)}`);
      }
    }
  }
}
