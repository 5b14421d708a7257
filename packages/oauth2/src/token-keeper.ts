import { createHash } from 'node:crypto';
import { AccessToken } from './access-token.js';
import type { OAuth2Client } from './client.js';
import { OAuth2AbortError, OAuth2NoTokenError } from './errors.js';
import type { OAuth2Response } from './response.js';
import { SEED_FINGERPRINT_KEY, type TokenStore } from './token-store.js';
import type { RequestOptions, TokenHash, Verb } from './types.js';

export interface TokenKeeperOptions {
  /** The token to start from (e.g. from configuration) when the store holds none descending from it. */
  initial?: TokenHash;
  store?: TokenStore;
  /**
   * Refresh at most this many milliseconds before expiry (default 60 000). A token whose lifetime
   * (`expires_in`) is short is refreshed 10 % of its lifetime before expiry when that is less: with a
   * 60 s lead, a token living 3 s would be "due" the moment it arrives and every use would refresh it.
   */
  refreshLeewayMs?: number;
  /** Told the outcome of every refresh (a service logs and counts them); never given a token. */
  onRefresh?: (report: RefreshReport) => void;
}

/** One token refresh, as `onRefresh` sees it: the outcome and how long the token endpoint (and the save) took. */
export interface RefreshReport {
  ok: boolean;
  durationMs: number;
  /** Why it failed (ok false). */
  error?: unknown;
}

/** Stored next to the token: which `initial` token the stored one descends from. */
const SEED_KEY = SEED_FINGERPRINT_KEY;

/** The refresh lead is at most this share of the token's lifetime. */
const LEAD_SHARE_OF_LIFETIME = 0.1;

/**
 * Holds one token for a client and keeps it usable: refreshes it before expiry and once after a
 * 401, shares one token-endpoint call among all concurrent callers, and saves every rotated token
 * to the store. A store shared by several processes (`refreshShared`) extends the single flight to
 * all of them: it decides who calls the token endpoint, and the others adopt the stored result.
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
  readonly #onRefresh: ((report: RefreshReport) => void) | undefined;
  #current: Promise<AccessToken> | undefined;
  #refreshing: Promise<AccessToken> | undefined;
  #seed: string | undefined;
  /** Set by drain(): no new refresh starts. */
  #draining = false;
  /** A rotated token whose save failed; drain() tries once more. */
  #unsaved: AccessToken | undefined;

  constructor(client: OAuth2Client, options: TokenKeeperOptions = {}) {
    this.client = client;
    this.#store = options.store;
    this.#initial = options.initial;
    this.#leewayMs = options.refreshLeewayMs ?? 60_000;
    this.#onRefresh = options.onRefresh;
    this.#seed = options.initial === undefined ? undefined : seedFingerprint(options.initial);
    // Another process logged in, revoked or refreshed: the next use reads the store again (a refresh
    // in flight here decides itself which token to hold).
    this.#store?.onChange?.(() => {
      if (this.#refreshing === undefined) this.#current = undefined;
    });
  }

  /** Whether a token-endpoint call (and the save of its token) is under way. */
  get refreshInFlight(): boolean {
    return this.#refreshing !== undefined;
  }

  /**
   * A usable token: refreshed first when expired or within the lead — the smaller of
   * `refreshLeewayMs` and 10 % of its lifetime (concurrent callers share one refresh).
   */
  async token(): Promise<AccessToken> {
    const current = await this.current();
    if (!current.expired(Date.now() + this.refreshLeadMs(current)) || current.refreshToken === undefined) return current;
    return this.refresh();
  }

  /** How long before its expiry `token` is refreshed. */
  refreshLeadMs(token: AccessToken): number {
    const lifetimeMs = token.expiresIn === undefined ? undefined : token.expiresIn * 1000;
    return lifetimeMs === undefined ? this.#leewayMs : Math.min(this.#leewayMs, lifetimeMs * LEAD_SHARE_OF_LIFETIME);
  }

  /**
   * The token held now (loaded from the store or `initial` on first use), without refreshing it. A
   * failed load (the store is unreachable) is not kept: the next call loads again; meanwhile
   * `initial`, when given, stands in.
   */
  current(): Promise<AccessToken> {
    if (this.#current !== undefined) return this.#current;
    const loading = this.load();
    const token = loading.then((loaded) => loaded.token);
    this.#current = token;
    loading.then(
      (loaded) => {
        if (!loaded.kept && this.#current === token) this.#current = undefined;
      },
      () => {
        if (this.#current === token) this.#current = undefined;
      },
    );
    return token;
  }

  /**
   * Holds `token` from now on and saves it to the store with this keeper's seed fingerprint, so a
   * later keeper with the same `initial` resumes from it (a login command obtains a token this way).
   * A failed save rejects: the caller has no other copy.
   */
  async replace(token: AccessToken): Promise<void> {
    const store = this.#store;
    if (store !== undefined) await (store.replace === undefined ? store.save(this.storedHash(token)) : store.replace(this.storedHash(token)));
    this.#unsaved = undefined;
    this.#current = Promise.resolve(token);
  }

  /**
   * Refreshes now. N concurrent calls → one token-endpoint request; the rotated token is saved to
   * the store before any caller gets it. After drain() a new refresh is refused (OAuth2AbortError);
   * joining the one in flight is not.
   */
  refresh(): Promise<AccessToken> {
    if (this.#draining && this.#refreshing === undefined) {
      return Promise.reject(new OAuth2AbortError('TokenKeeper: no token refresh is started while shutting down (drain() was called)'));
    }
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

  /**
   * For a clean shutdown: from now on no refresh starts, and this resolves once the refresh in
   * flight, if any, has been answered and its token saved. The authorization server retires the
   * previous refresh token when it answers (rotation), so a process that exits earlier loses the
   * only valid one. A rotated token whose save failed is saved once more. Never rejects.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    await this.#refreshing?.catch(() => undefined);
    if (this.#unsaved !== undefined) await this.save(this.#unsaved);
  }

  private settle(response: OAuth2Response, options: RequestOptions): OAuth2Response {
    if (response.error !== undefined && (options.raiseErrors ?? this.client.options.raiseErrors)) throw response.error;
    return response;
  }

  private async rotate(): Promise<AccessToken> {
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
    const store = this.#store;
    let next: AccessToken;
    try {
      const held = await this.current();
      if (store?.refreshShared === undefined) {
        next = await held.refresh();
        // The old refresh token is dead from here on: the new one goes to disk before anyone uses it.
        await this.save(next);
      } else {
        // Shared by several processes: the store decides who calls the token endpoint and saves the result.
        const shared = await store.refreshShared(this.storedHash(held), async (latest) => this.storedHash(await this.fromStored(latest).refresh()));
        next = this.fromStored(shared.token);
        this.#unsaved = shared.saved ? undefined : next;
      }
    } catch (error) {
      this.#onRefresh?.({ ok: false, durationMs: elapsed(), error });
      throw error;
    }
    this.#current = Promise.resolve(next);
    this.#onRefresh?.({ ok: true, durationMs: elapsed() });
    return next;
  }

  /** Saves a rotated token; a failure is logged, and the token is still used (it is the only valid one). */
  private async save(token: AccessToken): Promise<void> {
    if (this.#store === undefined) return;
    try {
      await this.#store.save(this.storedHash(token));
      this.#unsaved = undefined;
    } catch (error) {
      // The new token works and is held in memory; the next rotation or drain() saves again.
      this.#unsaved = token;
      this.client.logger.warn(`TokenKeeper: saving the refreshed token failed: ${(error as Error).message}`);
    }
  }

  private storedHash(token: AccessToken): TokenHash {
    const hash: TokenHash = token.toHash();
    if (this.#seed !== undefined) hash[SEED_KEY] = this.#seed;
    return hash;
  }

  /** The token to hold, and whether to keep it (false: a stand-in while the store is unreachable). */
  private async load(): Promise<{ token: AccessToken; kept: boolean }> {
    let stored: TokenHash | null | undefined;
    try {
      await this.#store?.recover?.();
      stored = await this.#store?.load();
    } catch (error) {
      // The store is unreachable (a shared store during an outage). With an `initial` token the
      // caller is served with it meanwhile, not kept: the next call reads the store again. A refresh
      // still goes through the store, which adopts a newer token found there, so the initial refresh
      // token is never presented once it has been rotated.
      if (this.#initial === undefined) throw error;
      return { token: AccessToken.fromHash(this.client, this.#initial), kept: false };
    }
    if (stored != null && (this.#initial === undefined || stored[SEED_KEY] === this.#seed)) return { token: this.fromStored(stored), kept: true };
    if (this.#initial === undefined) throw new OAuth2NoTokenError('TokenKeeper has no token: give `initial` or a store holding one');
    return { token: AccessToken.fromHash(this.client, this.#initial), kept: true };
  }

  /** The token of a stored hash (the seed fingerprint is adopted, not passed to the token). */
  private fromStored(stored: TokenHash): AccessToken {
    const { [SEED_KEY]: seed, ...token } = stored;
    if (typeof seed === 'string') this.#seed = seed;
    return AccessToken.fromHash(this.client, token);
  }
}

function seedFingerprint(initial: TokenHash): string {
  const seed = initial.refresh_token ?? initial.access_token;
  return createHash('sha256').update(seed).digest('hex');
}
