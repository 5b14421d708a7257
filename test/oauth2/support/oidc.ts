import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const REDIRECT_URI = 'http://127.0.0.1:1/callback';

export interface RunningProvider {
  issuer: string;
  provider: Provider;
  /** Private key of the `jwt-client` (private_key_jwt), as a JWK with kid. */
  clientPrivateJwk: JWK;
  secrets: { basic: string; post: string; web: string; cli: string; reserved: string };
  close(): Promise<void>;
}

/**
 * oidc-provider on 127.0.0.1 with the clients the tests need. The login/consent interaction is
 * answered programmatically: any request to /interaction/:uid logs in `user-1` and grants the
 * requested scopes through `provider.interactionFinished`.
 */
export interface ProviderOptions {
  /** Endpoint paths (oidc-provider `routes`), e.g. the membership platform's to drive `npm run authorize`. */
  routes?: { authorization?: string; token?: string; revocation?: string };
}

/** The id of a client whose id and secret hold characters that Basic credentials must encode. */
export const RESERVED_CLIENT_ID = 'reserved:client id+/=';

export async function startProvider(options: ProviderOptions = {}): Promise<RunningProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const clientPublicJwk = { ...(await exportJWK(publicKey)), kid: 'client-key-1', alg: 'RS256', use: 'sig' };
  const clientPrivateJwk = { ...(await exportJWK(privateKey)), kid: 'client-key-1', alg: 'RS256' };
  // Secrets with characters that RFC 6749 §2.3.1 form-encoding changes (space, +, %, :).
  const secrets = {
    basic: 'basic secret+%:x-0123456789abcdef',
    post: 'post-secret-0123456789abcdef',
    web: 'web-secret-0123456789abcdef',
    cli: 'cli-secret-0123456789abcdef',
    reserved: 'se cr+et/=:%-0123456789abcdef',
  };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const m2m = { grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'api:read' };
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'basic-client', client_secret: secrets.basic, token_endpoint_auth_method: 'client_secret_basic', ...m2m },
      { client_id: 'post-client', client_secret: secrets.post, token_endpoint_auth_method: 'client_secret_post', ...m2m },
      { client_id: RESERVED_CLIENT_ID, client_secret: secrets.reserved, token_endpoint_auth_method: 'client_secret_basic', ...m2m },
      {
        // A native app (RFC 8252): its loopback redirect URI matches on any port (§7.3).
        client_id: 'cli-app',
        client_secret: secrets.cli,
        application_type: 'native',
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
      { client_id: 'jwt-client', token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'RS256', jwks: { keys: [clientPublicJwk] }, ...m2m },
      {
        client_id: 'web-app',
        client_secret: secrets.web,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [REDIRECT_URI],
      },
    ],
    scopes: ['openid', 'offline_access', 'api:read'],
    ...(options.routes === undefined ? {} : { routes: options.routes }),
    features: {
      clientCredentials: { enabled: true },
      revocation: { enabled: true, allowedPolicy: () => Promise.resolve(true) },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
    },
    pkce: { required: () => true },
    issueRefreshToken: () => Promise.resolve(true),
    rotateRefreshToken: () => true,
    cookies: { keys: ['oauth2-test-cookie-key'] },
    findAccount: (_ctx, accountId) => Promise.resolve({ accountId, claims: () => Promise.resolve({ sub: accountId }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      void finishInteraction(provider, req, res);
      return;
    }
    void callback(req, res);
  });
  return {
    issuer,
    provider,
    clientPrivateJwk,
    secrets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function finishInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res);
    const clientId = String(details.params.client_id);
    const grant = new provider.Grant({ accountId: 'user-1', clientId });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: 'user-1' }, consent: { grantId } }, { mergeWithLastSubmission: false });
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
}

/**
 * Plays the user agent: follows redirects from the authorization URL with a cookie jar until the
 * provider redirects to `redirectUri`, and returns that callback URL.
 */
export async function followAuthorization(authorizeUrl: string, redirectUri: string): Promise<URL> {
  const jar = new Map<string, string>();
  let next = authorizeUrl;
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(';', 1)[0] ?? '';
      const separator = pair.indexOf('=');
      jar.set(pair.slice(0, separator), pair.slice(separator + 1));
    }
    const location = response.headers.get('location');
    if (location === null) throw new Error(`no redirect from ${next}: ${response.status} ${await response.text()}`);
    const target = new URL(location, next);
    if (target.href.startsWith(redirectUri)) return target;
    next = target.href;
  }
  throw new Error('too many redirects while authorizing');
}
