/**
 * The membership platform's OAuth2 side, shared by the service (`src/app.ts`) and the login command
 * (`npm run authorize`): its endpoints, the client, and where the creator's token is kept. The
 * store is chosen here and only here (a Redis store joins this function).
 */
import { join } from 'node:path';
import type { MembershipSettings } from '../config.js';
import { OAuth2Client, type OAuth2ClientOptions, TokenKeeper, type TokenKeeperOptions, type TokenStore } from '@channel-graph/oauth2';
import { FileTokenStore } from './file-token-store.js';
import { undiciPool } from '@channel-graph/oauth2/undici';

/** The token file under DATA_DIR: the rotated refresh token survives a restart there. */
export const MEMBERSHIP_TOKEN_FILE = 'membership-token.json';

/**
 * The platform's endpoints (Patreon-style): the authorization page, the token endpoint and the
 * RFC 7009 revocation endpoint (the sandbox serves all three).
 */
export const MEMBERSHIP_OAUTH_ENDPOINTS = { authorizeUrl: '/oauth2/authorize', tokenUrl: '/api/oauth2/token', revokeUrl: '/api/oauth2/revoke' } as const;

/** What the service reads: the campaign, its members and the creator's identity. */
export const MEMBERSHIP_SCOPES = 'identity campaigns campaigns.members';

type ClientSettings = Pick<MembershipSettings, 'apiBase' | 'clientId' | 'clientSecret'>;

/**
 * The platform authenticates the client with id and secret in the form body (RFC 6749 §2.3.1). The
 * client has a connection pool of its own (undici), so that closing the app closes its sockets to
 * the platform at once instead of leaving them to the global pool's keep-alive.
 */
export function createMembershipOAuthClient(settings: ClientSettings, options: Pick<OAuth2ClientOptions, 'redirectUri' | 'connection' | 'logger'> = {}): OAuth2Client {
  return new OAuth2Client(settings.clientId, settings.clientSecret, {
    site: settings.apiBase,
    ...MEMBERSHIP_OAUTH_ENDPOINTS,
    authScheme: 'request_body',
    ...options,
    connection: { pool: undiciPool(), ...options.connection },
  });
}

/** Where the creator's token is kept: `DATA_DIR/membership-token.json` (mode 0600, written atomically). */
export function createMembershipTokenStore(dataDir: string): TokenStore & { readonly location: string } {
  const path = join(dataDir, MEMBERSHIP_TOKEN_FILE);
  return Object.assign(new FileTokenStore(path), { location: path });
}

/**
 * The token keeper. The tokens from `.env` (when set) seed it; rotated tokens are persisted to
 * `store`, which takes precedence on the next start while it descends from the same seed (a new seed
 * in `.env` wins), so a restart never reuses a dead refresh token. Without seed tokens the store's
 * token (written by `npm run authorize`) is used.
 */
export function createMembershipKeeper(
  client: OAuth2Client,
  settings: Pick<MembershipSettings, 'accessToken' | 'refreshToken'>,
  store: TokenStore,
  options: Pick<TokenKeeperOptions, 'onRefresh'> = {},
): TokenKeeper {
  const { accessToken, refreshToken } = settings;
  return new TokenKeeper(client, {
    ...(accessToken === undefined ? {} : { initial: { access_token: accessToken, ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }) } }),
    store,
    ...options,
  });
}
