import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkce, OAuth2Client, OAuth2Error } from '@channel-graph/oauth2';
import { signJwt } from '@channel-graph/oauth2/assertion';
import { followAuthorization, REDIRECT_URI, type RunningProvider, startProvider } from './support/oidc.js';

let op: RunningProvider;
const clients: OAuth2Client[] = [];

function client(id: string, secret: string | null, options: ConstructorParameters<typeof OAuth2Client>[2] = {}): OAuth2Client {
  const created = new OAuth2Client(id, secret, { site: op.issuer, authorizeUrl: '/auth', tokenUrl: '/token', revokeUrl: '/token/revocation', ...options });
  clients.push(created);
  return created;
}

/** Asks the provider's introspection endpoint (RFC 7662) whether a token is active. */
async function active(token: string, hint: 'access_token' | 'refresh_token'): Promise<boolean> {
  const introspector = client('basic-client', op.secrets.basic);
  const response = await introspector.request('post', '/token/introspection', {
    body: { token, token_type_hint: hint },
    headers: { authorization: `Basic ${Buffer.from(`basic-client:${encodeURIComponent(op.secrets.basic)}`).toString('base64')}` },
  });
  return (response.parsed as { active: boolean }).active;
}

beforeAll(async () => {
  op = await startProvider();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await op.close();
});

describe('OAuth2Client against oidc-provider', () => {
  it('client_credentials with basic_auth (secret needing RFC 6749 §2.3.1 form-encoding)', async () => {
    const token = await client('basic-client', op.secrets.basic).clientCredentials.getToken({ scope: 'api:read' });
    expect(token.token).toMatch(/.{20,}/);
    expect(token.params.token_type).toBe('Bearer');
    expect(token.params.scope).toBe('api:read');
    expect(token.expires()).toBe(true);
    expect(token.expired()).toBe(false);
    expect(await active(token.token, 'access_token')).toBe(true);
  });

  it('client_credentials with request_body', async () => {
    const token = await client('post-client', op.secrets.post, { authScheme: 'request_body' }).clientCredentials.getToken({ scope: 'api:read' });
    expect(await active(token.token, 'access_token')).toBe(true);
  });

  it('private_key_jwt: client assertion signed with jose is accepted', async () => {
    const jwtClient = client('jwt-client', null, {
      authScheme: 'private_key_jwt',
      clientAssertionKey: { key: op.clientPrivateJwk, alg: 'RS256', kid: 'client-key-1' },
      signJwt,
    });
    const token = await jwtClient.clientCredentials.getToken({ scope: 'api:read' });
    expect(await active(token.token, 'access_token')).toBe(true);
  });

  it('a wrong secret maps the error response to OAuth2Error.code/description', async () => {
    const error = await client('basic-client', 'wrong-secret').clientCredentials.getToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2Error);
    const oauthError = error as OAuth2Error;
    expect(oauthError.name).toBe('OAuth2Error');
    expect(oauthError.code).toBe('invalid_client');
    expect(oauthError.description).toBe('client authentication failed');
    expect(oauthError.response.status).toBe(401);
    expect(oauthError.message).not.toContain('wrong-secret');
  });

  describe('authorization code with PKCE, refresh with rotation, revocation', () => {
    const web = () => client('web-app', op.secrets.web, { redirectUri: REDIRECT_URI });

    async function authorize(webClient: OAuth2Client) {
      const pkce = createPkce();
      const state = 'state-123';
      const url = webClient.authCode.authorizeUrl({ scope: 'openid offline_access', state, codeChallenge: pkce.challenge, prompt: 'consent' });
      const callback = await followAuthorization(url, REDIRECT_URI);
      expect(callback.searchParams.get('state')).toBe(state);
      const code = callback.searchParams.get('code');
      expect(code).toBeTruthy();
      return { code: code ?? '', pkce };
    }

    it('end to end: code + verifier → tokens incl. id_token (returned, not validated)', async () => {
      const webClient = web();
      const { code, pkce } = await authorize(webClient);
      const token = await webClient.authCode.getToken(code, { codeVerifier: pkce.verifier });
      expect(token.token).toBeTruthy();
      expect(token.refreshToken).toBeTruthy();
      const idToken = token.params.id_token as string;
      expect(decodeJwt(idToken)).toMatchObject({ sub: 'user-1', aud: 'web-app', iss: op.issuer });
    });

    it('a wrong code_verifier is rejected (PKCE enforced): invalid_grant', async () => {
      const webClient = web();
      const { code } = await authorize(webClient);
      const error = await webClient.authCode.getToken(code, { codeVerifier: createPkce().verifier }).catch((e: unknown) => e);
      expect((error as OAuth2Error).code).toBe('invalid_grant');
    });

    it('refresh rotates the refresh token; the old one stops working', async () => {
      const webClient = web();
      const { code, pkce } = await authorize(webClient);
      const first = await webClient.authCode.getToken(code, { codeVerifier: pkce.verifier });
      const second = await first.refresh();
      expect(second.token).not.toBe(first.token);
      expect(second.refreshToken).toBeTruthy();
      expect(second.refreshToken).not.toBe(first.refreshToken);
      const reuse = await first.refresh().catch((e: unknown) => e);
      expect(reuse).toBeInstanceOf(OAuth2Error);
      expect((reuse as OAuth2Error).code).toBe('invalid_grant');
    });

    it('revoke: access token by hint, then the refresh token', async () => {
      const webClient = web();
      const { code, pkce } = await authorize(webClient);
      const token = await webClient.authCode.getToken(code, { codeVerifier: pkce.verifier });
      expect(await active(token.token, 'access_token')).toBe(true);
      const revoked = await token.revoke({ tokenTypeHint: 'access_token' });
      expect(revoked.status).toBe(200);
      expect(await active(token.token, 'access_token')).toBe(false);
      await token.revoke({ tokenTypeHint: 'refresh_token' });
      const error = await token.refresh().catch((e: unknown) => e);
      expect((error as OAuth2Error).code).toBe('invalid_grant');
    });

    it('revoking the refresh token also invalidates its access tokens (provider grant revocation)', async () => {
      const webClient = web();
      const { code, pkce } = await authorize(webClient);
      const token = await webClient.authCode.getToken(code, { codeVerifier: pkce.verifier });
      await token.revoke({ tokenTypeHint: 'refresh_token' });
      expect(await active(token.refreshToken ?? '', 'refresh_token')).toBe(false);
      expect(await active(token.token, 'access_token')).toBe(false);
    });
  });
});
