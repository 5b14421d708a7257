import { rename, rm } from 'node:fs/promises';
import { findLeftoverFiles, modifiedAt, readFileIfExists, removeTemporaryFiles, writeFileAtomic } from './atomic-file.js';
import { isPlainObject } from './snaky-hash.js';
import type { TokenHash } from './types.js';

/**
 * Key a TokenKeeper adds to every token it saves: a SHA-256 fingerprint of the `initial` token the
 * saved one descends from (see TokenKeeper). A shared store compares it to tell a new seed from an
 * old chain.
 */
export const SEED_FINGERPRINT_KEY = 'seed_fingerprint';

/** What `TokenStore.refreshShared` hands back. */
export interface SharedRefresh {
  /** The token to use from now on: the one `rotate` returned, or one another process had already stored. */
  token: TokenHash;
  /** false: the store could not be written (it is unreachable); the token is valid and held in memory only. */
  saved: boolean;
}

/** Where a TokenKeeper persists the token it holds. */
export interface TokenStore {
  load(): Promise<TokenHash | null>;
  save(token: TokenHash): Promise<void>;
  /** Forgets the token (after revocation); nothing to forget is not an error. */
  clear(): Promise<void>;
  /**
   * Optional: completes a save that a crash interrupted, so that `load()` returns the newest token.
   * A TokenKeeper calls it once, before its first `load()`.
   */
  recover?(): Promise<void>;
  /**
   * Optional, for a store several processes share (replicas): refreshes so that one process at a
   * time calls the token endpoint. The store takes its cross-process lock and reads the stored token
   * under it: when another process has already rotated `held`, that token is returned and `rotate`
   * is not called; otherwise `rotate(latest)` gets the newest stored token (never a retired one) and
   * its result is saved only while this process still holds the lock and the stored token has not
   * moved (fencing). A process that does not get the lock waits for the holder's token. Without
   * the lock (the store is unreachable) it rejects: nothing is refreshed. A TokenKeeper uses this
   * instead of refreshing itself and calling `save()`.
   */
  refreshShared?(held: TokenHash, rotate: (latest: TokenHash) => Promise<TokenHash>): Promise<SharedRefresh>;
  /**
   * Optional, for a shared store: stores a token from a login whatever is stored, as the newest one
   * (a process holding an older token can no longer write it back). Without it `save()` is used.
   */
  replace?(token: TokenHash): Promise<void>;
  /**
   * Optional, for a shared store: runs `work` while no other process refreshes the token (a login
   * or a revocation: a refresh in flight elsewhere finishes first). Without it `work` just runs.
   */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Optional, for a shared store: `listener` runs when another process has changed the stored token
   * (a refresh, a login, a revocation); a TokenKeeper then reads it again. Returns the unsubscribe.
   */
  onChange?(listener: () => void): () => void;
}

/** Keeps the token in process memory only. */
export class MemoryTokenStore implements TokenStore {
  #token: TokenHash | null = null;

  load(): Promise<TokenHash | null> {
    return Promise.resolve(this.#token === null ? null : { ...this.#token });
  }

  save(token: TokenHash): Promise<void> {
    this.#token = { ...token };
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.#token = null;
    return Promise.resolve();
  }
}

/** Steps of a file save, replaceable in tests to simulate a crash between write and rename. */
export interface FileOperations {
  rename(from: string, to: string): Promise<void>;
}

/**
 * Keeps the token in a JSON file readable by its owner only (mode 0600). A save writes a temporary
 * file in the same directory, flushes it, renames it over the file and flushes the directory
 * (atomic-file.ts): a crash at any point leaves either the previous token or the new one,
 * never a torn file. `recover()` completes a save a crash interrupted and removes the leftovers.
 */
export class FileTokenStore implements TokenStore {
  readonly path: string;
  readonly #operations: FileOperations;

  constructor(path: string, operations: FileOperations = { rename }) {
    this.path = path;
    this.#operations = operations;
  }

  async load(): Promise<TokenHash | null> {
    const text = await readFileIfExists(this.path);
    if (text === null) return null;
    const value: unknown = JSON.parse(text);
    if (!isToken(value)) throw new TypeError(`${this.path} does not hold a token (an object with access_token)`);
    return value;
  }

  /**
   * A crash (`kill -9`, power cut) after a save flushed its temporary file but before the rename
   * leaves the newest token in that file only: the authorization server has already retired the
   * refresh token in `path`. When such a file holds a whole token and is newer than `path`, it is
   * saved as `path` and removed. A torn temporary file (the crash came during the write) does not
   * parse and is ignored, as is one whose writer is still running (another process sharing the
   * directory, in the middle of its save).
   */
  async recover(): Promise<void> {
    const saved = await modifiedAt(this.path);
    let newest: { path: string; text: string; modifiedMs: number } | undefined;
    for (const leftover of await findLeftoverFiles(this.path)) {
      if (leftover.modifiedMs <= (newest?.modifiedMs ?? saved)) continue;
      const text = await readFileIfExists(leftover.path);
      if (text !== null && isToken(parseJson(text))) newest = { ...leftover, text };
    }
    if (newest !== undefined) {
      await writeFileAtomic(this.path, newest.text, { mode: 0o600, renameFile: (from, to) => this.#operations.rename(from, to) });
      await rm(newest.path, { force: true });
    }
    // The older leftovers (and torn ones) hold nothing newer than the file: they must not pile up.
    await removeTemporaryFiles(this.path);
  }

  save(token: TokenHash): Promise<void> {
    return writeFileAtomic(this.path, JSON.stringify(token), { mode: 0o600, renameFile: (from, to) => this.#operations.rename(from, to) });
  }

  clear(): Promise<void> {
    return rm(this.path, { force: true });
  }
}

function isToken(value: unknown): value is TokenHash {
  return isPlainObject(value) && typeof value.access_token === 'string';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
