import type { SourceName } from './source-names.js';

/**
 * The seams through which several processes (replicas) share their snapshots. The snapshot store
 * knows these interfaces, never what implements them (src/shared-state.ts chooses: none for one
 * process with files under DATA_DIR, Redis for several).
 *
 * Snapshots cross these seams as JSON text with a version: the store serialises and validates them
 * (what comes back from another process is input like any other).
 */

/** One source's snapshot as stored, and the version it was stored with. */
export interface StoredSnapshotText {
  /** Increases with every write of the source, across restarts of the shared store too. */
  version: number;
  json: string;
}

export interface SharedSnapshotWrite {
  /** What `compute` was given: the snapshot stored before the write. */
  previous: StoredSnapshotText | null;
  /** The version the write was stored with. */
  version: number;
}

export interface SharedSnapshots {
  /** The stored snapshot of `source`; null when there is none. Rejects when the shared store is unreachable. */
  load(source: SourceName): Promise<StoredSnapshotText | null>;
  /**
   * Replaces the stored snapshot of `source` with `compute(stored)`, atomically against every other
   * writer: when another process writes in between, `compute` runs again over the newer snapshot.
   * `compute` returning null writes nothing (the call then resolves null). Every other process is
   * told (see onRemoteChange). Rejects when the shared store is unreachable.
   */
  update(source: SourceName, compute: (stored: StoredSnapshotText | null) => string | null): Promise<SharedSnapshotWrite | null>;
  /**
   * Calls `listener` when another process may have stored a new snapshot of `source`: it wrote one,
   * or the connection to the shared store came back (anything may have changed meanwhile).
   */
  onRemoteChange(listener: (source: SourceName) => void): () => void;
}

/** One process at a time refreshes a source from its upstream. */
export interface RefreshLease {
  /**
   * True when this process now holds the lease of `source` for `ttlMs` (nobody else held it); false
   * when another one does. Rejects when the lease cannot be asked for (the shared store is unreachable).
   */
  acquire(source: SourceName, ttlMs: number): Promise<boolean>;
}
