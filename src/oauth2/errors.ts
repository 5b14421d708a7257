import type { OAuth2Response } from './response.js';
import { isPlainObject } from './snaky-hash.js';

/**
 * The base of every error the library raises itself (as ky's `KyError`): `instanceof
 * OAuth2BaseError` tells a failure of the OAuth2 exchange from any other error. Messages never hold
 * a body, a token or a secret.
 */
export class OAuth2BaseError extends Error {
  override readonly name: string = 'OAuth2BaseError';
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

/** The request did not complete within `connection.timeout` / `connection.openTimeout`. */
export class OAuth2TimeoutError extends OAuth2BaseError {
  override readonly name: string = 'OAuth2TimeoutError';
}

/** The server could not be reached (refused, reset, DNS, TLS handshake failure …) or its answer exceeded the size limit. */
export class OAuth2ConnectionError extends OAuth2BaseError {
  override readonly name: string = 'OAuth2ConnectionError';
}

/**
 * The library was asked for something its inputs do not allow: refreshing a token without a refresh
 * token, revoking a token that is absent, an unknown `authScheme`, `private_key_jwt` without a key.
 */
export class OAuth2UsageError extends OAuth2BaseError {
  override readonly name: string = 'OAuth2UsageError';
}

/**
 * The caller's `signal` aborted the request. Named `AbortError`, as fetch names an aborted request;
 * `cause` is the signal's reason.
 */
export class OAuth2AbortError extends OAuth2BaseError {
  override readonly name: string = 'AbortError';
}
