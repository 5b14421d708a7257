import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OAuth2Server from '@node-oauth/oauth2-server';

/**
 * `@node-oauth/oauth2-server` (the Express-world implementation, client authentication through the
 * `basic-auth` package) on node:http with an in-memory model. It has no revocation endpoint: the
 * RFC 7009 handler below works on the same model.
 */
type Client = OAuth2Server.Client & { secret: string | null };
type StoredToken = OAuth2Server.Token;

export interface RunningNodeServer {
  url: string;
  /** Registered clients: id → secret (null for the public PKCE client). */
  clients: Record<string, string | null>;
  redirectUri: string;
  user: { username: string; password: string };
  /** Whether a token (access or refresh) is still known to the model. */
  isLive(token: string): boolean;
  close(): Promise<void>;
}

export const NODE_REDIRECT_URI = 'http://127.0.0.1:1/node-callback';

export async function startNodeOAuth2Server(): Promise<RunningNodeServer> {
  const user = { username: 'alice', password: 'wonder land+1' };
  const clientSecrets: Record<string, string | null> = {
    'm2m-client': 'm2m-secret-0123456789',
    'reserved-client': 'se cr+et/=:%-0123456789',
    'web-app': 'web-secret-0123456789',
    'public-app': null,
  };
  const clients = new Map<string, Client>(
    Object.entries(clientSecrets).map(([id, secret]) => [
      id,
      { id, secret, grants: ['client_credentials', 'password', 'authorization_code', 'refresh_token'], redirectUris: [NODE_REDIRECT_URI], accessTokenLifetime: 3600, refreshTokenLifetime: 86_400 },
    ]),
  );
  const accessTokens = new Map<string, StoredToken>();
  const refreshTokens = new Map<string, StoredToken>();
  const codes = new Map<string, OAuth2Server.AuthorizationCode>();

  const model = {
    getClient: (id: string, secret: string | null) => {
      const client = clients.get(id);
      if (client === undefined) return Promise.resolve(undefined);
      // The authorization endpoint looks a client up without a secret (null); a token request that
      // carries one must match (the handler itself refuses a confidential client that sends none).
      if (secret !== null && secret !== undefined && secret !== client.secret) return Promise.resolve(undefined);
      return Promise.resolve(client);
    },
    saveToken: (token: StoredToken, client: Client, owner: OAuth2Server.User) => {
      const saved = { ...token, client, user: owner };
      accessTokens.set(token.accessToken, saved);
      if (token.refreshToken !== undefined) refreshTokens.set(token.refreshToken, saved);
      return Promise.resolve(saved);
    },
    getAccessToken: (token: string) => Promise.resolve(accessTokens.get(token)),
    getRefreshToken: (token: string) => Promise.resolve((refreshTokens.get(token) as OAuth2Server.RefreshToken | undefined)),
    // Called by the refresh grant on the used refresh token: rotation.
    revokeToken: (token: OAuth2Server.RefreshToken) => Promise.resolve(refreshTokens.delete(token.refreshToken)),
    getUser: (username: string, password: string) => Promise.resolve(username === user.username && password === user.password ? { id: 'user-alice' } : undefined),
    getUserFromClient: (client: Client) => Promise.resolve({ id: `client:${client.id}` }),
    saveAuthorizationCode: (code: OAuth2Server.AuthorizationCode, client: Client, owner: OAuth2Server.User) => {
      const saved = { ...code, client, user: owner };
      codes.set(code.authorizationCode, saved);
      return Promise.resolve(saved);
    },
    getAuthorizationCode: (code: string) => Promise.resolve(codes.get(code)),
    revokeAuthorizationCode: (code: OAuth2Server.AuthorizationCode) => Promise.resolve(codes.delete(code.authorizationCode)),
    validateScope: (_user: OAuth2Server.User, _client: Client, scope?: string[]) => Promise.resolve(scope ?? ['read']),
  };
  const oauth = new OAuth2Server({ model, allowEmptyState: true, requireClientAuthentication: { authorization_code: false, refresh_token: true } });

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const request = new OAuth2Server.Request({ method: req.method ?? 'GET', query: Object.fromEntries(url.searchParams), headers: req.headers as Record<string, string>, body });
    const response = new OAuth2Server.Response();
    try {
      if (url.pathname === '/oauth/token') await oauth.token(request, response);
      else if (url.pathname === '/oauth/authorize') await oauth.authorize(request, response, { authenticateHandler: { handle: () => ({ id: 'user-alice' }) } });
      else if (url.pathname === '/oauth/revoke') return revoke(req, body, res);
      else return void res.writeHead(404).end();
    } catch (error) {
      if (!(error instanceof OAuth2Server.OAuthError)) throw error;
      // The authorize handler has already put the redirect with ?error= on the response.
      if (response.status !== 302) {
        res.writeHead(error.code, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.name, error_description: error.message }));
        return;
      }
    }
    // As an Express app answers: res.set(response.headers); res.status(…).json(response.body).
    const json = response.body === undefined || Object.keys(response.body as object).length === 0 ? {} : { 'content-type': 'application/json; charset=utf-8' };
    res.writeHead(response.status ?? 200, { ...(response.headers as Record<string, string>), ...json }).end(Object.keys(json).length === 0 ? undefined : JSON.stringify(response.body));
  }

  /** RFC 7009 §2.1 on the model: the client authenticates like at the token endpoint; 200 whatever the token (§2.2). */
  async function revoke(req: IncomingMessage, body: Record<string, string>, res: ServerResponse): Promise<void> {
    // As the token endpoint reads them (basic-auth): the Basic credentials are not form-decoded.
    const credentials = (() => {
      const header = req.headers.authorization;
      if (header?.startsWith('Basic ')) {
        const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
      }
      return { id: body.client_id ?? '', secret: body.client_secret ?? null };
    })();
    const client = await model.getClient(credentials.id, credentials.secret);
    if (client === undefined || client.secret === null) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }));
      return;
    }
    const token = body.token ?? '';
    const found = refreshTokens.get(token) ?? accessTokens.get(token);
    if (found !== undefined && (found.client as Client).id === client.id) {
      // Revoking a refresh token also ends its access token (RFC 7009 §2.1: MAY).
      if (found.refreshToken !== undefined) refreshTokens.delete(found.refreshToken);
      accessTokens.delete(found.accessToken);
    }
    res.writeHead(200).end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clients: clientSecrets,
    redirectUri: NODE_REDIRECT_URI,
    user,
    isLive: (token) => accessTokens.has(token) || refreshTokens.has(token),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
