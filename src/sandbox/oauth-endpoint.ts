/**
 * The membership platform's token endpoint (RFC 6749 §3.2) — authorization_code with PKCE (§4.1.3,
 * RFC 7636 §4.6), client_credentials (§4.4) and refresh_token with rotation (§6) — and its
 * revocation endpoint (RFC 7009), both with client authentication (§2.3.1: HTTP Basic or body
 * parameters, not both).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { stallResponse } from './fault-responses.js';
import { delay, readBody, sendJson } from './http-kit.js';
import type { SandboxState } from './state.js';
import { SANDBOX_SCOPE } from './tokens.js';

export const TOKEN_PATH = '/api/oauth2/token';
export const REVOKE_PATH = '/api/oauth2/revoke';

/** RFC 6749 §5.1/§5.2 responses carry Cache-Control: no-store and Pragma: no-cache. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const TOKEN_CONTENT_TYPE = 'application/json; charset=utf-8';

function sendOAuthError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error, error_description: description }, TOKEN_CONTENT_TYPE, { ...NO_STORE, ...headers });
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** RFC 6749 §2.3.1: the Basic credentials are the form-urlencoded id and secret. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null | undefined {
  if (!header) return undefined;
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const decode = (part: string) => decodeURIComponent(part.replaceAll('+', ' '));
  try {
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/**
 * The form parameters of a POST to the token or revocation endpoint, once the client has
 * authenticated; null when an error answer was sent.
 */
async function authenticatedForm(state: SandboxState, req: IncomingMessage, res: ServerResponse, what: string): Promise<URLSearchParams | null> {
  if (req.method !== 'POST') {
    sendOAuthError(res, 405, 'invalid_request', `the ${what} endpoint accepts POST only`, { allow: 'POST' });
    return null;
  }
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') {
    sendOAuthError(res, 400, 'invalid_request', 'the request body must be application/x-www-form-urlencoded (RFC 6749 §4.1.3)');
    return null;
  }
  const params = new URLSearchParams((await readBody(req)).toString('utf8'));
  // §2.3.1: the client authenticates with one method only.
  const basic = basicCredentials(req.headers.authorization);
  const bodyId = params.get('client_id');
  const bodySecret = params.get('client_secret');
  if (basic !== undefined && bodySecret !== null) {
    sendOAuthError(res, 400, 'invalid_request', 'the client authenticated with more than one method');
    return null;
  }
  const client = basic ?? (bodyId !== null && bodySecret !== null ? { id: bodyId, secret: bodySecret } : null);
  const { clientId, clientSecret } = state.credentials;
  if (!client || !safeEqual(client.id, clientId) || !safeEqual(client.secret, clientSecret)) {
    sendOAuthError(res, 401, 'invalid_client', 'client authentication failed', basic !== undefined ? { 'www-authenticate': 'Basic realm="sandbox"' } : {});
    return null;
  }
  return params;
}

/** §3.3: the requested scope must be a subset of what the sandbox grants; absent means all of it. */
function grantedScope(requested: string | null): string | null {
  if (requested === null || requested.trim() === '') return SANDBOX_SCOPE;
  const grantable = new Set(SANDBOX_SCOPE.split(' '));
  const scopes = requested.split(' ').filter((scope) => scope !== '');
  return scopes.every((scope) => grantable.has(scope)) ? scopes.join(' ') : null;
}

/** The token endpoint's answer to an authenticated request: a token response or an error response. */
interface TokenAnswer {
  status: number;
  body: object;
}

const oauthError = (error: string, description: string): TokenAnswer => ({ status: 400, body: { error, error_description: description } });

/** Carries out the grant of an authenticated token request (a refresh token is retired here). */
function grant(state: SandboxState, params: URLSearchParams): TokenAnswer {
  const grantType = params.get('grant_type');
  switch (grantType) {
    case null:
      return oauthError('invalid_request', 'grant_type is missing');
    case 'authorization_code': {
      const code = params.get('code');
      if (!code) return oauthError('invalid_request', 'code is missing');
      const redeemed = state.codes.redeem(code, state.credentials.clientId, params.get('redirect_uri'), params.get('code_verifier'));
      if (!redeemed.ok) return oauthError('invalid_grant', redeemed.description);
      return { status: 200, body: state.tokens.issue(redeemed.scope, true) };
    }
    case 'client_credentials': {
      const scope = grantedScope(params.get('scope'));
      if (scope === null) return oauthError('invalid_scope', `the sandbox grants ${SANDBOX_SCOPE}`);
      return { status: 200, body: state.tokens.issue(scope, false) };
    }
    case 'refresh_token': {
      const refreshToken = params.get('refresh_token');
      if (!refreshToken) return oauthError('invalid_request', 'refresh_token is missing');
      const issued = state.tokens.rotate(refreshToken);
      if (!issued) return oauthError('invalid_grant', 'the refresh token is invalid, expired or was already used');
      return { status: 200, body: issued };
    }
    default:
      return oauthError('unsupported_grant_type', `grant_type ${grantType} is not supported here; use authorization_code, client_credentials or refresh_token`);
  }
}

/**
 * POST /api/oauth2/token. An injected fault with a status answers it without carrying out the grant
 * (the server is down); `latencyMs` and `stall: 'body'` come AFTER the grant — the server has
 * already retired the presented refresh token when its answer is late or never completes, as a
 * real one that is slow to answer; `stall: 'headers'` holds the request before anything is done.
 */
export async function handleTokenEndpoint(state: SandboxState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.requests.token += 1;
  const fault = state.faults.decide('token');
  if (fault?.status !== undefined || fault?.stall === 'headers') {
    await readBody(req);
    if (fault.status !== undefined) {
      await delay(fault.latencyMs);
      sendOAuthError(res, fault.status, 'temporarily_unavailable', `injected fault: status ${fault.status}`, fault.status === 503 ? { 'retry-after': '1' } : {});
    } else {
      await stallResponse(res, 'headers', TOKEN_CONTENT_TYPE);
    }
    return;
  }
  const params = await authenticatedForm(state, req, res, 'token');
  if (params === null) return;
  const answer = grant(state, params);
  if (fault !== null) {
    await delay(fault.latencyMs);
    if (fault.stall === 'body') {
      await stallResponse(res, 'body', TOKEN_CONTENT_TYPE);
      return;
    }
  }
  sendJson(res, answer.status, answer.body, TOKEN_CONTENT_TYPE, NO_STORE);
}

/** POST /api/oauth2/revoke (RFC 7009 §2.1): 200 whether or not the token was known (§2.2). */
export async function handleRevokeEndpoint(state: SandboxState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const params = await authenticatedForm(state, req, res, 'revocation');
  if (params === null) return;
  const token = params.get('token');
  if (!token) {
    sendOAuthError(res, 400, 'invalid_request', 'token is missing');
    return;
  }
  state.tokens.revoke(token);
  res.writeHead(200, { ...NO_STORE, 'content-length': '0' }).end();
}
