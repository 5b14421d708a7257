/**
 * The wire shapes of the token endpoint, taken from the types `npm run codegen` emits from
 * openapi/oauth2.yaml, plus the library's own request vocabulary.
 */
import type { components } from '../../../generated/openapi/oauth2.js';
import type { ParseMode } from './parse.js';
import type { SnakyHash } from './snaky-hash.js';

type Schemas = components['schemas'];

export type AuthorizationRequest = Schemas['AuthorizationRequest'];
export type AuthorizationCodeGrantRequest = Schemas['AuthorizationCodeGrantRequest'];
export type PasswordGrantRequest = Schemas['PasswordGrantRequest'];
export type ClientCredentialsGrantRequest = Schemas['ClientCredentialsGrantRequest'];
export type RefreshTokenGrantRequest = Schemas['RefreshTokenGrantRequest'];
export type JwtBearerGrantRequest = Schemas['JwtBearerGrantRequest'];
export type TokenRequest = Schemas['TokenRequest'];
export type ClientAuthenticationParameters = Schemas['ClientAuthenticationParameters'];
export type TokenResponse = Schemas['TokenResponse'];
export type TokenErrorResponse = Schemas['TokenErrorResponse'];
export type TokenErrorCode = Schemas['TokenErrorCode'];
export type RevocationRequest = Schemas['RevocationRequest'];
export type TokenTypeHint = Schemas['TokenTypeHint'];
export type GrantType = TokenRequest['grant_type'];

/** HTTP verbs, lowercase as in the Ruby original's symbols. */
export type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A query or form value; `null`/`undefined` are omitted from the wire (reference: "nil parameters are not set"). */
export type ParamValue = string | number | boolean | null | undefined | readonly ParamValue[] | { readonly [key: string]: ParamValue };
export type Params = { readonly [key: string]: ParamValue };

/** Per-call HTTP headers, accepted inside any strategy's params (reference: "Any strategy accepts `headers`"). */
export type HeaderParams = { headers?: Record<string, string> };

/**
 * Parameters of one grant: the contract's fields for that grant (its `grant_type` is set by the
 * strategy), provider extensions, and per-call headers.
 */
export type GrantParams<T> = Partial<Omit<T, 'grant_type'>> & Params & HeaderParams;

/**
 * A token as the token endpoint returns it (RFC 6749 §5.1), plus the library's own keys: the
 * absolute `expires_at` (seconds since the epoch) and the AccessToken options in snake_case.
 * `token_type` is optional here because stored and operator-supplied tokens often lack it.
 */
export type TokenHash = Pick<TokenResponse, 'access_token'> &
  Partial<Pick<TokenResponse, 'refresh_token' | 'expires_in' | 'scope' | 'id_token' | 'token_type'>> & {
    expires_at?: number;
    [key: string]: unknown;
  };

/**
 * Any token request: a grant's parameters as the contract types them, or an extension grant (RFC 6749
 * §4.5: any absolute URI as `grant_type`), provider extensions and per-call headers.
 */
export type TokenParams = (Partial<TokenRequest> | { grant_type: string & {} }) & Params & HeaderParams;

/** Options of one request (`client.request`, `token.get` …). */
export interface RequestOptions {
  /** Query parameters; nil values are omitted. */
  params?: Params;
  /** A string or bytes are sent as is; an object is form-urlencoded. */
  body?: string | Uint8Array | Params;
  headers?: Record<string, string>;
  /** Snake_case the keys of `parsed` (default true). */
  snaky?: boolean;
  parse?: ParseMode;
  hashClass?: typeof SnakyHash;
  /** Overrides the client's `raiseErrors` for this request. */
  raiseErrors?: boolean;
  signal?: AbortSignal;
  /**
   * The body carries credentials (a client secret or assertion, a grant's code or token, a body-mode
   * access token): a redirect to another origin that would resend the body (301, 302, 307, 308) is
   * refused with OAuth2RedirectError. Token and revocation requests set it.
   */
  bodyCarriesCredentials?: boolean;
}
