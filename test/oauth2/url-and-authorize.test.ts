import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuth2Client } from '@channel-graph/oauth2';
import { startServer, type TestServer, tokenHandler } from './support/servers.js';

let server: TestServer;
const clients: OAuth2Client[] = [];
function client(id: string | null, secret: string | null, options: ConstructorParameters<typeof OAuth2Client>[2] = {}): OAuth2Client {
  const created = new OAuth2Client(id, secret, options);
  clients.push(created);
  return created;
}

beforeAll(async () => {
  server = await startServer(tokenHandler);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
});

describe('URL resolution against site', () => {
  it('a path without leading / is relative to the site path', async () => {
    await client('id', 'secret', { site: `${server.origin}/api/v1` }).clientCredentials.getToken();
    expect(server.requests.at(-1)?.path).toBe('/api/v1/oauth/token');
    expect(client('id', null, { site: `${server.origin}/api/v1/` }).authorizeUrl()).toBe(`${server.origin}/api/v1/oauth/authorize`);
  });

  it('a path with a leading / drops the site path', async () => {
    await client('id', 'secret', { site: `${server.origin}/api/v1`, tokenUrl: '/token' }).clientCredentials.getToken();
    expect(server.requests.at(-1)?.path).toBe('/token');
  });

  it('an absolute URL is used as is, for endpoints and resource requests', async () => {
    const c = client('id', 'secret', { site: 'http://unused.invalid/base', tokenUrl: `${server.origin}/elsewhere/token` });
    await c.clientCredentials.getToken();
    expect(server.requests.at(-1)?.path).toBe('/elsewhere/token');
    await c.request('get', `${server.origin}/absolute?x=1`, { params: { y: 2 } });
    expect(server.requests.at(-1)?.url).toBe('/absolute?x=1&y=2');
  });

  it('a relative path without site is a clear error', () => {
    expect(() => client('id', null).authorizeUrl()).toThrow(/no site/);
  });
});

describe('authorization URLs', () => {
  const site = 'https://auth.example.test/tenant';

  it('auth code: client_id, encoded redirect_uri, response_type=code, then extras; nil params omitted', () => {
    const url = client('my id', null, { site, redirectUri: 'https://app.test/cb?x=1' }).authCode.authorizeUrl({
      scope: 'openid profile',
      state: 's1',
      nonce: undefined,
      prompt: null,
    });
    expect(url).toBe(
      'https://auth.example.test/tenant/oauth/authorize?client_id=my+id&redirect_uri=https%3A%2F%2Fapp.test%2Fcb%3Fx%3D1&response_type=code&scope=openid+profile&state=s1',
    );
  });

  it('without a redirect_uri none is set; params can supply one', () => {
    const c = client('id', null, { site });
    expect(new URL(c.authCode.authorizeUrl()).searchParams.has('redirect_uri')).toBe(false);
    expect(new URL(c.authCode.authorizeUrl({ redirect_uri: 'https://x.test/cb' })).searchParams.get('redirect_uri')).toBe('https://x.test/cb');
  });

  it('implicit: response_type=token', () => {
    const url = new URL(client('id', null, { site, redirectUri: 'https://app.test/cb' }).implicit.authorizeUrl({ state: 'abc' }));
    expect(url.searchParams.get('response_type')).toBe('token');
    expect(url.searchParams.get('state')).toBe('abc');
  });

  it('PKCE: codeChallenge → code_challenge + code_challenge_method=S256', () => {
    const url = new URL(client('id', null, { site }).authCode.authorizeUrl({ codeChallenge: 'abc123' }));
    expect(url.searchParams.get('code_challenge')).toBe('abc123');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('refuses a client_secret in the authorization URL', () => {
    expect(() => client('id', 'secret', { site }).authCode.authorizeUrl({ client_secret: 'secret' })).toThrow(/client_secret/);
    expect(() => client('id', 'secret', { site }).implicit.authorizeUrl({ client_secret: 'secret' })).toThrow(/client_secret/);
  });
});

describe('parameter encoding', () => {
  it('nested (default): arrays as key[]=, objects as key[sub]=, in query and form body', async () => {
    const c = client('id', 'secret', { site: server.url });
    await c.request('post', 'things', { params: { tag: ['a', 'b'], skip: null }, body: { resource: ['r1', 'r2'], meta: { k: 'v' }, none: undefined } });
    const recorded = server.requests.at(-1);
    expect(recorded?.url).toBe('/things?tag%5B%5D=a&tag%5B%5D=b');
    expect(recorded?.body).toBe('resource%5B%5D=r1&resource%5B%5D=r2&meta%5Bk%5D=v');
    expect(recorded?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('flat: arrays as repeated keys (e.g. RFC 8707 resource) in query, form body and authorize URL', async () => {
    const c = client('id', 'secret', { site: server.url, connection: { paramsEncoder: 'flat' } });
    await c.clientCredentials.getToken({ resource: ['https://a.test', 'https://b.test'] });
    expect(server.requests.at(-1)?.form.getAll('resource')).toEqual(['https://a.test', 'https://b.test']);
    await c.request('get', 'things', { params: { tag: ['a', 'b'] } });
    expect(server.requests.at(-1)?.url).toBe('/things?tag=a&tag=b');
    expect(new URL(c.authCode.authorizeUrl({ resource: ['x', 'y'] })).searchParams.getAll('resource')).toEqual(['x', 'y']);
  });
});
