import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPkce, OAuth2Client } from '@channel-graph/oauth2';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

function basic(id: string, secret: string): string {
  // RFC 6749 §2.3.1: form-urlencode each part, then base64 "id:secret".
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

async function refresh(sandbox: RunningSandbox, refreshToken: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}) {
  const { clientId, clientSecret } = sandbox.credentials;
  const response = await fetch(`${sandbox.url}/api/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, clientSecret), ...headers },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }),
  });
  return { response, body: await response.json() };
}

async function members(sandbox: RunningSandbox, accessToken: string): Promise<number> {
  const url = `${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}/members`;
  return (await fetch(url, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

describe('sandbox OAuth2 token endpoint: refresh_token grant with rotation', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 7 });
  });
  afterAll(() => sandbox.close());

  it('rotates: a refresh returns a new pair, and the used refresh token dies (invalid_grant)', async () => {
    const first = await refresh(sandbox, sandbox.credentials.refreshToken);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(first.body.refresh_token).not.toBe(sandbox.credentials.refreshToken);
    expect(await members(sandbox, first.body.access_token)).toBe(200);

    const reused = await refresh(sandbox, sandbox.credentials.refreshToken);
    expect(reused.response.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');

    const second = await refresh(sandbox, first.body.refresh_token);
    expect(second.response.status).toBe(200);
    expect((await refresh(sandbox, first.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('authenticates the client by Basic header or body parameters, and refuses a wrong secret with invalid_client', async () => {
    const fresh = await startSandbox({ seed: 7 });
    try {
      const { clientId, clientSecret, refreshToken } = fresh.credentials;
      const viaBody = await fetch(`${fresh.url}/api/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret }),
      });
      expect(viaBody.status).toBe(200);
      const wrong = await refresh(fresh, 'whatever', { authorization: basic(clientId, 'wrong-secret') });
      expect(wrong.response.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      expect(wrong.response.headers.get('www-authenticate')).toBe('Basic realm="sandbox"');
      const both = await refresh(fresh, 'whatever', {}, { client_id: clientId, client_secret: clientSecret });
      expect(both.body.error).toBe('invalid_request');
    } finally {
      await fresh.close();
    }
  });

  it('answers RFC 6749 §5.2 errors for an unsupported grant, a missing token and a non-form body', async () => {
    const { clientId, clientSecret } = sandbox.credentials;
    const grant = await fetch(`${sandbox.url}/api/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, clientSecret) },
      body: 'grant_type=password&username=a&password=b',
    });
    expect(grant.status).toBe(400);
    expect((await grant.json()).error).toBe('unsupported_grant_type');
    const missing = await fetch(`${sandbox.url}/api/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, clientSecret) },
      body: 'grant_type=refresh_token',
    });
    expect((await missing.json()).error).toBe('invalid_request');
    const json = await fetch(`${sandbox.url}/api/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"refresh_token"}',
    });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe('invalid_request');
  });

  it('expires access tokens after their TTL and on POST /__sandbox/expire-tokens', async () => {
    // The sandbox reads the time from Date: only Date is faked (the sockets keep their real timers),
    // and the clock moves when the test moves it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const short = await startSandbox({ accessTokenTtlSeconds: 1 });
    try {
      const pair = await refresh(short, short.credentials.refreshToken);
      const issuedAt = Date.now();
      expect(pair.body.expires_in).toBe(1);
      expect(await members(short, pair.body.access_token)).toBe(200);
      vi.setSystemTime(issuedAt + 999);
      expect(await members(short, pair.body.access_token)).toBe(200);
      expect(await members(short, short.credentials.accessToken)).toBe(200);
      vi.setSystemTime(issuedAt + 1_000);
      expect(await members(short, pair.body.access_token)).toBe(401);
      expect(await members(short, short.credentials.accessToken)).toBe(401);
    } finally {
      await short.close();
      vi.useRealTimers();
    }
    const fresh = await startSandbox();
    try {
      const pair = await refresh(fresh, fresh.credentials.refreshToken);
      expect(await members(fresh, pair.body.access_token)).toBe(200);
      expect((await fetch(`${fresh.url}/__sandbox/expire-tokens`, { method: 'POST' })).status).toBe(200);
      expect(await members(fresh, pair.body.access_token)).toBe(401);
      expect(await members(fresh, fresh.credentials.accessToken)).toBe(401);
      // Refresh tokens survive: the client recovers by refreshing.
      const next = await refresh(fresh, pair.body.refresh_token);
      expect(await members(fresh, next.body.access_token)).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('accepts a rotated refresh token after a restart with the same seed (the platform keeps its tokens)', async () => {
    const before = await startSandbox({ seed: 11 });
    const pair = await refresh(before, before.credentials.refreshToken);
    await before.close();
    const after = await startSandbox({ seed: 11 });
    const otherSeed = await startSandbox({ seed: 12 });
    try {
      expect((await refresh(after, pair.body.refresh_token)).response.status).toBe(200);
      expect((await refresh(otherSeed, pair.body.refresh_token)).body.error).toBe('invalid_grant');
    } finally {
      await after.close();
      await otherSeed.close();
    }
  });
});

describe('sandbox authorization endpoint and the authorization_code, client_credentials grants and revocation (through OAuth2Client)', () => {
  let sandbox: RunningSandbox;
  let client: OAuth2Client;
  const redirectUri = 'http://127.0.0.1:9/callback';
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 3 });
    client = new OAuth2Client(sandbox.credentials.clientId, sandbox.credentials.clientSecret, {
      site: sandbox.url,
      authorizeUrl: '/oauth2/authorize',
      tokenUrl: '/api/oauth2/token',
      revokeUrl: '/api/oauth2/revoke',
      redirectUri,
    });
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  /** Follows the authorization URL like a browser would, up to the redirect to the callback. */
  async function authorize(extra: Record<string, string> = {}, pkce = createPkce()): Promise<{ callback: URL; pkce: typeof pkce }> {
    const url = new URL(client.authCode.authorizeUrl({ scope: 'identity campaigns.members', state: 'st-1', codeChallenge: pkce.challenge }));
    for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(302);
    return { callback: new URL(response.headers.get('location') ?? ''), pkce };
  }

  it('auto-approves: redirects to the loopback redirect_uri with a code and the state; the code + PKCE verifier give a working token pair', async () => {
    const { callback, pkce } = await authorize();
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe('st-1');
    const token = await client.authCode.getToken(callback.searchParams.get('code') ?? '', { codeVerifier: pkce.verifier });
    expect(token.params.scope).toBe('identity campaigns.members');
    expect(token.refreshToken).toMatch(/^sbx_rt\./);
    expect(await members(sandbox, token.token)).toBe(200);
    const refreshed = await token.refresh();
    expect(refreshed.params.scope).toBe('identity campaigns.members'); // the grant's scope survives rotation
  });

  it('a code is single-use, bound to its redirect_uri, and needs the matching S256 verifier', async () => {
    const first = await authorize();
    const code = first.callback.searchParams.get('code') ?? '';
    await client.authCode.getToken(code, { codeVerifier: first.pkce.verifier });
    await expect(client.authCode.getToken(code, { codeVerifier: first.pkce.verifier })).rejects.toMatchObject({ code: 'invalid_grant' });
    const wrongVerifier = await authorize();
    await expect(client.authCode.getToken(wrongVerifier.callback.searchParams.get('code') ?? '', { codeVerifier: createPkce().verifier })).rejects.toMatchObject({
      code: 'invalid_grant',
      description: 'code_verifier does not match the code_challenge',
    });
    const noVerifier = await authorize();
    await expect(client.authCode.getToken(noVerifier.callback.searchParams.get('code') ?? '')).rejects.toMatchObject({ code: 'invalid_grant' });
    const otherRedirect = await authorize();
    await expect(
      client.authCode.getToken(otherRedirect.callback.searchParams.get('code') ?? '', { codeVerifier: otherRedirect.pkce.verifier, redirect_uri: 'http://127.0.0.1:9/other' }),
    ).rejects.toMatchObject({ code: 'invalid_grant', description: 'redirect_uri does not match the authorization request' });
  });

  it('sandbox_decision=deny answers error=access_denied with the state, like a creator clicking Deny', async () => {
    const { callback } = await authorize({ sandbox_decision: 'deny' });
    expect(Object.fromEntries(callback.searchParams)).toEqual({ error: 'access_denied', error_description: 'the creator denied the request', state: 'st-1' });
  });

  it('refuses without redirecting an unknown client or a non-loopback redirect_uri (RFC 6749 §4.1.2.1); redirects other errors', async () => {
    const base = new URL(client.authCode.authorizeUrl({ state: 's' }));
    const unknownClient = new URL(base);
    unknownClient.searchParams.set('client_id', 'someone-else');
    expect((await fetch(unknownClient, { redirect: 'manual' })).status).toBe(400);
    const foreign = new URL(base);
    foreign.searchParams.set('redirect_uri', 'https://attacker.example/cb');
    const refused = await fetch(foreign, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    const plain = new URL(base);
    plain.searchParams.set('code_challenge', createPkce().challenge);
    plain.searchParams.set('code_challenge_method', 'plain');
    const plainAnswer = new URL((await fetch(plain, { redirect: 'manual' })).headers.get('location') ?? '');
    expect(plainAnswer.searchParams.get('error')).toBe('invalid_request');
    const scope = new URL(base);
    scope.searchParams.set('scope', 'identity admin');
    expect(new URL((await fetch(scope, { redirect: 'manual' })).headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_scope');
  });

  it('client_credentials: an access token without a refresh token (RFC 6749 §4.4.3), scope checked', async () => {
    const token = await client.clientCredentials.getToken({ scope: 'campaigns' });
    expect(token.refreshToken).toBeUndefined();
    expect(token.params.scope).toBe('campaigns');
    expect(await members(sandbox, token.token)).toBe(200);
    await expect(client.clientCredentials.getToken({ scope: 'everything' })).rejects.toMatchObject({ code: 'invalid_scope' });
    const basicOrBody = new OAuth2Client(sandbox.credentials.clientId, sandbox.credentials.clientSecret, { site: sandbox.url, tokenUrl: '/api/oauth2/token', authScheme: 'request_body' });
    try {
      expect((await basicOrBody.clientCredentials.getToken()).params.scope).toBe('identity campaigns campaigns.members');
    } finally {
      await basicOrBody.close();
    }
  });

  it('revocation (RFC 7009): a revoked access token gets 401, a revoked refresh token invalid_grant, an unknown token 200', async () => {
    const { callback, pkce } = await authorize();
    const token = await client.authCode.getToken(callback.searchParams.get('code') ?? '', { codeVerifier: pkce.verifier });
    expect((await token.revoke({ tokenTypeHint: 'access_token' })).status).toBe(200);
    expect(await members(sandbox, token.token)).toBe(401);
    await token.revoke({ tokenTypeHint: 'refresh_token' });
    await expect(token.refresh()).rejects.toMatchObject({ code: 'invalid_grant' });
    expect((await client.revokeToken('not-a-token')).status).toBe(200);
    const stranger = new OAuth2Client('x', 'y', { site: sandbox.url, revokeUrl: '/api/oauth2/revoke' });
    try {
      await expect(stranger.revokeToken('whatever')).rejects.toMatchObject({ code: 'invalid_client' });
    } finally {
      await stranger.close();
    }
  });
});
