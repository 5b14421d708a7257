import { inspect } from 'node:util';
import type { KyInstance } from 'ky';
import { AccessToken, type GetTokenOptions } from './access-token.js';
import { type AuthScheme, authenticateClient, type BasicAuthEncoding, type ClientCredentials, clientCredentials } from './client-auth.js';
import { debugEnabled, type Logger, logRequest, logResponse } from './debug-log.js';
import type { JwtClaims, JwtSigner, SigningOptions } from './jwt.js';
import { isJsonContentType, jsonSyntaxError } from './parse.js';
import { REDACTED, redactUrl } from './redact.js';
import { OAuth2UsageError } from './errors.js';
import { OAuth2Error, OAuth2ParseError, OAuth2RedirectError, OAuth2Response } from './response.js';
import { isPlainObject } from './snaky-hash.js';
import { AssertionStrategy } from './strategies/assertion.js';
import { AuthCodeStrategy } from './strategies/auth-code.js';
import { ClientCredentialsStrategy } from './strategies/client-credentials.js';
import { ImplicitStrategy } from './strategies/implicit.js';
import { PasswordStrategy } from './strategies/password.js';
import { type ConnectionOptions, createTransport, type Transport } from './transport.js';
import type { HeaderParams, Params, RequestOptions, TokenParams, TokenTypeHint, Verb } from './types.js';
import { encodeParams, type ParamsEncoder, resolveUrl, withQuery } from './url.js';

export interface OAuth2ClientOptions {
  site?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  revokeUrl?: string;
  redirectUri?: string;
  authScheme?: AuthScheme;
  /** How `basic_auth` writes id and secret into the Basic credentials. Default `form` (RFC 6749 §2.3.1); see BasicAuthEncoding. */
  basicAuthEncoding?: BasicAuthEncoding;
  /** The key that signs the client assertion of `private_key_jwt`. */
  clientAssertionKey?: SigningOptions;
  /**
   * Signs the JWTs of the assertion grant and of `private_key_jwt`: `signJwt` of
   * `@channel-graph/oauth2/assertion` (needs `jose`), or your own. No default, so that no other
   * user installs a JWT library.
   */
  signJwt?: JwtSigner;
  connection?: ConnectionOptions;
  /** Receives debug output (`OAUTH_DEBUG=true`) and warnings. Default: the console. */
  logger?: Logger;
  raiseErrors?: boolean;
  maxRedirects?: number;
  accessTokenClass?: typeof AccessToken;
  /** The connection builder hook: receives the ky instance, returns the one to use (add hooks, headers …). */
  ky?: (instance: KyInstance) => KyInstance;
}

/** The client's options with the defaults of the reference filled in. */
export type ResolvedClientOptions = Readonly<
  OAuth2ClientOptions &
    Required<Pick<OAuth2ClientOptions, 'authorizeUrl' | 'tokenUrl' | 'revokeUrl' | 'authScheme' | 'basicAuthEncoding' | 'raiseErrors' | 'maxRedirects'>>
>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** An OAuth 2.0 client (reference: `OAuth2::Client`). */
export class OAuth2Client {
  readonly id: string | null;
  readonly secret: string | null;
  readonly options: ResolvedClientOptions;
  readonly logger: Logger;
  readonly authCode = new AuthCodeStrategy(this);
  readonly implicit = new ImplicitStrategy(this);
  readonly password = new PasswordStrategy(this);
  readonly clientCredentials = new ClientCredentialsStrategy(this);
  readonly assertion = new AssertionStrategy(this);
  readonly #transport: Transport;
  readonly #encoder: ParamsEncoder;
  readonly #debug: boolean;
  readonly #credentials: Readonly<ClientCredentials>;
  readonly #signJwt: JwtSigner | undefined;

  constructor(id: string | null, secret: string | null, options: OAuth2ClientOptions = {}) {
    this.id = id;
    this.secret = secret;
    this.options = {
      ...options,
      authorizeUrl: options.authorizeUrl ?? 'oauth/authorize',
      tokenUrl: options.tokenUrl ?? 'oauth/token',
      revokeUrl: options.revokeUrl ?? 'oauth/revoke',
      authScheme: options.authScheme ?? 'basic_auth',
      basicAuthEncoding: options.basicAuthEncoding ?? 'form',
      raiseErrors: options.raiseErrors ?? true,
      maxRedirects: options.maxRedirects ?? 5,
    };
    this.#credentials = clientCredentials({
      id,
      secret,
      authScheme: this.options.authScheme,
      basicAuthEncoding: this.options.basicAuthEncoding,
      clientAssertionKey: options.clientAssertionKey,
      signJwt: (claims, signing) => this.signJwt(claims, signing),
    });
    this.#signJwt = options.signJwt;
    this.logger = options.logger ?? console;
    this.#transport = createTransport(options.connection ?? {}, options.ky);
    this.#encoder = options.connection?.paramsEncoder ?? 'nested';
    this.#debug = debugEnabled();
  }

  /** The endpoint URL for a path or absolute URL, resolved against `site`. */
  resolveUrl(pathOrUrl: string): URL {
    return resolveUrl(this.options.site, pathOrUrl);
  }

  /** The authorization endpoint with `params` as its query (nil values omitted). */
  authorizeUrl(params: Params = {}): string {
    return withQuery(this.resolveUrl(this.options.authorizeUrl), params, this.#encoder).toString();
  }

  /** `redirect_uri` of the client, for the authorization and token requests of the code grant. */
  redirectionParams(): { redirect_uri?: string } {
    return this.options.redirectUri === undefined ? {} : { redirect_uri: this.options.redirectUri };
  }

  /**
   * Sends a request and follows redirects (reference: `request`, Wire behaviour 5). Up to
   * `maxRedirects` redirects are followed, relative Locations resolve against the current URL, a
   * 303 continues as a GET without body (RFC 9110 §15.4.4) and the Authorization and Cookie headers
   * are dropped whenever the next URL has another origin. A request whose body carries credentials
   * (`bodyCarriesCredentials`) is not redirected to another origin with its body: OAuth2RedirectError.
   * When the limit is reached the redirect response itself is returned. A status ≥ 400 throws OAuth2Error unless `raiseErrors` is false, in which
   * case the response carries the error.
   */
  async request(verb: Verb, pathOrUrl: string, options: RequestOptions = {}): Promise<OAuth2Response> {
    let method: Verb = verb;
    let url = withQuery(this.resolveUrl(pathOrUrl), options.params, this.#encoder);
    const headers: Record<string, string> = lowercaseKeys(options.headers);
    let body = this.encodeBody(options.body, headers);
    for (let redirects = 0; ; redirects += 1) {
      const response = await this.send(method, url, headers, body, options);
      if (REDIRECT_STATUSES.has(response.status) && redirects < this.options.maxRedirects) {
        const location = response.headers.location;
        if (location === undefined) throw new OAuth2Error(response, `got ${response.status} status code, but no Location header was present`);
        const next = new URL(location, url);
        if (response.status === 303) {
          method = 'get';
          body = undefined;
          delete headers['content-type'];
        }
        if (next.origin !== url.origin) {
          if (options.bodyCarriesCredentials === true && body !== undefined) {
            throw new OAuth2RedirectError(
              response,
              `refused to follow the ${response.status} redirect from ${url.origin} to ${next.origin}: the request body carries credentials, which are never sent to another origin`,
            );
          }
          delete headers.authorization;
          delete headers.cookie;
        }
        url = next;
        continue;
      }
      if (response.status >= 400) {
        const error = new OAuth2Error(response);
        if (options.raiseErrors ?? this.options.raiseErrors) throw error;
        response.error = error;
      }
      return response;
    }
  }

  /**
   * Requests a token (RFC 6749 §3.2): form-urlencoded parameters (JSON when the params' `headers`
   * say `Content-Type: application/json`, as the gem does), client authentication by `authScheme`,
   * response parsed into `accessTokenClass`, whose `response` is set. `headers` inside params are
   * sent as request headers. Rejects with OAuth2Error when the response carries no token — whatever
   * `raiseErrors` says, since there is no token to return — and with OAuth2ParseError when it is
   * labelled JSON but is not.
   */
  async getToken(params: TokenParams, options: GetTokenOptions = {}): Promise<AccessToken> {
    const { parse, snaky, hashClass, accessTokenClass, ...accessTokenOptions } = options;
    const form = await this.authenticatedForm(params);
    const response = await this.request('post', this.options.tokenUrl, { ...form, raiseErrors: true, parse, snaky, hashClass, bodyCarriesCredentials: true });
    const parsed = response.parsed;
    if (!isPlainObject(parsed) || Object.keys(parsed).length === 0) {
      const syntaxError = typeof parsed === 'string' ? jsonSyntaxError(response.body, response.contentType, parse) : undefined;
      if (syntaxError !== undefined) {
        throw new OAuth2ParseError(response, `the token response (HTTP ${response.status}) is labelled ${response.contentType} but is not JSON`, { cause: syntaxError });
      }
      throw new OAuth2Error(response, `the token response (HTTP ${response.status}) is not a token`);
    }
    const tokenClass = accessTokenClass ?? this.options.accessTokenClass ?? AccessToken;
    let token: AccessToken;
    try {
      token = tokenClass.fromHash(this, parsed, accessTokenOptions);
    } catch (error) {
      throw new OAuth2Error(response, `the token response (HTTP ${response.status}) holds no token`, { cause: error });
    }
    token.response = response;
    return token;
  }

  /** Revokes a token (RFC 7009 §2.1): form-urlencoded `token` and `token_type_hint`, client authenticated. */
  async revokeToken(token: string, tokenTypeHint?: TokenTypeHint, params: Params & HeaderParams = {}): Promise<OAuth2Response> {
    return this.request('post', this.options.revokeUrl, { ...(await this.authenticatedForm({ ...params, token_type_hint: tokenTypeHint, token })), bodyCarriesCredentials: true });
  }

  /**
   * A form-urlencoded body of `params` (its `headers` become request headers) with the client's
   * credentials added by `authScheme`. The token endpoint is the audience of a client assertion.
   */
  private async authenticatedForm(params: Params & HeaderParams): Promise<{ body: Params; headers: Record<string, string> }> {
    const { headers: extraHeaders, ...wire } = params;
    const form: Record<string, unknown> = { ...wire };
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      ...lowercaseKeys(extraHeaders),
    };
    await authenticateClient(this.#credentials, form, headers, this.resolveUrl(this.options.tokenUrl).toString());
    return { body: form as Params, headers };
  }

  /** Signs a JWT with the `signJwt` option (the assertion grant, `private_key_jwt`). */
  signJwt(claims: JwtClaims, options: SigningOptions): Promise<string> {
    if (this.#signJwt === undefined) {
      return Promise.reject(new OAuth2UsageError("signing a JWT needs the signJwt option: signJwt of '@channel-graph/oauth2/assertion' (install jose), or your own"));
    }
    return this.#signJwt(claims, options);
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /** What `JSON.stringify` and loggers see: the configuration without the secret, keys or a password in `site`. */
  toJSON(): Record<string, unknown> {
    const { site, authorizeUrl, tokenUrl, revokeUrl, redirectUri, authScheme, basicAuthEncoding, raiseErrors, maxRedirects } = this.options;
    return {
      id: this.id,
      secret: this.secret === null ? null : REDACTED,
      site: site === undefined ? undefined : redactUrl(site),
      authorizeUrl,
      tokenUrl,
      revokeUrl,
      redirectUri,
      authScheme,
      basicAuthEncoding,
      raiseErrors,
      maxRedirects,
    };
  }

  /** `util.inspect` (and so `console.log`) shows the redacted view of `toJSON`. */
  [inspect.custom](depth: number, options: object): string {
    return `${this.constructor.name} ${inspect(this.toJSON(), { ...options, depth })}`;
  }

  /** An object body is form-urlencoded, or JSON under a JSON content type (nil members left out in both). */
  private encodeBody(body: RequestOptions['body'], headers: Record<string, string>): string | Uint8Array | undefined {
    if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) return body;
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    if (isJsonContentType(headers['content-type'])) return JSON.stringify(body, (_key, value: unknown) => (value === null ? undefined : value));
    return encodeParams(body, this.#encoder);
  }

  private async send(method: Verb, url: URL, headers: Record<string, string>, body: string | Uint8Array | undefined, options: RequestOptions): Promise<OAuth2Response> {
    if (this.#debug) logRequest(this.logger, { method, url: url.href, headers, body: typeof body === 'string' ? body : undefined });
    const result = await this.#transport.exchange({ method, url, headers, body, signal: options.signal });
    if (this.#debug) logResponse(this.logger, url.href, result.status, result.headers, result.body);
    return new OAuth2Response(result.status, result.headers, result.body, { parse: options.parse, snaky: options.snaky, hashClass: options.hashClass });
  }
}

function lowercaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) result[name.toLowerCase()] = value;
  return result;
}
