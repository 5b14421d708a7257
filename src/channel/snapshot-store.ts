import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { removeTemporaryFiles } from '../lib/atomic-file.js';
import type { MembershipChange } from './membership.js';
import type { RefreshLease, SharedSnapshots, StoredSnapshotText } from './shared-snapshots.js';
import { SOURCE_NAMES, type SourceName } from './source-names.js';
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
 *
 * Shared between processes (`shared` and `lease` given, REDIS_URL): the shared snapshot is the truth
 * and memory a copy of it, so reads still never leave the process. One process at a time refreshes a
 * source (the lease); every write (refresh, webhook) is a compare-and-set on the shared version, and
 * the others are told and read the new version once. When the shared store is unreachable the store
 * keeps serving what it has, as during an upstream outage, and catches up when it returns.
 */

export { SOURCE_NAMES, type SourceName } from './source-names.js';

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

/** A change this process made: the snapshot before (null for the first one) and after. */
export interface SnapshotWrite {
  previous: SourceSnapshots[SourceName] | null;
  current: SourceSnapshots[SourceName];
}

/** What changed of a source's snapshot since listeners were last told (or since it was loaded at start). */
export interface SnapshotChange {
  /**
   * Its data other than `fetchedAt`: supporters, tiers, the subscriber count (always true for a
   * source's first snapshot). False for a refresh that brought the same data again.
   */
  content: boolean;
  /** Whether it is stale. */
  staleness: boolean;
}

/**
 * Told the source whose snapshot changed; `written` when this process wrote the change (refresh or
 * webhook here), absent when it came from another process or only the staleness changed; `change`
 * says what changed. A refresh that brings the same data still calls it: `fetchedAt` is served.
 */
export type SnapshotChangeListener = (source: SourceName, written: SnapshotWrite | undefined, change: SnapshotChange) => void;

export interface SourceHealth {
  fetchedAt: string | null;
  ageSeconds: number | null;
  stale: boolean;
  lastError: string | null;
}

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface SnapshotStoreOptions {
  sources: { [K in SourceName]: UpstreamSource<SourceSnapshots[K]> };
  /** Where snapshots are persisted; without it (and without `shared`) they live in memory only. */
  dataDir?: string;
  /** Snapshots shared with other processes; when given, `dataDir` is not used for snapshots. */
  shared?: SharedSnapshots;
  /** Who refreshes a source this interval; default: this process, always. */
  lease?: RefreshLease;
  /** Interval between background refreshes; default 5 minutes, 0 turns the interval off. */
  refreshIntervalMs?: number;
  /** Retry-After given to callers when a source has no snapshot and its upstream fails; default 5. */
  retryAfterSeconds?: number;
  logger?: Logger;
}

/** No snapshot of `source` exists and its upstream could not be read (or a webhook could not be stored). */
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

/** A webhook change could not be written to the shared snapshots (unreachable); the platform retries it. */
export class SharedStateUnavailableError extends UpstreamUnavailableError {
  constructor(source: SourceName, retryAfterSeconds: number, cause: unknown) {
    super(source, retryAfterSeconds, cause);
    this.message = `the shared ${source} snapshot cannot be written now (${describeError(cause)})`;
  }
}

const DEFAULT_REFRESH_INTERVAL_MS = 5 * 60_000;
const DEFAULT_RETRY_AFTER_SECONDS = 5;
/**
 * The refresh lease lasts this share of the interval: long enough that replicas whose timers are
 * offset skip the interval someone else refreshed, short enough to be free again at the next tick.
 */
const LEASE_SHARE_OF_INTERVAL = 0.8;
/** The lease of the start-up refresh when there is no interval. */
const START_LEASE_MS = 30_000;

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
  /** Shared mode: the shared version the snapshot in memory is (0: none). */
  version: number;
  /** Shared mode: another process's snapshot was taken while a fetch was in flight (its result is then older). */
  changedElsewhereDuringFetch: boolean;
  /** Shared mode: reads of the shared snapshot, one after another. */
  pulls: Promise<void>;
  /** The snapshot and staleness listeners were last told of (or loaded at start): what a change is measured against. */
  told: { snapshot: T | null; stale: boolean };
}

type States = { [K in SourceName]: SourceState<SourceSnapshots[K]> };

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function emptyState<T>(): SourceState<T> {
  return {
    snapshot: null, stale: false, lastError: null, inflight: null, changesDuringFetch: null, writes: Promise.resolve(),
    version: 0, changedElsewhereDuringFetch: false, pulls: Promise.resolve(), told: { snapshot: null, stale: false },
  };
}

/** Whether two snapshots of a source hold the same data, whenever each was fetched. */
function sameContent<T extends { fetchedAt: string }>(a: T, b: T): boolean {
  return a === b || isDeepStrictEqual({ ...a, fetchedAt: b.fetchedAt }, b);
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
  readonly #listeners = new Set<SnapshotChangeListener>();
  readonly #abort = new AbortController();
  readonly #shared: SharedSnapshots | undefined;
  readonly #lease: RefreshLease | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopWatching: (() => void) | undefined;

  constructor(options: SnapshotStoreOptions) {
    this.#sources = options.sources;
    this.#dataDir = options.dataDir;
    this.#refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS;
    this.#retryAfterSeconds = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    this.#logger = options.logger ?? console;
    this.#shared = options.shared;
    this.#lease = options.lease;
  }

  /**
   * Loads the snapshots persisted by a previous run (so they are served at once), then refreshes
   * every source in the background and on the interval. Never waits for an upstream.
   */
  async start(): Promise<void> {
    if (this.#shared !== undefined) {
      this.#stopWatching = this.#shared.onRemoteChange((source) => void this.#pull(source));
      await Promise.all(SOURCE_NAMES.map((source) => this.#pull(source)));
    } else {
      await Promise.all(SOURCE_NAMES.map((source) => this.#load(source)));
    }
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
    this.#stopWatching?.();
    this.#abort.abort(new Error('snapshot store closed'));
    await Promise.all(SOURCE_NAMES.map((source) => this.#states[source].inflight?.catch(() => undefined) ?? Promise.resolve()));
    await Promise.all(SOURCE_NAMES.map((source) => Promise.all([this.#states[source].writes, this.#states[source].pulls])));
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
    if (this.#shared !== undefined) {
      // Applied to the shared snapshot (newer than memory when another replica's change is on its way).
      const onto = state.snapshot;
      try {
        await this.#writeShared('membership', (stored) => applyChangeToSnapshot(stored ?? onto, change));
      } catch (error) {
        throw new SharedStateUnavailableError('membership', this.#retryAfterSeconds, error);
      }
      state.changesDuringFetch?.push(change);
      return;
    }
    const previous = state.snapshot;
    state.snapshot = applyChangeToSnapshot(previous, change);
    state.changesDuringFetch?.push(change);
    this.#persist('membership', state.snapshot);
    this.#emit('membership', { previous, current: state.snapshot });
    await state.writes;
  }

  /** The snapshot of `source` as it is now, without fetching; null before the first one exists. */
  current<K extends SourceName>(source: K): Served<SourceSnapshots[K]> | null {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    return state.snapshot === null ? null : { data: state.snapshot, stale: state.stale };
  }

  /** Calls `listener` whenever a snapshot changes: new data (refresh, webhook, another process) or turning stale. */
  onChange(listener: SnapshotChangeListener): () => void {
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
      state.stale = this.#olderThanInterval(snapshot);
      state.told = { snapshot, stale: state.stale };
    } catch (error) {
      this.#logger.warn(`snapshot store: ignoring the stored ${source} snapshot: ${describeError(error)}`);
    }
  }

  /** A snapshot older than one refresh interval is reported stale until a refresh succeeds. */
  #olderThanInterval(snapshot: SourceSnapshots[SourceName]): boolean {
    return this.#refreshIntervalMs > 0 && Date.now() - Date.parse(snapshot.fetchedAt) > this.#refreshIntervalMs;
  }

  #refreshAllInBackground(): void {
    for (const source of SOURCE_NAMES) void this.#refreshIfLeased(source);
  }

  /** Refreshes `source` when this process holds its lease; otherwise checks the shared version (a lost notification). */
  async #refreshIfLeased(source: SourceName): Promise<void> {
    if (this.#lease !== undefined) {
      const leaseMs = this.#refreshIntervalMs > 0 ? Math.max(1, Math.floor(this.#refreshIntervalMs * LEASE_SHARE_OF_INTERVAL)) : START_LEASE_MS;
      let held: boolean;
      try {
        held = await this.#lease.acquire(source, leaseMs);
      } catch (error) {
        // The snapshot in memory stays served; its age (health) tells how old it gets.
        this.#logger.warn(`snapshot store: ${source} refresh skipped, the refresh lease is unreachable: ${describeError(error)}`);
        return;
      }
      if (!held) {
        await this.#pull(source);
        return;
      }
    }
    // Failures are recorded in the source's state (lastError, stale) and logged by #fetch.
    await this.#fetch(source).catch(() => undefined);
  }

  /**
   * Reads the shared snapshot of `source` and takes it when its version differs from the one in memory.
   * When the shared store has none (it was emptied: a restart without persistence) and memory has one,
   * memory seeds it. Unreachable: keeps what is in memory.
   */
  #pull(source: SourceName): Promise<void> {
    const shared = this.#shared;
    if (shared === undefined) return Promise.resolve();
    const state = this.#states[source];
    const run = async (): Promise<void> => {
      let stored: StoredSnapshotText | null;
      try {
        stored = await shared.load(source);
      } catch (error) {
        this.#logger.warn(`snapshot store: the shared ${source} snapshot is unreachable, serving the one in memory: ${describeError(error)}`);
        return;
      }
      if (stored === null) {
        const mine = state.snapshot;
        if (mine === null) return;
        await this.#writeShared(source, (existing) => (existing === null ? mine : null)).catch((error: unknown) => {
          this.#logger.warn(`snapshot store: could not seed the shared ${source} snapshot: ${describeError(error)}`);
        });
        return;
      }
      if (stored.version === state.version) return;
      const snapshot = this.#parseShared(source, stored.json);
      if (snapshot === null) return;
      state.snapshot = snapshot;
      state.version = stored.version;
      state.stale = this.#olderThanInterval(snapshot);
      state.lastError = null;
      if (state.inflight !== null) state.changedElsewhereDuringFetch = true;
      this.#emit(source);
    };
    state.pulls = state.pulls.then(run);
    return state.pulls;
  }

  /**
   * Writes `next(stored)` to the shared snapshots (compare-and-set; `next` runs again when another
   * process wrote in between), then takes it in memory and tells the listeners. Resolves false when
   * `next` returned null (nothing written); rejects when the shared store is unreachable.
   */
  async #writeShared<K extends SourceName>(source: K, next: (stored: SourceSnapshots[K] | null, storedVersion: number) => SourceSnapshots[K] | null): Promise<boolean> {
    const shared = this.#shared as SharedSnapshots;
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    const computed: { previous: SourceSnapshots[K] | null; current: SourceSnapshots[K] | null } = { previous: null, current: null };
    const write = await shared.update(source, (stored) => {
      const parsed = stored === null ? null : this.#parseShared(source, stored.json);
      // With nothing shared (Redis emptied), the write replaces what this process has in memory.
      computed.previous = parsed ?? state.snapshot;
      computed.current = next(parsed, stored?.version ?? 0);
      return computed.current === null ? null : JSON.stringify(computed.current);
    });
    const { previous, current } = computed;
    if (write === null || current === null) return false;
    // A newer version may have been taken meanwhile (a notification overtook this answer).
    if (write.version < state.version) return true;
    state.snapshot = current;
    state.version = write.version;
    this.#emit(source, { previous, current });
    return true;
  }

  /** A snapshot read from the shared store, validated; null (and a warning) when it is unusable. */
  #parseShared<K extends SourceName>(source: K, json: string): SourceSnapshots[K] | null {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      this.#logger.warn(`snapshot store: ignoring the shared ${source} snapshot: not valid JSON`);
      return null;
    }
    const parsed = FILE_SCHEMAS[source].safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    this.#logger.warn(`snapshot store: ignoring the shared ${source} snapshot: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected content'}`);
    return null;
  }

  #fetch<K extends SourceName>(source: K): Promise<SourceSnapshots[K]> {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    if (state.inflight !== null) return state.inflight;
    const upstream: UpstreamSource<SourceSnapshots[K]> = this.#sources[source];
    state.changesDuringFetch = source === 'membership' ? [] : null;
    state.changedElsewhereDuringFetch = false;
    const run = async (): Promise<SourceSnapshots[K]> => {
      // Yield once so that `state.inflight` is set before any outcome (even a synchronous throw) lands.
      await Promise.resolve();
      try {
        let snapshot = await upstream.fetch(this.#abort.signal);
        for (const change of state.changesDuringFetch ?? []) {
          snapshot = applyChangeToSnapshot(snapshot as SupportersSnapshot, change) as SourceSnapshots[K];
        }
        if (this.#shared !== undefined) return await this.#commitFetched(source, snapshot);
        const previous = state.snapshot;
        state.snapshot = snapshot;
        state.stale = false;
        state.lastError = null;
        this.#persist(source, snapshot);
        this.#emit(source, { previous, current: snapshot });
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

  /**
   * Shared mode: stores a fetched snapshot unless another process wrote the source while it was being
   * fetched (a webhook there: the fetch may predate it, so the shared snapshot is kept and the next
   * refresh brings the rest). An empty shared store (Redis restarted without persistence) takes it.
   */
  async #commitFetched<K extends SourceName>(source: K, fetched: SourceSnapshots[K]): Promise<SourceSnapshots[K]> {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    state.stale = false;
    state.lastError = null;
    let written: boolean;
    try {
      written = await this.#writeShared(source, (_stored, storedVersion) =>
        (storedVersion === state.version || storedVersion === 0) && !state.changedElsewhereDuringFetch ? fetched : null);
    } catch (error) {
      if (state.snapshot !== null) throw error;
      // Nothing to serve yet and the shared store unreachable: serve this fetch from memory (the shared
      // snapshot replaces it, or it seeds the shared store, when the connection comes back).
      this.#logger.warn(`snapshot store: serving the ${source} snapshot unshared, the shared store is unreachable: ${describeError(error)}`);
      state.snapshot = fetched;
      this.#emit(source, { previous: null, current: fetched });
      return fetched;
    }
    if (!written) await this.#pull(source);
    return state.snapshot ?? fetched;
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

  #emit<K extends SourceName>(source: K, written?: SnapshotWrite): void {
    const state: SourceState<SourceSnapshots[K]> = this.#states[source];
    const { told } = state;
    const change: SnapshotChange = {
      content: state.snapshot !== null && (told.snapshot === null || !sameContent(told.snapshot, state.snapshot)),
      staleness: told.stale !== state.stale,
    };
    state.told = { snapshot: state.snapshot, stale: state.stale };
    for (const listener of this.#listeners) {
      try {
        listener(source, written, change);
      } catch (error) {
        this.#logger.error(`snapshot store: a change listener failed: ${describeError(error)}`);
      }
    }
  }
}
