import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkce, OAuth2Client, type OAuth2ClientOptions, OAuth2Error, OAuth2UsageError } from '@channel-graph/oauth2';
import { RESERVED_CLIENT_ID, type RunningProvider, startProvider } from './support/oidc.js';
import { type RunningNodeServer, startNodeOAuth2Server } from './support/node-oauth2-server.js';

/**
 * A second, independent authorization server: `@node-oauth/oauth2-server` (with `basic-auth`), with
 * an RFC 7009 handler on its model. Every grant the library offers, through the library alone.
 */
let node: RunningNodeServer;
let op: RunningProvider;
const clients: OAuth2Client[] = [];

function client(id: string, secret: string | null, options: OAuth2ClientOptions = {}): OAuth2Client {
  const created = new OAuth2Client(id, secret, { site: node.url, redirectUri: node.redirectUri, revokeUrl: 'oauth/revoke', ...options });
  clients.push(created);
  return created;
}

beforeAll(async () => {
  node = await startNodeOAuth2Server();
  op = await startProvider();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await node.close();
  await op.close();
});

/** Plays the user agent at the authorization endpoint (the server authenticates the user itself). */
async function authorizationCode(c: OAuth2Client, pkce?: ReturnType<typeof createPkce>): Promise<string> {
  const url = c.authCode.authorizeUrl({ state: 'node-state', scope: 'read', ...(pkce === undefined ? {} : { codeChallenge: pkce.challenge }) });
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const callback = new URL(response.headers.get('location') ?? '');
  expect(callback.searchParams.get('state')).toBe('node-state');
  return callback.searchParams.get('code') ?? '';
}

describe('@node-oauth/oauth2-server: grants', () => {
  it('client_credentials with basic_auth', async () => {
    const token = await client('m2m-client', node.clients['m2m-client'] ?? null).clientCredentials.getToken({ scope: 'read' });
    expect(token.token).toMatch(/^[0-9a-f]{40,}$/);
    expect(token.params).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect(token.expiresIn).toBeGreaterThanOrEqual(3590);
    expect(token.expiresIn).toBeLessThanOrEqual(3600);
    expect(token.refreshToken).toBeUndefined(); // RFC 6749 §4.4.3
  });

  it('client_credentials with request_body', async () => {
    const token = await client('m2m-client', node.clients['m2m-client'] ?? null, { authScheme: 'request_body' }).clientCredentials.getToken();
    expect(node.isLive(token.token)).toBe(true);
  });

  it('password', async () => {
    const token = await client('m2m-client', node.clients['m2m-client'] ?? null).password.getToken(node.user.username, node.user.password, { scope: 'read' });
    expect(token.refreshToken).toBeTruthy();
  });

  it('authorization_code without PKCE (confidential client)', async () => {
    const web = client('web-app', node.clients['web-app'] ?? null);
    const token = await web.authCode.getToken(await authorizationCode(web));
    expect(token.refreshToken).toBeTruthy();
  });

  it('authorization_code with PKCE S256 (public client: client_id in the body, no secret); a wrong verifier is invalid_grant', async () => {
    const app = client('public-app', null);
    const pkce = createPkce();
    const token = await app.authCode.getToken(await authorizationCode(app, pkce), { codeVerifier: pkce.verifier });
    expect(node.isLive(token.token)).toBe(true);
    const wrong = await app.authCode.getToken(await authorizationCode(app, createPkce()), { codeVerifier: pkce.verifier }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OAuth2Error);
    expect((wrong as OAuth2Error).code).toBe('invalid_grant');
  });

  it('refresh rotates the refresh token; reusing the old one is invalid_grant', async () => {
    const web = client('web-app', node.clients['web-app'] ?? null);
    const first = await web.authCode.getToken(await authorizationCode(web));
    const second = await first.refresh();
    expect(second.refreshToken).toBeTruthy();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const reuse = (await first.refresh().catch((e: unknown) => e)) as OAuth2Error;
    expect(reuse).toBeInstanceOf(OAuth2Error);
    expect(reuse.code).toBe('invalid_grant');
    expect(reuse.description).toBe('Invalid grant: refresh token is invalid');
  });

  it('revocation (RFC 7009 handler on the model): the refresh token and its access token end', async () => {
    const token = await client('m2m-client', node.clients['m2m-client'] ?? null).password.getToken(node.user.username, node.user.password);
    expect((await token.revoke({ tokenTypeHint: 'refresh_token' })).status).toBe(200);
    expect(node.isLive(token.refreshToken ?? '')).toBe(false);
    expect(node.isLive(token.token)).toBe(false);
    await expect(token.refresh()).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('its error answers come through OAuth2Error with code, description and response', async () => {
    const wrongPassword = (await client('m2m-client', node.clients['m2m-client'] ?? null).password.getToken('alice', 'nope').catch((e: unknown) => e)) as OAuth2Error;
    expect(wrongPassword).toBeInstanceOf(OAuth2Error);
    expect(wrongPassword).toMatchObject({ code: 'invalid_grant', description: 'Invalid grant: user credentials are invalid' });
    expect(wrongPassword.response.status).toBe(400);
    const wrongSecret = (await client('m2m-client', 'wrong').clientCredentials.getToken().catch((e: unknown) => e)) as OAuth2Error;
    expect(wrongSecret).toMatchObject({ code: 'invalid_client', description: 'Invalid client: client is invalid' });
    expect(wrongSecret.message).not.toContain('wrong');
    const grant = (await client('m2m-client', node.clients['m2m-client'] ?? null).getToken({ grant_type: 'urn:example:unknown' }).catch((e: unknown) => e)) as OAuth2Error;
    expect(grant).toMatchObject({ code: 'unsupported_grant_type' });
  });
});

describe('Basic credentials with reserved characters (basicAuthEncoding), against both servers', () => {
  const nodeSecret = () => node.clients['reserved-client'] ?? '';

  it('oidc-provider decodes RFC 6749 §2.3.1 form-encoding: the default (form) works for "reserved:client id+/=" / "se cr+et/=:%…"; plain does not', async () => {
    const form = new OAuth2Client(RESERVED_CLIENT_ID, op.secrets.reserved, { site: op.issuer, tokenUrl: '/token' });
    clients.push(form);
    expect((await form.clientCredentials.getToken({ scope: 'api:read' })).token).toBeTruthy();
    // The client id holds ":", which plain Basic credentials cannot carry (RFC 7617 §2).
    expect(() => new OAuth2Client(RESERVED_CLIENT_ID, op.secrets.reserved, { basicAuthEncoding: 'plain' })).toThrow(OAuth2UsageError);
    const plainSecret = new OAuth2Client('basic-client', op.secrets.basic, { site: op.issuer, tokenUrl: '/token', basicAuthEncoding: 'plain' });
    clients.push(plainSecret);
    // "basic secret+%:x…" sent as is: oidc-provider decodes "%:x" and refuses.
    await expect(plainSecret.clientCredentials.getToken({ scope: 'api:read' })).rejects.toBeInstanceOf(OAuth2Error);
  });

  it('@node-oauth/oauth2-server (basic-auth) does not decode: plain works for "se cr+et/=:%…"; the default (form) is invalid_client', async () => {
    const plain = client('reserved-client', nodeSecret(), { basicAuthEncoding: 'plain' });
    expect(node.isLive((await plain.clientCredentials.getToken()).token)).toBe(true);
    const form = client('reserved-client', nodeSecret());
    await expect(form.clientCredentials.getToken()).rejects.toMatchObject({ code: 'invalid_client' });
    // With request_body both encodings are moot: the form body carries the secret as is.
    const body = client('reserved-client', nodeSecret(), { authScheme: 'request_body' });
    expect((await body.clientCredentials.getToken()).token).toBeTruthy();
  });
});
