/**
 * The sandbox authorization server's token book-keeping. Tokens are HMAC-signed claims (kind, issue
 * time, expiry, serial) under a key derived from the seed, so a sandbox restarted with the same seed
 * still accepts the last refresh token a client persisted — as a real platform would, since it does
 * not forget tokens when our process restarts. Rotation is stateful: a refresh token dies when used.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'access' | 'refresh';

interface TokenClaims {
  kind: TokenKind;
  /** Issue time, ms since epoch. */
  iat: number;
  /** Expiry, ms since epoch; null for refresh tokens (they live until used). */
  exp: number | null;
  serial: number;
  /** The granted scope (absent in tokens issued before scopes were recorded: the full scope). */
  scope?: string;
}

export interface IssuedTokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

/** Every scope the sandbox grants; the default when a request names none. */
export const SANDBOX_SCOPE = 'identity campaigns campaigns.members';

export type AccessCheck = { ok: true } | { ok: false; reason: 'missing' | 'invalid' | 'expired' };

export class TokenAuthority {
  readonly #key: Buffer;
  readonly #usedRefreshSerials = new Set<number>();
  /** Access tokens revoked through the revocation endpoint (RFC 7009). */
  readonly #revokedAccessSerials = new Set<number>();
  readonly #fixedAccess: string;
  readonly #fixedRefresh: string;
  readonly #startedAt = Date.now();
  #serial = 0;
  /** Access tokens issued before this instant are expired (POST /__sandbox/expire-tokens). */
  #expiredBefore = 0;
  #fixedRefreshUsed = false;
  #fixedAccessRevoked = false;

  constructor(
    seed: number,
    readonly accessTokenTtlSeconds: number,
    fixed: { accessToken: string; refreshToken: string },
  ) {
    this.#key = createHmac('sha256', 'channel-graph sandbox').update(String(seed)).digest();
    this.#fixedAccess = fixed.accessToken;
    this.#fixedRefresh = fixed.refreshToken;
  }

  /** RFC 6750 §3.1: is this bearer token a live access token? */
  checkAccess(token: string | undefined): AccessCheck {
    if (!token) return { ok: false, reason: 'missing' };
    if (token === this.#fixedAccess) {
      if (this.#fixedAccessRevoked) return { ok: false, reason: 'invalid' };
      // The documented initial access token lives one TTL from start-up, like any other.
      const issued = this.#startedAt;
      return this.#isExpired(issued, issued + this.accessTokenTtlSeconds * 1000) ? { ok: false, reason: 'expired' } : { ok: true };
    }
    const claims = this.#verify(token);
    if (!claims || claims.kind !== 'access' || this.#revokedAccessSerials.has(claims.serial)) return { ok: false, reason: 'invalid' };
    return this.#isExpired(claims.iat, claims.exp ?? 0) ? { ok: false, reason: 'expired' } : { ok: true };
  }

  /**
   * RFC 6749 §6: exchange a refresh token for a new pair. The presented token is consumed (rotation),
   * so presenting it again fails with invalid_grant.
   */
  rotate(refreshToken: string): IssuedTokens | null {
    if (refreshToken === this.#fixedRefresh) {
      if (this.#fixedRefreshUsed) return null;
      this.#fixedRefreshUsed = true;
      return this.issue(SANDBOX_SCOPE, true);
    }
    const claims = this.#verify(refreshToken);
    if (!claims || claims.kind !== 'refresh' || this.#usedRefreshSerials.has(claims.serial)) return null;
    this.#usedRefreshSerials.add(claims.serial);
    return this.issue(claims.scope ?? SANDBOX_SCOPE, true);
  }

  /** A new access token for `scope`, with a refresh token when `withRefreshToken` (not for client_credentials, RFC 6749 §4.4.3). */
  issue(scope: string, withRefreshToken: boolean): IssuedTokens {
    const now = Date.now();
    const issued: IssuedTokens = {
      access_token: this.#sign({ kind: 'access', iat: now, exp: now + this.accessTokenTtlSeconds * 1000, serial: this.#nextSerial(), scope }),
      expires_in: this.accessTokenTtlSeconds,
      token_type: 'Bearer',
      scope,
    };
    if (withRefreshToken) issued.refresh_token = this.#sign({ kind: 'refresh', iat: now, exp: null, serial: this.#nextSerial(), scope });
    return issued;
  }

  /**
   * RFC 7009 §2.1: an access token stops being accepted; a refresh token can no longer be used.
   * An unknown or invalid token is ignored (§2.2: the answer is the same).
   */
  revoke(token: string): void {
    if (token === this.#fixedAccess) this.#fixedAccessRevoked = true;
    else if (token === this.#fixedRefresh) this.#fixedRefreshUsed = true;
    const claims = this.#verify(token);
    if (claims?.kind === 'access') this.#revokedAccessSerials.add(claims.serial);
    else if (claims?.kind === 'refresh') this.#usedRefreshSerials.add(claims.serial);
  }

  /** Every access token issued so far is expired from now on. */
  expireAll(): void {
    this.#expiredBefore = Date.now() + 1;
  }

  #isExpired(iat: number, exp: number): boolean {
    return exp <= Date.now() || iat < this.#expiredBefore;
  }

  #nextSerial(): number {
    // Serials start from the clock so that a restarted sandbox never reissues a used serial.
    this.#serial = Math.max(this.#serial + 1, Date.now() * 1000);
    return this.#serial;
  }

  #sign(claims: TokenClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const prefix = claims.kind === 'access' ? 'sbx_at' : 'sbx_rt';
    return `${prefix}.${payload}.${this.#mac(payload)}`;
  }

  #verify(token: string): TokenClaims | null {
    const [, payload, mac] = token.split('.');
    if (!payload || !mac) return null;
    const expected = Buffer.from(this.#mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      return null;
    }
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}
