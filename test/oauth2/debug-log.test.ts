import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccessToken, OAuth2Client, redactBody } from '@channel-graph/oauth2';
import { json, startServer, type TestServer } from './support/servers.js';

const SECRETS = {
  clientSecret: 'client-secret-XyZ',
  password: 'hunter2-password',
  code: 'auth-code-QwE',
  verifier: 'pkce-verifier-RtY',
  accessToken: 'access-token-AsD',
  refreshToken: 'refresh-token-FgH',
  idToken: 'id-token-JkL',
  assertion: 'unused',
  cookie: 'session=cookie-ZxC',
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.path === '/oauth/token') {
      json(response, 200, { access_token: SECRETS.accessToken, refresh_token: SECRETS.refreshToken, id_token: SECRETS.idToken, token_type: 'Bearer' }, { 'set-cookie': SECRETS.cookie });
    } else if (request.path === '/form') {
      response.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end(`access_token=${SECRETS.accessToken}&scope=read`);
    } else {
      json(response, 200, { ok: true });
    }
  });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function capture() {
  const lines: string[] = [];
  return { lines, logger: { debug: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) } };
}

describe('OAUTH_DEBUG logging', () => {
  it('logs every request and response with bodies, and no secret appears in the log', async () => {
    vi.stubEnv('OAUTH_DEBUG', 'true');
    const { lines, logger } = capture();
    const client = new OAuth2Client('debug-client', SECRETS.clientSecret, { site: server.url, authScheme: 'request_body', logger });
    try {
      await client.password.getToken('alice', SECRETS.password);
      const token = await client.authCode.getToken(SECRETS.code, { codeVerifier: SECRETS.verifier });
      await token.refresh();
      await token.revoke({ tokenTypeHint: 'refresh_token' });
      await new AccessToken(client, SECRETS.accessToken, { mode: 'query' }).get('resource');
      await token.get('resource', { headers: { Cookie: SECRETS.cookie } });
      await token.get('form');
      const basic = new OAuth2Client('debug-client', SECRETS.clientSecret, { site: server.url, logger });
      await basic.clientCredentials.getToken();
      await basic.close();
    } finally {
      await client.close();
    }
    const log = lines.join('\n');
    expect(log).toContain('oauth2 request: POST');
    expect(log).toContain('oauth2 response: 200');
    expect(log).toContain('grant_type=password');
    expect(log).toContain('username=alice');
    expect(log).toContain('"token_type":"Bearer"');
    expect(log).toContain('scope=read');
    expect(log).toContain('[REDACTED]');
    for (const secret of Object.values(SECRETS)) expect(log).not.toContain(secret);
    expect(log).not.toContain(Buffer.from(`debug-client:${SECRETS.clientSecret}`).toString('base64'));
  });

  it('logs nothing when OAUTH_DEBUG is not true', async () => {
    vi.stubEnv('OAUTH_DEBUG', 'false');
    const { lines, logger } = capture();
    const client = new OAuth2Client('c', 's', { site: server.url, logger });
    await client.request('get', 'resource');
    await client.close();
    expect(lines).toEqual([]);
  });

  it('redacts secrets in bodies that are neither JSON nor a form', () => {
    expect(redactBody('oops: {"refresh_token": "abc\\"def", "n": 1} and password=pw1 tail')).toBe('oops: {"refresh_token": "[REDACTED]", "n": 1} and password=[REDACTED] tail');
    expect(redactBody('[{"id_token":"x"}]')).toBe('[{"id_token":"[REDACTED]"}]');
  });
});
