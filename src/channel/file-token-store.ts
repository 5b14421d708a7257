/**
 * The membership token in a file under DATA_DIR (the store a TokenKeeper saves to when REDIS_URL is
 * not set; src/redis/redis-token-store.ts is the other). A save writes a temporary file in the same
 * directory, flushes it, renames it over the file and flushes the directory (src/lib/atomic-file.ts):
 * a crash at any point leaves either the previous token or the new one, never a torn file.
 */
import { rename, rm } from 'node:fs/promises';
import type { TokenHash, TokenStore } from '@channel-graph/oauth2';
import { findLeftoverFiles, modifiedAt, readFileIfExists, removeTemporaryFiles, writeFileAtomic } from '../lib/atomic-file.js';

/** Steps of a file save, replaceable in tests to simulate a crash between write and rename. */
export interface FileOperations {
  rename(from: string, to: string): Promise<void>;
}

/**
 * Keeps the token in a JSON file readable by its owner only (mode 0600). `recover()` completes a save
 * a crash interrupted and removes the leftovers.
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
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { access_token?: unknown }).access_token === 'string';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
