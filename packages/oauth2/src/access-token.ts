import { inspect } from 'node:util';
import { currentConfig } from './configure.js';
import type { Logger } from './debug-log.js';
import { OAuth2UsageError } from './errors.js';
import { REDACTED, redactValue } from './redact.js';
import type { OAuth2Response } from './response.js';
import type { SnakyHash } from './snaky-hash.js';
import type { ParseMode } from './parse.js';
import type { HeaderParams, Params, RequestOptions, TokenHash, TokenParams, TokenTypeHint, Verb } from './types.js';

/** Where the access token goes on a resource request (reference: Sending the access token). */
export type TokenMode = 'header' | 'query' | 'body';
export type ModeOption = TokenMode | ((verb: Verb) => TokenMode) | Partial<Record<Verb, TokenMode>>;

export interface AccessTokenOptions {
  refreshToken?: string;
  /** Lifetime in seconds from now (RFC 6749 §5.1 `expires_in`). */
  expiresIn?: number;
  /** Absolute expiry: seconds since the epoch, or an ISO 8601 date-time. */
  expiresAt?: number | string;
  /**
   * Milliseconds subtracted from the expiry (reference: `expires_latency`, which is in seconds: the
   * `expires_latency` key of a token hash is read as seconds and converted).
   */
  expiresLatency?: number;
  /** Which token-like key of a hash holds the access token (see `fromHash`). */
  tokenName?: string;
  mode?: ModeOption;
  /** Authorization header value; `%s` is replaced by the token. Default `Bearer %s` (RFC 6750 §2.1). */
  headerFormat?: string;
  /** Query or body parameter name in the `query`/`body` modes. Default `access_token` (RFC 6750 §2.2, §2.3). */
  paramName?: string;
  /** The remaining fields of the token response. */
  params?: Record<string, unknown>;
}

export interface RevokeOptions {
  tokenTypeHint?: TokenTypeHint;
  params?: Params;
}

/** Options of a token request: how to parse the response and which AccessToken to build. */
export interface GetTokenOptions extends AccessTokenOptions {
  parse?: ParseMode;
  snaky?: boolean;
  hashClass?: typeof SnakyHash;
  accessTokenClass?: typeof AccessToken;
}

/**
 * What a token needs of its client: OAuth2Client is one. The token depends on this interface, not
 * on the client's class, which creates tokens (so the two modules do not import each other).
 */
export interface TokenClient {
  readonly logger: Logger;
  request(verb: Verb, pathOrUrl: string, options?: RequestOptions): Promise<OAuth2Response>;
  getToken(params: TokenParams, options?: GetTokenOptions): Promise<AccessToken>;
  revokeToken(token: string, tokenTypeHint?: TokenTypeHint, params?: Params & HeaderParams): Promise<OAuth2Response>;
  toJSON(): Record<string, unknown>;
}

/** Keys searched for the access token when `token_name` is absent, in this order. */
const TOKEN_KEYS = ['access_token', 'id_token', 'token', 'accessToken', 'idToken'] as const;

/**
 * Hash keys that are AccessToken options rather than token response fields. `expires_latency` is in
 * seconds there (as the gem writes it); `expires` is the legacy spelling of `expires_in`.
 */
const OPTION_KEYS = {
  refresh_token: 'refreshToken',
  expires_in: 'expiresIn',
  expires_at: 'expiresAt',
  expires_latency: 'expiresLatency',
  token_name: 'tokenName',
  mode: 'mode',
  header_format: 'headerFormat',
  param_name: 'paramName',
} as const satisfies Record<string, keyof AccessTokenOptions>;

/** An access token bound to a client (reference: `OAuth2::AccessToken`). */
export class AccessToken {
  readonly client: TokenClient;
  readonly token: string;
  refreshToken: string | undefined;
  readonly expiresIn: number | undefined;
  /** Seconds since the epoch, `expiresLatency` already subtracted (as the gem's `expires_at`). */
  readonly expiresAt: number | undefined;
  /** Milliseconds; kept so that a refreshed token is given the same latency. */
  readonly expiresLatency: number | undefined;
  readonly tokenName: string | undefined;
  readonly mode: ModeOption;
  readonly headerFormat: string;
  readonly paramName: string;
  readonly params: Record<string, unknown>;
  /** The token endpoint's response this token was built from (set by `getToken`, reference: `response`). */
  response: OAuth2Response | undefined;

  constructor(client: TokenClient, token: string, options: AccessTokenOptions = {}) {
    this.client = client;
    this.token = token;
    this.refreshToken = emptyToUndefined(options.refreshToken);
    if (this.token === '' && this.refreshToken === undefined) {
      throw new TypeError('an AccessToken needs an access token or a refresh token');
    }
    this.expiresIn = toNumber(options.expiresIn);
    this.expiresLatency = toNumber(options.expiresLatency);
    // Reference, Expiry rule: issue time + expires_in − expires_latency.
    const expiresAt = toEpochSeconds(options.expiresAt) ?? (this.expiresIn ? Math.floor(Date.now() / 1000) + this.expiresIn : undefined);
    this.expiresAt = expiresAt === undefined || this.expiresLatency === undefined ? expiresAt : Math.floor(expiresAt - this.expiresLatency / 1000);
    this.tokenName = options.tokenName;
    this.mode = options.mode ?? 'header';
    this.headerFormat = options.headerFormat ?? 'Bearer %s';
    this.paramName = options.paramName ?? 'access_token';
    this.params = { ...options.params };
  }

  /**
   * Builds a token from a token-endpoint hash (snake_case keys). The access token is read from
   * `token_name` when given, otherwise from the first of access_token, id_token, token,
   * accessToken, idToken; unless silenced (`configure`), a warning says when several or none are
   * present. Other keys that are not options become `params`.
   */
  static fromHash<T extends typeof AccessToken>(this: T, client: TokenClient, hash: Readonly<Record<string, unknown>>, overrides: AccessTokenOptions = {}): InstanceType<T> {
    const fields: Record<string, unknown> = { ...hash };
    const options: Record<string, unknown> = {};
    for (const [key, option] of Object.entries(OPTION_KEYS)) {
      if (key in fields) {
        options[option] = fields[key];
        delete fields[key];
      }
    }
    if (options.expiresIn === undefined && fields.expires !== undefined) {
      options.expiresIn = fields.expires;
      delete fields.expires;
    }
    const latencySeconds = toNumber(options.expiresLatency);
    options.expiresLatency = latencySeconds === undefined ? undefined : latencySeconds * 1000;
    const tokenName = overrides.tokenName ?? (typeof options.tokenName === 'string' ? options.tokenName : undefined);
    const tokenKey = tokenName ?? findTokenKey(client, fields);
    if (tokenKey === undefined && !currentConfig().silenceNoTokensWarning) {
      client.logger.warn(`AccessToken.fromHash: the hash holds no token; expected one of ${TOKEN_KEYS.join(', ')}.`);
    }
    const token = tokenKey === undefined ? undefined : fields[tokenKey];
    if (tokenKey !== undefined) delete fields[tokenKey];
    return new this(client, typeof token === 'string' ? token : '', {
      ...(options as AccessTokenOptions),
      ...overrides,
      params: fields,
    }) as InstanceType<T>;
  }

  /** Builds a token from a form-encoded string, e.g. the fragment of an implicit-grant callback. */
  static fromKvform<T extends typeof AccessToken>(this: T, client: TokenClient, kvform: string, overrides: AccessTokenOptions = {}): InstanceType<T> {
    return this.fromHash(client, Object.fromEntries(new URLSearchParams(kvform)), overrides);
  }

  /** Whether the token has an expiry. */
  expires(): boolean {
    return this.expiresAt !== undefined;
  }

  /** Expired when issue time + expires_in − expires latency is not in the future (reference: Expiry rule). */
  expired(now = Date.now()): boolean {
    return this.expiresAt !== undefined && this.expiresAt * 1000 <= now;
  }

  /**
   * Everything needed to rebuild the token with `fromHash` (the token endpoint's snake_case keys).
   * As in the gem, `expires_at` already has the latency subtracted, so `expires_latency` is left out.
   * The hash holds the tokens: it is for a token store, never for a log.
   */
  toHash(): TokenHash {
    const hash: TokenHash = { ...this.params, access_token: this.token };
    const entries: Record<string, unknown> = {
      refresh_token: this.refreshToken,
      expires_in: this.expiresIn,
      expires_at: this.expiresAt,
      token_name: this.tokenName,
      mode: this.mode,
      header_format: this.headerFormat,
      param_name: this.paramName,
    };
    for (const [key, value] of Object.entries(entries)) if (value !== undefined) hash[key] = value;
    return hash;
  }

  /** The headers that carry the token in `header` mode. */
  headers(): Record<string, string> {
    return { authorization: this.headerFormat.replace('%s', this.token) };
  }

  async request(verb: Verb, pathOrUrl: string, options: RequestOptions = {}): Promise<OAuth2Response> {
    return this.client.request(verb, pathOrUrl, this.authenticate(verb, options));
  }

  get(pathOrUrl: string, options?: RequestOptions): Promise<OAuth2Response> {
    return this.request('get', pathOrUrl, options);
  }

  post(pathOrUrl: string, options?: RequestOptions): Promise<OAuth2Response> {
    return this.request('post', pathOrUrl, options);
  }

  put(pathOrUrl: string, options?: RequestOptions): Promise<OAuth2Response> {
    return this.request('put', pathOrUrl, options);
  }

  patch(pathOrUrl: string, options?: RequestOptions): Promise<OAuth2Response> {
    return this.request('patch', pathOrUrl, options);
  }

  delete(pathOrUrl: string, options?: RequestOptions): Promise<OAuth2Response> {
    return this.request('delete', pathOrUrl, options);
  }

  /**
   * Exchanges the refresh token for a new token (RFC 6749 §6). The new token keeps this token's
   * options, and keeps this refresh token when the server returns none (§6: "MAY issue a new one").
   */
  async refresh(params: Params = {}): Promise<AccessToken> {
    if (this.refreshToken === undefined) throw new OAuth2UsageError('cannot refresh: a refresh_token is not available (the server issued none)');
    const refreshed = await this.client.getToken(
      { ...params, grant_type: 'refresh_token', refresh_token: this.refreshToken },
      { accessTokenClass: this.constructor as typeof AccessToken, ...this.inheritedOptions() },
    );
    refreshed.refreshToken ??= this.refreshToken;
    return refreshed;
  }

  /**
   * Revokes this token (RFC 7009). With no hint the access token is revoked (or the refresh token
   * when there is no access token); revoking a refresh token usually also invalidates its access tokens.
   */
  async revoke(options: RevokeOptions = {}): Promise<OAuth2Response> {
    const hint = options.tokenTypeHint ?? (this.token === '' ? 'refresh_token' : 'access_token');
    if (hint !== 'access_token' && hint !== 'refresh_token') {
      throw new OAuth2UsageError(`tokenTypeHint must be access_token or refresh_token, got ${String(hint)}`);
    }
    const token = hint === 'access_token' ? this.token : this.refreshToken;
    if (token === undefined || token === '') throw new OAuth2UsageError(`there is no ${hint} to revoke`);
    return this.client.revokeToken(token, hint, options.params);
  }

  /**
   * What `JSON.stringify` and loggers see: everything but the secrets (tokens, secret-named params,
   * the client's secret). Use `toHash()` to persist a token.
   */
  toJSON(): Record<string, unknown> {
    return {
      token: this.token === '' ? '' : REDACTED,
      refreshToken: this.refreshToken === undefined ? undefined : REDACTED,
      expiresAt: this.expiresAt,
      expiresIn: this.expiresIn,
      expiresLatency: this.expiresLatency,
      tokenName: this.tokenName,
      mode: typeof this.mode === 'function' ? '[Function]' : this.mode,
      params: redactValue(this.params),
      client: this.client.toJSON(),
      response: this.response === undefined ? undefined : { status: this.response.status },
    };
  }

  /** `util.inspect` (and so `console.log`) shows the redacted view of `toJSON`. */
  [inspect.custom](depth: number, options: object): string {
    return `${this.constructor.name} ${inspect(this.toJSON(), { ...options, depth })}`;
  }

  private inheritedOptions(): AccessTokenOptions {
    const options: AccessTokenOptions = { mode: this.mode, headerFormat: this.headerFormat, paramName: this.paramName };
    if (this.expiresLatency !== undefined) options.expiresLatency = this.expiresLatency;
    if (this.tokenName !== undefined) options.tokenName = this.tokenName;
    return options;
  }

  /** Attaches the token to a request by the mode for `verb` (reference: `mode`). */
  private authenticate(verb: Verb, options: RequestOptions): RequestOptions {
    const mode = modeFor(this.mode, verb);
    switch (mode) {
      case 'header':
        return { ...options, headers: { ...options.headers, ...this.headers() } };
      case 'query':
        return { ...options, params: { ...options.params, [this.paramName]: this.token } };
      case 'body': {
        const { body } = options;
        if (typeof body === 'string') {
          const pair = new URLSearchParams([[this.paramName, this.token]]).toString();
          return { ...options, body: body === '' ? pair : `${body}&${pair}`, bodyCarriesCredentials: true };
        }
        if (body instanceof Uint8Array) throw new OAuth2UsageError('mode body needs a form body (an object or a form-encoded string)');
        return { ...options, body: { ...body, [this.paramName]: this.token }, bodyCarriesCredentials: true };
      }
    }
  }
}

/** The mode for one verb; a per-verb object without an entry for the verb means `header`, as in the gem. */
function modeFor(mode: ModeOption, verb: Verb): TokenMode {
  const chosen = typeof mode === 'function' ? mode(verb) : typeof mode === 'string' ? mode : (mode[verb] ?? 'header');
  if (chosen !== 'header' && chosen !== 'query' && chosen !== 'body') {
    throw new OAuth2UsageError(`invalid mode for ${verb}: ${String(chosen)}`);
  }
  return chosen;
}

function findTokenKey(client: TokenClient, fields: Readonly<Record<string, unknown>>): string | undefined {
  const present = TOKEN_KEYS.filter((key) => fields[key] !== undefined && fields[key] !== null);
  if (present.length > 1 && !currentConfig().silenceExtraTokensWarning) {
    client.logger.warn(`AccessToken.fromHash: the hash holds more than one token key (${present.join(', ')}); using ${present[0]}.`);
  }
  return present[0];
}

function emptyToUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function toNumber(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** `expires_at` as epoch seconds: a number, a numeric string, or an ISO 8601 date-time. */
function toEpochSeconds(value: unknown): number | undefined {
  const number = toNumber(value);
  if (number !== undefined) return number;
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
}

