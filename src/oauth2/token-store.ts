import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from './atomic-file.js';
import { isPlainObject } from './snaky-hash.js';
import type { TokenHash } from './types.js';

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
 * file in the same directory, flushes it, then renames it over the file: rename is atomic within a
 * file system (POSIX rename(2)), so a crash at any point leaves either the previous token or the new
 * one, never a torn file.
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
    const directory = dirname(this.path);
    const temporaryName = new RegExp(`^${escapeRegExp(basename(this.path))}\\.(\\d+)\\.[0-9a-f]{12}\\.tmp$`);
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const saved = await modifiedMs(this.path);
    let newest: { path: string; text: string; modifiedMs: number } | undefined;
    for (const name of names) {
      const writer = temporaryName.exec(name)?.[1];
      if (writer === undefined || (Number(writer) !== process.pid && isRunning(Number(writer)))) continue;
      const path = join(directory, name);
      const modified = await modifiedMs(path);
      if (modified <= (newest?.modifiedMs ?? saved)) continue;
      const text = await readFileIfExists(path);
      if (text !== null && isToken(parseJson(text))) newest = { path, text, modifiedMs: modified };
    }
    if (newest === undefined) return;
    await writeFileAtomic(this.path, newest.text, { mode: 0o600, renameFile: (from, to) => this.#operations.rename(from, to) });
    await rm(newest.path, { force: true });
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Modification time in ms; 0 when the file does not exist. */
async function modifiedMs(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
