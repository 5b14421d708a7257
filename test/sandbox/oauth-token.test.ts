import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('sandbox OAuth2 token endpoint (refresh_token grant with rotation)', () => {
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
    const short = await startSandbox({ accessTokenTtlSeconds: 1 });
    try {
      const pair = await refresh(short, short.credentials.refreshToken);
      expect(pair.body.expires_in).toBe(1);
      expect(await members(short, pair.body.access_token)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await members(short, pair.body.access_token)).toBe(401);
      expect(await members(short, short.credentials.accessToken)).toBe(401);
    } finally {
      await short.close();
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
