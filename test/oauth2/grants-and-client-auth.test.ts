import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicCredentials, OAuth2Client, OAuth2UsageError } from '@channel-graph/oauth2';
import { signJwt } from '@channel-graph/oauth2/assertion';
import { undiciPool } from '@channel-graph/oauth2/undici';
import { createTestPki, type TestPki } from './support/certs.js';
import { startServer, type TestServer, tokenHandler } from './support/servers.js';

let server: TestServer;
let pki: TestPki;
const clients: OAuth2Client[] = [];
function client(id: string | null, secret: string | null, options: ConstructorParameters<typeof OAuth2Client>[2] = {}): OAuth2Client {
  const created = new OAuth2Client(id, secret, { site: server.url, signJwt, ...options });
  clients.push(created);
  return created;
}
const last = () => {
  const recorded = server.requests.at(-1);
  if (recorded === undefined) throw new Error('no request recorded');
  return recorded;
};

beforeAll(async () => {
  server = await startServer(tokenHandler);
  pki = createTestPki();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
});

describe('client authentication (authScheme)', () => {
  it('basic_auth (default): id and secret form-urlencoded, then base64 in the Basic header (RFC 6749 §2.3.1)', async () => {
    await client('client id:1', 'sec ret+/%').clientCredentials.getToken();
    const header = last().headers.authorization ?? '';
    expect(Buffer.from(header.replace(/^Basic /, ''), 'base64').toString()).toBe('client+id%3A1:sec+ret%2B%2F%25');
    expect(header).toBe(basicCredentials('client id:1', 'sec ret+/%'));
    expect(last().form.has('client_secret')).toBe(false);
    expect(last().form.has('client_id')).toBe(false);
  });

  it('request_body: client_id and client_secret in the form body, no Authorization header', async () => {
    await client('id-1', 'secret-1', { authScheme: 'request_body' }).clientCredentials.getToken();
    expect(last().form.get('client_id')).toBe('id-1');
    expect(last().form.get('client_secret')).toBe('secret-1');
    expect(last().headers.authorization).toBeUndefined();
  });

  it('a public client (no secret) sends only client_id (RFC 6749 §3.2.1); no id sends nothing', async () => {
    await client('public-app', null).authCode.getToken('code-1');
    expect(last().form.get('client_id')).toBe('public-app');
    expect(last().headers.authorization).toBeUndefined();
    await client(null, null).clientCredentials.getToken();
    expect(last().form.has('client_id')).toBe(false);
    expect(last().headers.authorization).toBeUndefined();
  });

  it('tls_client_auth: the client certificate authenticates over mutual TLS; client_id in the body', async () => {
    const tlsServer = await startServer(tokenHandler, { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: true });
    try {
      const c = client('mtls-client', null, {
        site: tlsServer.url,
        authScheme: 'tls_client_auth',
        connection: { pool: undiciPool({ tls: { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert } }) },
      });
      const token = await c.clientCredentials.getToken();
      expect(token.token).toBe('issued-access');
      const recorded = tlsServer.requests.at(-1);
      expect(recorded?.clientCertCn).toBe('oauth2-test-client');
      expect(recorded?.form.get('client_id')).toBe('mtls-client');
      expect(recorded?.headers.authorization).toBeUndefined();
      // Without the certificate the handshake is refused.
      const noCert = client('mtls-client', null, { site: tlsServer.url, authScheme: 'tls_client_auth', connection: { pool: undiciPool({ tls: { ca: pki.caCert } }) } });
      await expect(noCert.clientCredentials.getToken()).rejects.toMatchObject({ name: 'OAuth2ConnectionError' });
    } finally {
      await tlsServer.close();
    }
  });

  it('private_key_jwt: a client assertion verifiable with the public key (RFC 7523 §2.2)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    await client('jwt-app', null, { authScheme: 'private_key_jwt', clientAssertionKey: { key: privateKey, alg: 'ES256', kid: 'k1' } }).clientCredentials.getToken();
    const form = last().form;
    expect(form.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(form.get('client_id')).toBe('jwt-app');
    const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] });
    const { payload, protectedHeader } = await jwtVerify(form.get('client_assertion') ?? '', jwks, { issuer: 'jwt-app', subject: 'jwt-app', audience: `${server.origin}/oauth/token` });
    expect(protectedHeader.kid).toBe('k1');
    expect(payload.jti).toBeTruthy();
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(60);
  });

  it('private_key_jwt without a key is a clear error', async () => {
    await expect(client('jwt-app', null, { authScheme: 'private_key_jwt' }).clientCredentials.getToken()).rejects.toThrow(/clientAssertionKey/);
  });

  it('private_key_jwt and the assertion grant without a signer: an OAuth2UsageError naming the subpath that has one, nothing sent', async () => {
    const unsigned = new OAuth2Client('jwt-app', null, { site: server.url, authScheme: 'private_key_jwt', clientAssertionKey: { key: 'k'.repeat(32), alg: 'HS256' } });
    clients.push(unsigned);
    const before = server.requests.length;
    for (const attempt of [() => unsigned.clientCredentials.getToken(), () => unsigned.assertion.getToken({ claims: { iss: 'a' }, algorithm: 'HS256', key: 'k'.repeat(32) })]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OAuth2UsageError);
      expect((error as Error).message).toContain("'@channel-graph/oauth2/assertion'");
    }
    expect(server.requests.length).toBe(before);
  });
});

describe('grants on the wire (form-encoded, RFC 6749 §4)', () => {
  it('authorization code: grant_type, code, the client redirect_uri, code_verifier, extra headers', async () => {
    const c = client('id', 'secret', { redirectUri: 'https://app.test/cb' });
    await c.authCode.getToken('the-code', { codeVerifier: 'verifier-1', headers: { 'X-Trace': 't1' } });
    const recorded = last();
    expect(recorded.method).toBe('POST');
    expect(recorded.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(recorded.headers['x-trace']).toBe('t1');
    expect(Object.fromEntries(recorded.form)).toEqual({ grant_type: 'authorization_code', code: 'the-code', redirect_uri: 'https://app.test/cb', code_verifier: 'verifier-1' });
  });

  it('password: username, password, scope', async () => {
    await client('id', 'secret').password.getToken('alice', 'p@ss word', { scope: 'read' });
    expect(Object.fromEntries(last().form)).toEqual({ grant_type: 'password', username: 'alice', password: 'p@ss word', scope: 'read' });
  });

  it('client_credentials: audience and resource params', async () => {
    await client('id', 'secret').clientCredentials.getToken({ audience: 'https://api.test', scope: undefined });
    expect(Object.fromEntries(last().form)).toEqual({ grant_type: 'client_credentials', audience: 'https://api.test' });
  });

  it('jwt-bearer assertion (RFC 7523 §2.1), RS256 with kid, verified with jose', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const claims = { iss: 'svc@example.test', sub: 'user-7', aud: `${server.origin}/oauth/token`, exp: Math.floor(Date.now() / 1000) + 300 };
    const token = await client('id', 'secret').assertion.getToken({ claims, algorithm: 'RS256', key: privateKey, kid: 'rsa-1' }, { scope: 'read' });
    expect(token.token).toBe('issued-access');
    const form = last().form;
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(form.get('scope')).toBe('read');
    const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', publicKey, { issuer: claims.iss, audience: claims.aud });
    expect(payload.sub).toBe('user-7');
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: 'rsa-1' });
  });

  it('jwt-bearer assertion with an HMAC shared secret (HS256)', async () => {
    const secret = 'a-shared-secret-of-at-least-32-bytes!!';
    await client('id', 'secret').assertion.getToken({ claims: { iss: 'a', sub: 'b', aud: 'c', exp: Math.floor(Date.now() / 1000) + 60 }, algorithm: 'HS256', key: secret });
    const { payload } = await jwtVerify(last().form.get('assertion') ?? '', new TextEncoder().encode(secret));
    expect(payload.iss).toBe('a');
  });

  it('generic getToken: any grant_type and parameters', async () => {
    const token = await client('id', 'secret').getToken({ grant_type: 'refresh_token', refresh_token: 'r-1', scope: 'a' }, { expiresLatency: 5000 });
    expect(Object.fromEntries(last().form)).toEqual({ grant_type: 'refresh_token', refresh_token: 'r-1', scope: 'a' });
    expect(token.expiresLatency).toBe(5000);
  });
});
