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

/**
 * Where a TokenKeeper persists the token it holds. The library keeps it in memory
 * (MemoryTokenStore); an application gives a store of its own to keep it durably (a file, a database,
 * Redis), written before the new token is relied on.
 */
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
