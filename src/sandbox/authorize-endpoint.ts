/**
 * The membership platform's authorization endpoint (RFC 6749 §4.1.1), emulated for the code flow of
 * `npm run authorize` and for trying the library's authorization-code grant locally. There is no
 * login page: the sandbox's one creator approves at once, unless the request carries
 * `sandbox_decision=deny`, which answers `error=access_denied` as a creator clicking "Deny" would.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendProblem } from './http-kit.js';
import type { SandboxState } from './state.js';
import { SANDBOX_SCOPE } from './tokens.js';

export const AUTHORIZE_PATH = '/oauth2/authorize';

/** RFC 6749 §4.1.2: a code lives shortly (10 minutes at most); the sandbox allows 2. */
const CODE_LIFETIME_MS = 120_000;
/** Outstanding codes kept at most: an emulator in a loop must not grow without bound. */
const MAX_OUTSTANDING_CODES = 1_000;
const GRANTABLE_SCOPES: ReadonlySet<string> = new Set(SANDBOX_SCOPE.split(' '));

interface PendingCode {
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

/**
 * Redirect URIs the sandbox accepts: loopback HTTP on any port (RFC 8252 §7.3, for native apps and
 * command-line tools) — a test or a local app needs no registration.
 */
function isLoopbackRedirect(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname) && url.hash === '';
  } catch {
    return false;
  }
}

function redirect(res: ServerResponse, redirectUri: string, params: Record<string, string | undefined>): void {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) target.searchParams.set(name, value);
  res.writeHead(302, { location: target.href, 'cache-control': 'no-store' }).end();
}

/** GET /oauth2/authorize (RFC 6749 §4.1.1, RFC 7636 §4.3). */
export function handleAuthorizeEndpoint(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL): void {
  if (req.method !== 'GET') {
    sendProblem(res, 405, 'Method Not Allowed', 'the authorization endpoint accepts GET only');
    return;
  }
  const query = url.searchParams;
  const clientId = query.get('client_id');
  const redirectUri = query.get('redirect_uri');
  // §4.1.2.1: with an unknown client or a bad redirect URI the user agent is NOT redirected.
  if (clientId !== state.credentials.clientId) {
    sendProblem(res, 400, 'Bad Request', `unknown client_id; the sandbox's client is ${state.credentials.clientId}`);
    return;
  }
  if (redirectUri === null || !isLoopbackRedirect(redirectUri)) {
    sendProblem(res, 400, 'Bad Request', 'redirect_uri must be a loopback http URL (http://127.0.0.1:<port>/…, RFC 8252 §7.3)');
    return;
  }
  const stateParam = query.get('state') ?? undefined;
  const fail = (error: string, description: string) => redirect(res, redirectUri, { error, error_description: description, state: stateParam });
  if (query.get('response_type') !== 'code') {
    fail('unsupported_response_type', 'the sandbox supports response_type=code only');
    return;
  }
  const codeChallenge = query.get('code_challenge') ?? undefined;
  if (codeChallenge !== undefined && query.get('code_challenge_method') !== 'S256') {
    fail('invalid_request', 'code_challenge_method must be S256');
    return;
  }
  if (codeChallenge !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
    fail('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
    return;
  }
  const requested = (query.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
  const unknown = requested.find((scope) => !GRANTABLE_SCOPES.has(scope));
  if (unknown !== undefined) {
    fail('invalid_scope', `unknown scope ${unknown}; the sandbox grants ${SANDBOX_SCOPE}`);
    return;
  }
  if (query.get('sandbox_decision') === 'deny') {
    fail('access_denied', 'the creator denied the request');
    return;
  }
  const code = state.codes.issue({
    clientId,
    redirectUri,
    scope: requested.length === 0 ? SANDBOX_SCOPE : requested.join(' '),
    codeChallenge,
    expiresAt: Date.now() + CODE_LIFETIME_MS,
  });
  redirect(res, redirectUri, { code, state: stateParam });
}
