/**
 * The membership platform's token endpoint (RFC 6749 §3.2), refresh_token grant only (§6), with
 * client authentication (§2.3.1: HTTP Basic or body parameters) and refresh-token rotation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { readBody, sendJson } from './http-kit.js';
import type { SandboxState } from './state.js';

export const TOKEN_PATH = '/api/oauth2/token';

/** RFC 6749 §5.1/§5.2 responses carry Cache-Control: no-store and Pragma: no-cache. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function sendOAuthError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error, error_description: description }, 'application/json; charset=utf-8', { ...NO_STORE, ...headers });
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

export async function handleTokenEndpoint(state: SandboxState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.requests.token += 1;
  if (req.method !== 'POST') {
    sendOAuthError(res, 405, 'invalid_request', 'the token endpoint accepts POST only', { allow: 'POST' });
    return;
  }
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') {
    sendOAuthError(res, 400, 'invalid_request', 'the request body must be application/x-www-form-urlencoded (RFC 6749 §4.1.3)');
    return;
  }
  const params = new URLSearchParams((await readBody(req)).toString('utf8'));
  // §2.3.1: the client authenticates with one method only.
  const basic = basicCredentials(req.headers.authorization);
  const bodyId = params.get('client_id');
  const bodySecret = params.get('client_secret');
  if (basic !== undefined && bodySecret !== null) {
    sendOAuthError(res, 400, 'invalid_request', 'the client authenticated with more than one method');
    return;
  }
  const client = basic ?? (bodyId !== null && bodySecret !== null ? { id: bodyId, secret: bodySecret } : null);
  const { clientId, clientSecret } = state.credentials;
  if (!client || !safeEqual(client.id, clientId) || !safeEqual(client.secret, clientSecret)) {
    sendOAuthError(res, 401, 'invalid_client', 'client authentication failed', basic !== undefined ? { 'www-authenticate': 'Basic realm="sandbox"' } : {});
    return;
  }
  const grantType = params.get('grant_type');
  if (grantType === null) {
    sendOAuthError(res, 400, 'invalid_request', 'grant_type is missing');
    return;
  }
  if (grantType !== 'refresh_token') {
    sendOAuthError(res, 400, 'unsupported_grant_type', `grant_type ${grantType} is not supported here; use refresh_token`);
    return;
  }
  const refreshToken = params.get('refresh_token');
  if (!refreshToken) {
    sendOAuthError(res, 400, 'invalid_request', 'refresh_token is missing');
    return;
  }
  const issued = state.tokens.rotate(refreshToken);
  if (!issued) {
    sendOAuthError(res, 400, 'invalid_grant', 'the refresh token is invalid, expired or was already used');
    return;
  }
  sendJson(res, 200, issued, 'application/json; charset=utf-8', NO_STORE);
}
