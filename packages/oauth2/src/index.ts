/**
 * `@channel-graph/oauth2`: an OAuth 2.0 client on ky, typed from openapi/oauth2.yaml. Its JWT signer
 * (`/assertion`, on jose) and its own connection pool (`/undici`) are subpaths of their own, on
 * optional peer dependencies.
 */
export { AccessToken, type AccessTokenOptions, type GetTokenOptions, type ModeOption, type RevokeOptions, type TokenClient, type TokenMode } from './access-token.js';
export { type AuthScheme, type BasicAuthEncoding, basicCredentials } from './client-auth.js';
export { OAuth2Client, type OAuth2ClientOptions, type ResolvedClientOptions } from './client.js';
export { configure, type OAuth2Config } from './configure.js';
export { debugEnabled, type Logger } from './debug-log.js';
export { redactBody } from './redact.js';
export { OAuth2AbortError, OAuth2BaseError, OAuth2ConnectionError, OAuth2NoTokenError, OAuth2TimeoutError, OAuth2UsageError } from './errors.js';
export type { Jwk, JwtClaims, JwtSigner, SigningKey, SigningOptions } from './jwt.js';
export type { Parsed, ParseMode, ParseOptions } from './parse.js';
export { createPkce, type Pkce } from './pkce.js';
export { OAuth2Error, OAuth2ParseError, OAuth2RedirectError, OAuth2Response } from './response.js';
export { SnakyHash } from './snaky-hash.js';
export type { AssertionInput } from './strategies/assertion.js';
export type { AuthCodeTokenParams, AuthorizeParams } from './strategies/auth-code.js';
export { type RefreshReport, TokenKeeper, type TokenKeeperOptions } from './token-keeper.js';
export { MemoryTokenStore, SEED_FINGERPRINT_KEY, type SharedRefresh, type TokenStore } from './token-store.js';
export type { ConnectionOptions, ConnectionPool } from './transport.js';
export type * from './types.js';
export type { ParamsEncoder } from './url.js';
