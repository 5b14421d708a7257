/**
 * The codes the sandbox's authorization endpoint issues and its token endpoint redeems (RFC 6749
 * §4.1, RFC 7636), once each.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Outstanding codes kept at most: an emulator in a loop must not grow without bound. */
const MAX_OUTSTANDING_CODES = 1_000;

export interface PendingCode {
  clientId: string;
  /** Required in the authorization request here, so the token request must repeat it (§4.1.3). */
  redirectUri: string;
  scope: string;
  codeChallenge: string | undefined;
  expiresAt: number;
}

export type CodeRedemption = { ok: true; scope: string } | { ok: false; description: string };

/** The codes the authorization endpoint issued and the token endpoint redeems, once each. */
export class AuthorizationCodes {
  readonly #pending = new Map<string, PendingCode>();

  issue(pending: PendingCode): string {
    const now = Date.now();
    for (const [code, entry] of this.#pending) if (entry.expiresAt <= now) this.#pending.delete(code);
    const oldest = this.#pending.keys().next();
    if (this.#pending.size >= MAX_OUTSTANDING_CODES && oldest.done !== true) this.#pending.delete(oldest.value);
    const code = randomBytes(24).toString('base64url');
    this.#pending.set(code, pending);
    return code;
  }

  /**
   * RFC 6749 §4.1.3 and RFC 7636 §4.6: the code exists, is unexpired, was issued to this client,
   * `redirect_uri` matches, and the verifier's S256 hash is the challenge. A code is consumed by
   * its first redemption, successful or not.
   */
  redeem(code: string, clientId: string, redirectUri: string | null, codeVerifier: string | null): CodeRedemption {
    const pending = this.#pending.get(code);
    this.#pending.delete(code);
    if (pending === undefined || pending.expiresAt <= Date.now()) return { ok: false, description: 'the authorization code is invalid, expired or was already used' };
    if (pending.clientId !== clientId) return { ok: false, description: 'the authorization code was issued to another client' };
    if (redirectUri !== pending.redirectUri) {
      return { ok: false, description: 'redirect_uri does not match the authorization request' };
    }
    if (pending.codeChallenge !== undefined) {
      if (codeVerifier === null) return { ok: false, description: 'code_verifier is missing (PKCE was used in the authorization request)' };
      const computed = Buffer.from(createHash('sha256').update(codeVerifier, 'ascii').digest('base64url'));
      const expected = Buffer.from(pending.codeChallenge);
      if (computed.length !== expected.length || !timingSafeEqual(computed, expected)) return { ok: false, description: 'code_verifier does not match the code_challenge' };
    } else if (codeVerifier !== null) {
      return { ok: false, description: 'code_verifier was sent but the authorization request had no code_challenge' };
    }
    return { ok: true, scope: pending.scope };
  }
}
