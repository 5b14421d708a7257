import { createHash } from 'node:crypto';
import { AccessToken } from './access-token.js';
import type { OAuth2Client, RequestOptions } from './client.js';
import type { OAuth2Response } from './response.js';
import type { TokenStore } from './token-store.js';
import type { TokenHash, Verb } from './types.js';

export interface TokenKeeperOptions {
  /** The token to start from (e.g. from configuration) when the store holds none descending from it. */
  initial?: TokenHash;
  store?: TokenStore;
  /** Refresh this many milliseconds before expiry. Default 60 000. */
  refreshLeewayMs?: number;
}

/** Stored next to the token: which `initial` token the stored one descends from. */
const SEED_KEY = 'seed_fingerprint';

/**
 * Holds one token for a client and keeps it usable: refreshes it before expiry and once after a
 * 401, shares one token-endpoint call among all concurrent callers, and saves every rotated token
 * to the store.
 *
 * Seed rule: a token saved by a previous run wins over `initial` only while it descends from the
 * same `initial` — the store keeps a SHA-256 fingerprint of the initial refresh token (or access
 * token when there is none) as `seed_fingerprint`. When the operator configures a new initial token,
 * its fingerprint differs and the new token wins.
 */
export class TokenKeeper {
  readonly client: OAuth2Client;
  readonly #store: TokenStore | undefined;
  readonly #initial: TokenHash | undefined;
  readonly #leewayMs: number;
  #current: Promise<AccessToken> | undefined;
  #refreshing: Promise<AccessToken> | undefined;
  #seed: string | undefined;

  constructor(client: OAuth2Client, options: TokenKeeperOptions = {}) {
    this.client = client;
    this.#store = options.store;
    this.#initial = options.initial;
    this.#leewayMs = options.refreshLeewayMs ?? 60_000;
    this.#seed = options.initial === undefined ? undefined : seedFingerprint(options.initial);
  }

  /** A usable token: refreshed first when expired or within the leeway (concurrent callers share one refresh). */
  async token(): Promise<AccessToken> {
    const current = await this.current();
    if (!current.expired(Date.now() + this.#leewayMs) || current.refreshToken === undefined) return current;
    return this.refresh();
  }

  /** The token held now (loaded from the store or `initial` on first use), without refreshing it. */
  current(): Promise<AccessToken> {
    return (this.#current ??= this.load());
  }

  /**
   * Holds `token` from now on and saves it to the store with this keeper's seed fingerprint, so a
   * later keeper with the same `initial` resumes from it (a login command obtains a token this way).
   * A failed save rejects: the caller has no other copy.
   */
  async replace(token: AccessToken): Promise<void> {
    if (this.#store !== undefined) await this.#store.save(this.storedHash(token));
    this.#current = Promise.resolve(token);
  }

  /** Refreshes now. N concurrent calls → one token-endpoint request; the rotated token is saved to the store. */
  refresh(): Promise<AccessToken> {
    this.#refreshing ??= this.rotate().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** A resource request with the kept token; on 401 the token is refreshed once (coalesced) and the request retried once. */
  async request(verb: Verb, pathOrUrl: string, options: RequestOptions = {}): Promise<OAuth2Response> {
    const token = await this.token();
    const response = await token.request(verb, pathOrUrl, { ...options, raiseErrors: false });
    if (response.status !== 401 || token.refreshToken === undefined) return this.settle(response, options);
    // Join a refresh in flight; else refresh only if no other caller has replaced the rejected token yet.
    const refreshed = this.#refreshing ?? ((await this.#current) === token ? this.refresh() : this.token());
    return this.settle(await (await refreshed).request(verb, pathOrUrl, { ...options, raiseErrors: false }), options);
  }

  private settle(response: OAuth2Response, options: RequestOptions): OAuth2Response {
    if (response.error !== undefined && (options.raiseErrors ?? this.client.options.raiseErrors)) throw response.error;
    return response;
  }

  private async rotate(): Promise<AccessToken> {
    const current = await this.current();
    const next = await current.refresh();
    this.#current = Promise.resolve(next);
    if (this.#store !== undefined) {
      try {
        await this.#store.save(this.storedHash(next));
      } catch (error) {
        // The new token works and is held in memory; the next rotation saves again.
        this.client.logger.warn(`TokenKeeper: saving the refreshed token failed: ${(error as Error).message}`);
      }
    }
    return next;
  }

  private storedHash(token: AccessToken): TokenHash {
    const hash: TokenHash = token.toHash();
    if (this.#seed !== undefined) hash[SEED_KEY] = this.#seed;
    return hash;
  }

  private async load(): Promise<AccessToken> {
    const stored = await this.#store?.load();
    if (stored != null && (this.#initial === undefined || stored[SEED_KEY] === this.#seed)) {
      const { [SEED_KEY]: seed, ...token } = stored;
      if (typeof seed === 'string') this.#seed = seed;
      return AccessToken.fromHash(this.client, token);
    }
    if (this.#initial === undefined) throw new TypeError('TokenKeeper has no token: give `initial` or a store holding one');
    return AccessToken.fromHash(this.client, this.#initial);
  }
}

function seedFingerprint(initial: TokenHash): string {
  const seed = initial.refresh_token ?? initial.access_token;
  return createHash('sha256').update(seed).digest('hex');
}
