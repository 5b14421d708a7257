import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AccessToken,
  OAuth2BaseError,
  OAuth2Client,
  OAuth2Error,
  OAuth2ParseError,
  OAuth2UsageError,
  SnakyHash,
} from '@channel-graph/oauth2';
import { json, type Recorded, startServer, type TestServer } from './support/servers.js';

/**
 * The reference interface (shared/reference/oauth2-client-interface.md), section by section. Tests
 * here are named `[section] rule`; the rules already checked in depth elsewhere:
 *
 * Client: URL resolution rule → url-and-authorize "URL resolution against site"; redirect_uri →
 *   url-and-authorize "authorization URLs"; connection_opts (timeout, open_timeout, proxy, ssl,
 *   params_encoder) → transport "connection: …", deadlines, url-and-authorize "parameter encoding";
 *   raise_errors → transport "errors (raiseErrors)"; max_redirects → transport "redirects".
 * AccessToken: from_hash / from_kvform / token_name / warnings → access-token "AccessToken.fromHash…";
 *   expired? → access-token "expiry"; to_hash → access-token "toHash() → fromHash() round trip";
 *   get/post/put/delete/request and mode → access-token "sending the token (mode)"; refresh, revoke →
 *   access-token "refresh and revoke", oidc-provider, node-oauth2-server.
 * Response: parsed rules 1–7, snaky, snaky_hash_klass (dump/load, hooks) → parse "OAuth2Response.parsed".
 * Error: code, description, response → transport "errors (raiseErrors)", oidc-provider "a wrong secret…".
 * Global configuration: configure warnings → access-token; OAUTH_DEBUG → debug-log, secrets.
 * Library operations: every strategy and get_token → grants-and-client-auth "grants on the wire",
 *   contract; assertion (claims, algorithm, key, kid) → grants-and-client-auth "jwt-bearer …".
 * Wire behaviour 1 → url-and-authorize; 2 → grants-and-client-auth + here; 3 (id_token returned, not
 *   validated) → oidc-provider "end to end"; 4 → access-token "mode"; 5 → transport "redirects",
 *   secrets "credentials never go to another origin"; 6 → access-token "revoke: URL-encoded …";
 *   7 → transport "mutual TLS applies to the site and to absolute URLs"; 8 → url-and-authorize "flat".
 * Authentication auth_scheme → grants-and-client-auth "client authentication", node-oauth2-server;
 *   mode table → access-token "sending the token (mode)" + here.
 * Application duties: state → authorize-command "a state mismatch…"; PKCE → oidc-provider,
 *   node-oauth2-server, sandbox oauth-token.
 * Errors table → transport "errors (raiseErrors)", access-token "silence…Warning". Limits →
 *   transport "stops after maxRedirects", deadlines.
 */
let server: TestServer;
const clients: OAuth2Client[] = [];
let tokenAnswer: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{"access_token":"a"}' };

function client(options: ConstructorParameters<typeof OAuth2Client>[2] = {}, id: string | null = 'cid', secret: string | null = 'csecret'): OAuth2Client {
  const created = new OAuth2Client(id, secret, { site: server.url, ...options });
  clients.push(created);
  return created;
}
const last = (): Recorded => server.requests.at(-1) as Recorded;

beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.path === '/oauth/token') response.writeHead(tokenAnswer.status, { 'content-type': tokenAnswer.type }).end(tokenAnswer.body);
    else json(response, 200, { path: request.path });
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
});

describe('[OAuth2::Client] options', () => {
  it('[Client] auth_scheme default is basic_auth; an unknown auth_scheme is refused (never silently no credentials)', async () => {
    await client().clientCredentials.getToken();
    expect(last().headers.authorization).toMatch(/^Basic /);
    expect(() => client({ authScheme: 'header' as 'basic_auth' })).toThrow(OAuth2UsageError);
    expect(() => client({ authScheme: 'header' as 'basic_auth' })).toThrow(/unknown authScheme "header"/);
  });

  it('[Client] id and secret may be nil', async () => {
    await client({}, null, null).clientCredentials.getToken();
    expect(last().headers.authorization).toBeUndefined();
    expect(last().form.has('client_id')).toBe(false);
  });

  it('[Client] logger receives debug output when debug is on (default: the console)', async () => {
    vi.stubEnv('OAUTH_DEBUG', 'true');
    const lines: string[] = [];
    try {
      await client({ logger: { debug: (line: string) => lines.push(line), warn: () => undefined } }).request('get', 'x');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(lines[0]).toMatch(/^oauth2 request: GET /);
    expect(client().logger).toBe(console);
  });

  it('[Client] strategy accessors auth_code, implicit, password, client_credentials, assertion', () => {
    const c = client();
    expect([c.authCode, c.implicit, c.password, c.clientCredentials, c.assertion].every((strategy) => typeof strategy === 'object')).toBe(true);
  });
});

describe('[OAuth2::AccessToken] options and members', () => {
  it('[AccessToken] expires_latency in a hash is in seconds and is subtracted from expires_at (the option expiresLatency is in ms)', () => {
    const now = Math.floor(Date.now() / 1000);
    const fromHash = AccessToken.fromHash(client(), { access_token: 'a', expires_at: now + 600, expires_latency: 300 });
    expect(fromHash.expiresAt).toBe(now + 300);
    expect(fromHash.expiresLatency).toBe(300_000);
    // A hash the gem wrote (latency in seconds) is not read 1000× too short.
    expect(fromHash.expired()).toBe(false);
    expect(AccessToken.fromHash(client(), { access_token: 'a', expires_at: now + 600, expires_latency: 700 }).expired()).toBe(true);
    const option = new AccessToken(client(), 'a', { expiresAt: now + 600, expiresLatency: 300_000 });
    expect(option.expiresAt).toBe(now + 300);
  });

  it('[AccessToken] to_hash leaves expires_latency out (already in expires_at) and from_hash rebuilds the same expiry', () => {
    const now = Math.floor(Date.now() / 1000);
    const token = AccessToken.fromHash(client(), { access_token: 'a', refresh_token: 'r', expires_at: now + 600, expires_latency: 60 });
    const hash = token.toHash();
    expect(hash).not.toHaveProperty('expires_latency');
    expect(hash.expires_at).toBe(now + 540);
    expect(AccessToken.fromHash(client(), hash).expiresAt).toBe(now + 540);
  });

  it('[AccessToken] a token endpoint answer with expires_latency (seconds) is read the same way', async () => {
    tokenAnswer = { status: 200, type: 'application/json', body: JSON.stringify({ access_token: 'a', expires_in: 3600, expires_latency: 600 }) };
    const now = Math.floor(Date.now() / 1000);
    const token = await client().clientCredentials.getToken();
    expect(token.expiresAt).toBeGreaterThanOrEqual(now + 3000);
    expect(token.expiresAt).toBeLessThanOrEqual(now + 3001);
  });

  it('[AccessToken] the legacy expires key of from_hash is expires_in', () => {
    const token = AccessToken.fromHash(client(), { access_token: 'a', expires: '120' });
    expect(token.expiresIn).toBe(120);
    expect(token.params).not.toHaveProperty('expires');
    expect(AccessToken.fromHash(client(), { access_token: 'a', expires_in: 60, expires: 999 }).expiresIn).toBe(60);
  });

  it('[AccessToken] response: the token endpoint response the token came from', async () => {
    tokenAnswer = { status: 200, type: 'application/json', body: '{"access_token":"a","scope":"s"}' };
    const token = await client().clientCredentials.getToken();
    expect(token.response?.status).toBe(200);
    expect(token.response?.parsed).toMatchObject({ scope: 's' });
    expect(new AccessToken(client(), 'x').response).toBeUndefined();
  });

  it('[AccessToken] refresh without a refresh token raises the library error, with a clear message', async () => {
    const error = await new AccessToken(client(), 'a').refresh().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2UsageError);
    expect(error).toBeInstanceOf(OAuth2BaseError);
    expect((error as Error).message).toBe('cannot refresh: a refresh_token is not available (the server issued none)');
  });

  it('[Authentication mode] a Hash without an entry for the verb falls back to header', async () => {
    const token = new AccessToken(client(), 'tok', { mode: { get: 'query' } });
    await token.delete('res');
    expect(last().headers.authorization).toBe('Bearer tok');
    await token.get('res');
    expect(last().query.get('access_token')).toBe('tok');
  });

  it('[AccessToken] request options params, body, headers, snaky', async () => {
    const response = await new AccessToken(client(), 'tok').post('res', { params: { p: '1' }, body: { b: '2' }, headers: { 'X-H': '3' }, snaky: false });
    expect(last()).toMatchObject({ url: '/res?p=1', body: 'b=2' });
    expect(last().headers['x-h']).toBe('3');
    expect(response.parsed).not.toBeInstanceOf(SnakyHash);
  });
});

describe('[OAuth2::Response] parsed', () => {
  it('[Response] malformed JSON under a JSON content type: parsed stays the body string (departure), getToken raises OAuth2ParseError (as the gem raises)', async () => {
    tokenAnswer = { status: 200, type: 'application/json', body: '{"access_token": "trunc' };
    const error = (await client().clientCredentials.getToken().catch((e: unknown) => e)) as OAuth2ParseError;
    expect(error).toBeInstanceOf(OAuth2ParseError);
    expect(error).toBeInstanceOf(OAuth2Error);
    expect(error.message).toBe('the token response (HTTP 200) is labelled application/json but is not JSON');
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.response.parsed).toBe('{"access_token": "trunc');
    // Not labelled JSON: not a parse error, just not a token.
    tokenAnswer = { status: 200, type: 'text/html', body: '<html>' };
    const notToken = await client().clientCredentials.getToken().catch((e: unknown) => e);
    expect(notToken).not.toBeInstanceOf(OAuth2ParseError);
    expect(notToken).toBeInstanceOf(OAuth2Error);
  });
});

describe('[Wire behaviour] token requests', () => {
  it('[Wire 2] a token request with Content-Type: application/json sends JSON, client credentials included (as the gem)', async () => {
    tokenAnswer = { status: 200, type: 'application/json', body: '{"access_token":"a"}' };
    await client({ authScheme: 'request_body' }).password.getToken('alice', 'pw', { scope: undefined, headers: { 'Content-Type': 'application/json' } });
    expect(last().headers['content-type']).toBe('application/json');
    expect(JSON.parse(last().body)).toEqual({ grant_type: 'password', username: 'alice', password: 'pw', client_id: 'cid', client_secret: 'csecret' });
    await client().clientCredentials.getToken({ headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(last().body)).toEqual({ grant_type: 'client_credentials' });
  });

  it('[Wire 2] the default body encoding is application/x-www-form-urlencoded', async () => {
    await client().clientCredentials.getToken({ scope: 'a b' });
    expect(last().headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(last().body).toBe('grant_type=client_credentials&scope=a+b');
  });

  it('[Wire 1] spaces in the authorization URL are + (form encoding, a departure from the gem\'s %20)', () => {
    expect(client().authCode.authorizeUrl({ scope: 'a b' })).toContain('scope=a+b');
  });

  it('[Authentication auth_scheme] basic_auth encodes id and secret by basicAuthEncoding: form (default, RFC 6749 §2.3.1) or plain (as the gem)', async () => {
    await client({}, 'i d', 's+c/r=t').clientCredentials.getToken();
    expect(Buffer.from((last().headers.authorization ?? '').slice(6), 'base64').toString()).toBe('i+d:s%2Bc%2Fr%3Dt');
    await client({ basicAuthEncoding: 'plain' }, 'i d', 's+c/r=t:x').clientCredentials.getToken();
    expect(Buffer.from((last().headers.authorization ?? '').slice(6), 'base64').toString()).toBe('i d:s+c/r=t:x');
  });
});

describe('[Errors]', () => {
  it('[Errors] every error the library raises is an OAuth2BaseError', async () => {
    tokenAnswer = { status: 400, type: 'application/json', body: '{"error":"invalid_grant"}' };
    const failures = await Promise.all([
      client().clientCredentials.getToken().catch((e: unknown) => e),
      new AccessToken(client(), 'a').refresh().catch((e: unknown) => e),
      new AccessToken(client(), 'a').revoke({ tokenTypeHint: 'refresh_token' }).catch((e: unknown) => e),
      client({ site: 'http://127.0.0.1:1/' }).request('get', 'x').catch((e: unknown) => e),
    ]);
    for (const failure of failures) expect(failure).toBeInstanceOf(OAuth2BaseError);
  });

  it('[Errors] raise_errors false: getToken still raises (a departure: there is no token to return)', async () => {
    tokenAnswer = { status: 400, type: 'application/json', body: '{"error":"invalid_grant"}' };
    await expect(client({ raiseErrors: false }).clientCredentials.getToken()).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});
