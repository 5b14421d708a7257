/**
 * The membership platform's authorization endpoint (RFC 6749 §4.1.1), emulated for the code flow of
 * `npm run authorize` and for trying the library's authorization-code grant locally. There is no
 * login page: the sandbox's one creator approves at once, unless the request carries
 * `sandbox_decision=deny`, which answers `error=access_denied` as a creator clicking "Deny" would.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { problem, sendProblem } from '../lib/problem.js';
import type { SandboxState } from './state.js';
import { SANDBOX_SCOPE } from './tokens.js';

export const AUTHORIZE_PATH = '/oauth2/authorize';

/** RFC 6749 §4.1.2: a code lives shortly (10 minutes at most); the sandbox allows 2. */
const CODE_LIFETIME_MS = 120_000;
const GRANTABLE_SCOPES: ReadonlySet<string> = new Set(SANDBOX_SCOPE.split(' '));

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
    sendProblem(res, problem(405, 'the authorization endpoint accepts GET only'));
    return;
  }
  const query = url.searchParams;
  const clientId = query.get('client_id');
  const redirectUri = query.get('redirect_uri');
  // §4.1.2.1: with an unknown client or a bad redirect URI the user agent is NOT redirected.
  if (clientId !== state.credentials.clientId) {
    sendProblem(res, problem(400, `unknown client_id; the sandbox's client is ${state.credentials.clientId}`));
    return;
  }
  if (redirectUri === null || !isLoopbackRedirect(redirectUri)) {
    sendProblem(res, problem(400, 'redirect_uri must be a loopback http URL (http://127.0.0.1:<port>/…, RFC 8252 §7.3)'));
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
