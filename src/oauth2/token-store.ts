import { rename, rm } from 'node:fs/promises';
import { readFileIfExists, removeTemporaryFiles, writeFileAtomic } from '../lib/atomic-file.js';
import { isPlainObject } from './snaky-hash.js';
import type { TokenHash } from './types.js';

/** Where a TokenKeeper persists the token it holds. */
export interface TokenStore {
  load(): Promise<TokenHash | null>;
  save(token: TokenHash): Promise<void>;
  /** Forgets the token (after revocation); nothing to forget is not an error. */
  clear(): Promise<void>;
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
 * (src/lib/atomic-file.ts): a crash at any point leaves either the previous token or the new one,
 * never a torn file. Loading first removes the temporary files an interrupted save left behind.
 */
export class FileTokenStore implements TokenStore {
  readonly path: string;
  readonly #operations: FileOperations;

  constructor(path: string, operations: FileOperations = { rename }) {
    this.path = path;
    this.#operations = operations;
  }

  async load(): Promise<TokenHash | null> {
    await removeTemporaryFiles(this.path);
    const text = await readFileIfExists(this.path);
    if (text === null) return null;
    const value: unknown = JSON.parse(text);
    if (!isPlainObject(value) || typeof value.access_token !== 'string') {
      throw new TypeError(`${this.path} does not hold a token (an object with access_token)`);
    }
    return value as TokenHash;
  }

  save(token: TokenHash): Promise<void> {
    return writeFileAtomic(this.path, JSON.stringify(token), { mode: 0o600, renameFile: (from, to) => this.#operations.rename(from, to) });
  }

  clear(): Promise<void> {
    return rm(this.path, { force: true });
  }
}
