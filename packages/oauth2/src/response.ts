/**
 * An HTTP response and the errors that carry one. `response.error` and `error.response` refer to
 * each other, so they share this module (errors.ts holds the errors without a response).
 */
import { inspect } from 'node:util';
import { OAuth2BaseError } from './errors.js';
import { type ParseOptions, type Parsed, parseBody } from './parse.js';
import { redactBody, redactHeaders } from './redact.js';
import { isPlainObject } from './snaky-hash.js';

/** An HTTP response (reference: `OAuth2::Response`). Header names are lowercase. */
export class OAuth2Response {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The original body. */
  readonly body: string;
  /** Set when `raiseErrors` is false and the status is ≥ 400. */
  error: OAuth2Error | undefined;
  readonly #parseOptions: ParseOptions;
  #parsed: Parsed | undefined;

  constructor(status: number, headers: Readonly<Record<string, string>>, body: string, parseOptions: ParseOptions = {}) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.#parseOptions = parseOptions;
  }

  get contentType(): string {
    return this.headers['content-type'] ?? '';
  }

  /** The body parsed by the `parsed` rules (computed on first read). */
  get parsed(): Parsed {
    this.#parsed ??= parseBody(this.body, this.contentType, this.#parseOptions);
    return this.#parsed;
  }

  /** `util.inspect` (so `console.log(error)` of an OAuth2Error too) shows headers and body with secrets redacted. */
  [inspect.custom](depth: number, options: object): string {
    const shown = { status: this.status, headers: redactHeaders(this.headers), body: redactBody(this.body) };
    return `OAuth2Response ${inspect(shown, { ...options, depth })}`;
  }
}

/**
 * An error response of the server (status ≥ 400, or a response the library cannot use). `code` and
 * `description` are the `error` and `error_description` of a standard error response (RFC 6749
 * §5.2); `response` is always set. The message holds the code and description, never the body,
 * so no secret the body might echo reaches logs.
 */
export class OAuth2Error extends OAuth2BaseError {
  override readonly name: string = 'OAuth2Error';
  readonly code: string | undefined;
  readonly description: string | undefined;
  readonly response: OAuth2Response;

  constructor(response: OAuth2Response, message?: string, options?: ErrorOptions) {
    const parsed = response.parsed;
    const code = isPlainObject(parsed) && typeof parsed.error === 'string' ? parsed.error : undefined;
    const description =
      isPlainObject(parsed) && typeof parsed.error_description === 'string' ? parsed.error_description : undefined;
    super(message ?? errorMessage(response.status, code, description), options);
    this.code = code;
    this.description = description;
    this.response = response;
  }
}

/**
 * A token response labelled JSON whose body is not JSON (the gem raises its JSON parser's error
 * here). `cause` is the SyntaxError; `response.body` holds the text.
 */
export class OAuth2ParseError extends OAuth2Error {
  override readonly name: string = 'OAuth2ParseError';
}

/**
 * A redirect the library refuses to follow: it would carry credentials (a client secret, an
 * assertion, a grant's code or token) in the body to another origin than the one they were
 * configured for. `response` is the redirect.
 */
export class OAuth2RedirectError extends OAuth2Error {
  override readonly name: string = 'OAuth2RedirectError';
}

function errorMessage(status: number, code: string | undefined, description: string | undefined): string {
  if (code === undefined) return `HTTP ${status}`;
  return description === undefined ? `${code} (HTTP ${status})` : `${code}: ${description} (HTTP ${status})`;
}
