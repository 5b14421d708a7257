import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccessToken, OAuth2Client, OAuth2Error, OAuth2RedirectError } from '@channel-graph/oauth2';
import { json, startServer, type TestServer } from './support/servers.js';

/** Every secret a run below uses; none may appear in the debug log, in inspect output or in JSON. */
const SECRETS = {
  clientSecret: 'client-secret-Q1w2',
  sitePassword: 'site-password-E3r4',
  password: 'user-password-T5y6',
  code: 'auth-code-U7i8',
  verifier: 'pkce-verifier-O9p0',
  camelAccess: 'camel-access-A1s2',
  camelRefresh: 'camel-refresh-D3f4',
  camelId: 'camel-id-G5h6',
  fragmentToken: 'fragment-token-J7k8',
  redirectCode: 'redirect-code-L9z0',
  subjectToken: 'subject-token-X1c2',
  actorToken: 'actor-token-V3b4',
  deviceCode: 'device-code-N5m6',
  textAccess: 'text-access-Q7w8',
  textRefresh: 'text-refresh-E9r0',
  bodyModeToken: 'body-mode-T1y2',
  queryModeToken: 'query-mode-U3i4',
};

let server: TestServer;
let other: TestServer;
beforeAll(async () => {
  other = await startServer((_request, response) => json(response, 200, { landed: true }));
  server = await startServer((request, response) => {
    switch (request.path) {
      case '/oauth/token':
        // camelCase keys, which the client itself accepts (AccessToken.fromHash)
        return json(response, 200, { accessToken: SECRETS.camelAccess, refreshToken: SECRETS.camelRefresh, idToken: SECRETS.camelId, tokenType: 'Bearer' });
      case '/implicit-callback':
        return response.writeHead(302, { location: `/landing#access_token=${SECRETS.fragmentToken}&token_type=bearer&state=s` }).end();
      case '/code-callback':
        return response.writeHead(302, { location: `http://app.invalid/cb?code=${SECRETS.redirectCode}&state=s` }).end();
      case '/text':
        return response.writeHead(200, { 'content-type': 'text/plain' }).end(`access_token: ${SECRETS.textAccess}\nrefreshToken:${SECRETS.textRefresh}\nscope: read`);
      case '/cross-307':
        return response.writeHead(307, { location: `${other.origin}/stolen` }).end();
      case '/cross-308':
        return response.writeHead(308, { location: `${other.origin}/stolen` }).end();
      case '/cross-303':
        return response.writeHead(303, { location: `${other.origin}/landing` }).end();
      case '/same-307':
        return response.writeHead(307, { location: '/oauth/token' }).end();
      default:
        return json(response, 200, { ok: true });
    }
  });
});
afterAll(async () => {
  await Promise.all([server.close(), other.close()]);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function capture() {
  const lines: string[] = [];
  return { lines, logger: { debug: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) } };
}

function assertNoSecret(text: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) expect(text, `${name} leaked`).not.toContain(secret);
  expect(text).not.toContain(Buffer.from(`id:${SECRETS.clientSecret}`).toString('base64'));
}

describe('OAUTH_DEBUG=true: the whole debug log of a run holds none of the secrets it used', () => {
  it('camelCase token keys, Location fragments and codes, token exchange and device grants, a site password, key: value text', async () => {
    vi.stubEnv('OAUTH_DEBUG', 'true');
    const { lines, logger } = capture();
    const client = new OAuth2Client('id', SECRETS.clientSecret, { site: server.url, authScheme: 'request_body', logger });
    const withPassword = new OAuth2Client('id', SECRETS.clientSecret, { site: `http://user:${SECRETS.sitePassword}@127.0.0.1:${new URL(server.url).port}/`, logger });
    try {
      const token = await client.authCode.getToken(SECRETS.code, { codeVerifier: SECRETS.verifier });
      expect(token.token).toBe(SECRETS.camelAccess);
      await client.password.getToken('alice', SECRETS.password);
      await client.getToken({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: SECRETS.subjectToken, actor_token: SECRETS.actorToken });
      await client.getToken({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: SECRETS.deviceCode });
      await client.request('get', 'implicit-callback', { raiseErrors: false });
      await client.request('get', 'code-callback', { raiseErrors: false, signal: AbortSignal.timeout(5_000) }).catch(() => undefined); // app.invalid does not resolve
      await client.request('get', 'text');
      await new AccessToken(client, SECRETS.bodyModeToken, { mode: 'body' }).post('resource', { body: { a: '1' } });
      await new AccessToken(client, SECRETS.queryModeToken, { mode: 'query' }).get('resource');
      await token.refresh();
      // A URL with user info cannot be fetched (fetch refuses credentials in URLs), but it is logged first.
      await withPassword.request('get', 'resource').catch(() => undefined);
    } finally {
      await Promise.all([client.close(), withPassword.close()]);
    }
    const log = lines.join('\n');
    // It is a real log: requests, responses and bodies are in it.
    expect(log).toContain('oauth2 request: POST');
    expect(log).toContain('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange');
    expect(log).toContain('"tokenType":"Bearer"');
    expect(log).toContain('scope: read');
    expect(log).toContain('"location":"/landing#access_token=[REDACTED]&token_type=bearer&state=s"');
    expect(log).toContain('"location":"http://app.invalid/cb?code=[REDACTED]&state=s"');
    expect(log).toContain(`user:${encodeURIComponent('[REDACTED]')}@127.0.0.1`);
    assertNoSecret(log);
  });
});

describe('util.inspect and JSON.stringify hide secrets', () => {
  it('the client: no secret, no signing key, no site password', () => {
    const client = new OAuth2Client('id', SECRETS.clientSecret, {
      site: `https://user:${SECRETS.sitePassword}@auth.example.test/`,
      clientAssertionKey: { key: SECRETS.password, alg: 'HS256' },
    });
    const shown = inspect(client, { depth: 10 });
    expect(shown).toContain("id: 'id'");
    expect(shown).toContain("secret: '[REDACTED]'");
    assertNoSecret(shown);
    assertNoSecret(JSON.stringify(client));
    void client.close();
  });

  it('the access token: no token, refresh token, id_token, client secret or response body', async () => {
    const client = new OAuth2Client('id', SECRETS.clientSecret, { site: server.url });
    try {
      const token = await client.clientCredentials.getToken();
      expect(token.response?.status).toBe(200);
      for (const shown of [inspect(token, { depth: 10 }), JSON.stringify(token), inspect(token.response, { depth: 10 }), inspect([token], { depth: 10 })]) assertNoSecret(shown);
      expect(inspect(token)).toContain("token: '[REDACTED]'");
      expect(token.toHash().access_token).toBe(SECRETS.camelAccess); // toHash is for storage and keeps it
    } finally {
      await client.close();
    }
  });

  it('an OAuth2Error printed with console.log shows its response redacted', async () => {
    const errorServer = await startServer((_request, response) => json(response, 400, { error: 'invalid_grant', refresh_token: SECRETS.camelRefresh }));
    const client = new OAuth2Client('id', SECRETS.clientSecret, { site: errorServer.url });
    try {
      const error = await client.clientCredentials.getToken().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OAuth2Error);
      const shown = inspect(error, { depth: 10 });
      expect(shown).toContain('invalid_grant');
      assertNoSecret(shown);
    } finally {
      await client.close();
      await errorServer.close();
    }
  });
});

describe('credentials never go to another origin on a redirect', () => {
  it('a token request answered 307 or 308 to another origin is refused with OAuth2RedirectError; nothing reaches the other origin', async () => {
    for (const path of ['cross-307', 'cross-308']) {
      const before = other.requests.length;
      for (const authScheme of ['request_body', 'basic_auth'] as const) {
        const client = new OAuth2Client('id', SECRETS.clientSecret, { site: server.url, tokenUrl: path, authScheme });
        try {
          const error = (await client.password.getToken('alice', SECRETS.password).catch((e: unknown) => e)) as OAuth2RedirectError;
          expect(error).toBeInstanceOf(OAuth2RedirectError);
          expect(error).toBeInstanceOf(OAuth2Error);
          expect(error.message).toBe(
            `refused to follow the ${path.slice(-3)} redirect from ${server.origin} to ${other.origin}: the request body carries credentials, which are never sent to another origin`,
          );
          expect(error.response.status).toBe(Number(path.slice(-3)));
        } finally {
          await client.close();
        }
      }
      expect(other.requests.length).toBe(before);
    }
  });

  it('revocation and a body-mode resource request are refused the same way; a 303 (no body) is followed without credentials', async () => {
    const client = new OAuth2Client('id', SECRETS.clientSecret, { site: server.url, revokeUrl: 'cross-307', authScheme: 'request_body' });
    try {
      await expect(client.revokeToken(SECRETS.camelRefresh)).rejects.toBeInstanceOf(OAuth2RedirectError);
      await expect(new AccessToken(client, SECRETS.bodyModeToken, { mode: 'body' }).post('cross-308', { body: { a: '1' } })).rejects.toBeInstanceOf(OAuth2RedirectError);
      const before = other.requests.length;
      const followed = await new AccessToken(client, SECRETS.bodyModeToken, { mode: 'body' }).post('cross-303', { body: { a: '1' } });
      expect(followed.parsed).toMatchObject({ landed: true });
      const landed = other.requests.at(-1);
      expect(other.requests.length).toBe(before + 1);
      expect(landed).toMatchObject({ method: 'GET', body: '' });
      expect(landed?.headers.authorization).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('a same-origin 307 keeps the body and the credentials (the token endpoint moved on its own host)', async () => {
    const client = new OAuth2Client('id', SECRETS.clientSecret, { site: server.url, tokenUrl: 'same-307', authScheme: 'request_body' });
    try {
      expect((await client.clientCredentials.getToken()).token).toBe(SECRETS.camelAccess);
      expect(server.requests.at(-1)?.form.get('client_secret')).toBe(SECRETS.clientSecret);
    } finally {
      await client.close();
    }
  });
});
