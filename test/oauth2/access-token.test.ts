import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccessToken, configure, OAuth2Client, type Verb } from '@channel-graph/oauth2';
import { json, type Recorded, startServer, type TestServer } from './support/servers.js';

let server: TestServer;
let client: OAuth2Client;
const warnings: string[] = [];
/** What the token endpoint answers next (tests set it). */
let tokenResponse: Record<string, unknown> = {};

beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.path === '/oauth/token') json(response, 200, tokenResponse);
    else if (request.path === '/oauth/revoke') response.writeHead(200).end();
    else json(response, 200, { ok: true });
  });
  client = new OAuth2Client('cid', 'csecret', { site: server.url, logger: { debug: () => undefined, warn: (m: string) => warnings.push(m) } });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => {
  warnings.length = 0;
  configure({ silenceExtraTokensWarning: true, silenceNoTokensWarning: true });
});
const last = (): Recorded => {
  const recorded = server.requests.at(-1);
  if (recorded === undefined) throw new Error('no request');
  return recorded;
};

describe('AccessToken.fromHash: token-key lookup and warnings', () => {
  it('looks up access_token, id_token, token, accessToken, idToken in that order', () => {
    expect(AccessToken.fromHash(client, { id_token: 'i', access_token: 'a' }).token).toBe('a');
    expect(AccessToken.fromHash(client, { token: 't', id_token: 'i' }).token).toBe('i');
    expect(AccessToken.fromHash(client, { accessToken: 'A', token: 't' }).token).toBe('t');
    expect(AccessToken.fromHash(client, { idToken: 'I', accessToken: 'A' }).token).toBe('A');
    expect(AccessToken.fromHash(client, { idToken: 'I' }).token).toBe('I');
    const withIdToken = AccessToken.fromHash(client, { access_token: 'a', id_token: 'i' });
    expect(withIdToken.params).toEqual({ id_token: 'i' }); // the id_token stays available, unvalidated
  });

  it('token_name selects the key', () => {
    const token = AccessToken.fromHash(client, { access_token: 'a', custom: 'c', token_name: 'custom' });
    expect(token.token).toBe('c');
    expect(token.tokenName).toBe('custom');
    expect(token.params).toEqual({ access_token: 'a' });
  });

  it('warnings are silenced by default', () => {
    AccessToken.fromHash(client, { access_token: 'a', id_token: 'i' });
    AccessToken.fromHash(client, { refresh_token: 'r' });
    expect(warnings).toEqual([]);
  });

  it('silenceExtraTokensWarning: false warns about several token keys', () => {
    configure({ silenceExtraTokensWarning: false });
    AccessToken.fromHash(client, { access_token: 'a', id_token: 'i' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('more than one token key (access_token, id_token); using access_token');
    expect(warnings[0]).not.toMatch(/\ba\b.*\bi\b/); // names keys, not values
  });

  it('silenceNoTokensWarning: false warns about no token key', () => {
    configure({ silenceNoTokensWarning: false });
    const token = AccessToken.fromHash(client, { refresh_token: 'r-only' });
    expect(token.token).toBe('');
    expect(warnings.join()).toContain('holds no token');
  });

  it('neither an access nor a refresh token is an error', () => {
    expect(() => AccessToken.fromHash(client, { scope: 'x' })).toThrow(TypeError);
  });

  it('fromKvform reads a form-encoded string (the implicit callback fragment)', () => {
    const token = AccessToken.fromKvform(client, 'access_token=frag&token_type=bearer&expires_in=120&state=s');
    expect(token.token).toBe('frag');
    expect(token.expiresIn).toBe(120);
    expect(token.params).toEqual({ token_type: 'bearer', state: 's' });
  });
});

describe('expiry', () => {
  it('expires_in counts from now; expired() honours expiresLatency (ms)', () => {
    const now = Math.floor(Date.now() / 1000);
    const token = new AccessToken(client, 't', { expiresIn: 100 });
    expect(token.expiresAt).toBeGreaterThanOrEqual(now + 100);
    expect(token.expired()).toBe(false);
    expect(new AccessToken(client, 't', { expiresIn: 100, expiresLatency: 101_000 }).expired()).toBe(true);
    expect(new AccessToken(client, 't', { expiresIn: 100, expiresLatency: 90_000 }).expired()).toBe(false);
  });

  it('expires_at as epoch seconds or ISO date; no expiry → never expired', () => {
    expect(new AccessToken(client, 't', { expiresAt: 1_000 }).expired()).toBe(true);
    expect(new AccessToken(client, 't', { expiresAt: '2999-01-01T00:00:00Z' }).expiresAt).toBe(Date.parse('2999-01-01T00:00:00Z') / 1000);
    const forever = new AccessToken(client, 't');
    expect(forever.expires()).toBe(false);
    expect(forever.expired()).toBe(false);
  });

  it('toHash() → fromHash() round trip keeps every field and option; expires_latency (seconds) is folded into expires_at', () => {
    const original = AccessToken.fromHash(client, {
      access_token: 'a',
      refresh_token: 'r',
      expires_in: 3600,
      expires_latency: 5,
      token_type: 'Bearer',
      scope: 'x y',
      mode: 'query',
      param_name: 'oauth_token',
      header_format: 'Token %s',
    });
    const hash = original.toHash();
    expect(hash).toMatchObject({ access_token: 'a', refresh_token: 'r', expires_at: original.expiresAt, token_type: 'Bearer', scope: 'x y', mode: 'query', param_name: 'oauth_token' });
    const copy = AccessToken.fromHash(client, hash);
    expect(copy.toHash()).toEqual(hash);
    expect(copy.expiresAt).toBe(original.expiresAt);
    expect(original.expiresLatency).toBe(5000); // the hash's seconds, as the option's milliseconds
    expect(hash.expires_latency).toBeUndefined(); // as the gem: already subtracted from expires_at
    expect(original.expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600 - 5);
    expect(copy.mode).toBe('query');
    expect(JSON.parse(JSON.stringify(hash))).toEqual(hash); // serialisable
  });
});

describe('sending the token (mode)', () => {
  const verbs: Verb[] = ['get', 'post', 'put', 'patch', 'delete'];

  it('header (default): Authorization: Bearer <token> on every verb; headerFormat customises it', async () => {
    const token = new AccessToken(client, 'tok');
    for (const verb of verbs) {
      await token[verb]('res');
      expect(last().method).toBe(verb.toUpperCase());
      expect(last().headers.authorization).toBe('Bearer tok');
    }
    await new AccessToken(client, 'tok', { headerFormat: 'OAuth %s' }).get('res');
    expect(last().headers.authorization).toBe('OAuth tok');
  });

  it('query: access_token (or paramName) query parameter, merged with params', async () => {
    await new AccessToken(client, 'tok', { mode: 'query' }).get('res', { params: { page: 2 } });
    expect(last().url).toBe('/res?page=2&access_token=tok');
    expect(last().headers.authorization).toBeUndefined();
    await new AccessToken(client, 'tok', { mode: 'query', paramName: 'oauth_token' }).get('res');
    expect(last().query.get('oauth_token')).toBe('tok');
  });

  it('body: added to an object body or appended to a form string', async () => {
    await new AccessToken(client, 'tok', { mode: 'body' }).post('res', { body: { a: '1' } });
    expect(last().body).toBe('a=1&access_token=tok');
    await new AccessToken(client, 'tok', { mode: 'body' }).post('res', { body: 'b=2' });
    expect(last().body).toBe('b=2&access_token=tok');
  });

  it('per verb by function and by object', async () => {
    const byFunction = new AccessToken(client, 'tok', { mode: (verb) => (verb === 'get' ? 'query' : 'header') });
    await byFunction.get('res');
    expect(last().query.get('access_token')).toBe('tok');
    await byFunction.post('res');
    expect(last().headers.authorization).toBe('Bearer tok');
    const byObject = new AccessToken(client, 'tok', { mode: { get: 'query', post: 'header' } });
    await byObject.get('res');
    expect(last().query.get('access_token')).toBe('tok');
    await byObject.post('res');
    expect(last().headers.authorization).toBe('Bearer tok');
    // A verb without an entry falls back to the header, as in the gem.
    await byObject.put('res');
    expect(last().headers.authorization).toBe('Bearer tok');
    expect(last().query.has('access_token')).toBe(false);
  });

  it('request(verb, …) with headers and an absolute URL', async () => {
    const response = await new AccessToken(client, 'tok').request('patch', `${server.origin}/abs`, { headers: { 'X-A': '1' }, body: '{"x":1}' });
    expect(response.status).toBe(200);
    expect(last()).toMatchObject({ method: 'PATCH', path: '/abs', body: '{"x":1}' });
    expect(last().headers['x-a']).toBe('1');
  });
});

describe('refresh and revoke', () => {
  it('refresh: grant_type=refresh_token; keeps options; keeps the old refresh token when none is returned', async () => {
    tokenResponse = { access_token: 'new-access', expires_in: 60 };
    const old = new AccessToken(client, 'old', { refreshToken: 'old-refresh', mode: 'query', expiresLatency: 1000 });
    const fresh = await old.refresh({ scope: 'narrow' });
    expect(Object.fromEntries(last().form)).toEqual({ scope: 'narrow', grant_type: 'refresh_token', refresh_token: 'old-refresh' });
    expect(last().headers.authorization).toMatch(/^Basic /);
    expect(fresh.token).toBe('new-access');
    expect(fresh.refreshToken).toBe('old-refresh');
    expect(fresh.mode).toBe('query');
    expect(fresh.expiresLatency).toBe(1000);
  });

  it('refresh: a returned refresh token replaces the old one', async () => {
    tokenResponse = { access_token: 'new-access', refresh_token: 'rotated' };
    expect((await new AccessToken(client, 'old', { refreshToken: 'old-refresh' }).refresh()).refreshToken).toBe('rotated');
  });

  it('refresh keeps the subclass', async () => {
    class MyToken extends AccessToken {}
    tokenResponse = { access_token: 'n' };
    expect(await new MyToken(client, 'o', { refreshToken: 'r' }).refresh()).toBeInstanceOf(MyToken);
  });

  it('refresh without a refresh token is a clear error', async () => {
    await expect(new AccessToken(client, 'a').refresh()).rejects.toThrow(/refresh_token is not available/);
  });

  it('revoke: URL-encoded token and hint (RFC 7009), client authenticated; default hint access_token', async () => {
    const token = new AccessToken(client, 'acc+ess/=', { refreshToken: 'ref resh' });
    await token.revoke();
    expect(last().path).toBe('/oauth/revoke');
    expect(last().headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(last().body).toBe('token_type_hint=access_token&token=acc%2Bess%2F%3D');
    expect(last().headers.authorization).toMatch(/^Basic /);
    await token.revoke({ tokenTypeHint: 'refresh_token' });
    expect(Object.fromEntries(last().form)).toEqual({ token_type_hint: 'refresh_token', token: 'ref resh' });
    await new AccessToken(client, '', { refreshToken: 'only-refresh' }).revoke();
    expect(Object.fromEntries(last().form)).toEqual({ token_type_hint: 'refresh_token', token: 'only-refresh' });
  });

  it('revoke: an unknown hint or a missing token is a clear error', async () => {
    const token = new AccessToken(client, 'a');
    await expect(token.revoke({ tokenTypeHint: 'id_token' as 'access_token' })).rejects.toThrow(/tokenTypeHint/);
    await expect(token.revoke({ tokenTypeHint: 'refresh_token' })).rejects.toThrow(/no refresh_token/);
  });

  it('client.revokeToken with extra params', async () => {
    await client.revokeToken('t', undefined, { reason: 'logout' });
    expect(Object.fromEntries(last().form)).toEqual({ reason: 'logout', token: 't' });
  });

  it('accessTokenClass: getToken builds the configured class', async () => {
    class MyToken extends AccessToken {}
    tokenResponse = { access_token: 'n' };
    const c = new OAuth2Client('id', 's', { site: server.url, accessTokenClass: MyToken });
    try {
      expect(await c.clientCredentials.getToken()).toBeInstanceOf(MyToken);
    } finally {
      await c.close();
    }
  });
});
