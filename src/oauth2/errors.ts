import type { OAuth2Response } from './response.js';
import { isPlainObject } from './snaky-hash.js';

/**
 * An error response of the server (status ≥ 400, or a response the library cannot use). `code` and
 * `description` are the `error` and `error_description` of a standard error response (RFC 6749
 * §5.2); `response` is always set. The message holds the code and description, never the body,
 * so no secret the body might echo reaches logs.
 */
export class OAuth2Error extends Error {
  override readonly name = 'OAuth2Error';
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

function errorMessage(status: number, code: string | undefined, description: string | undefined): string {
  if (code === undefined) return `HTTP ${status}`;
  return description === undefined ? `${code} (HTTP ${status})` : `${code}: ${description} (HTTP ${status})`;
}

/** The request did not complete within `connection.timeout` / `connection.openTimeout`. */
export class OAuth2TimeoutError extends Error {
  override readonly name = 'OAuth2TimeoutError';
}

/** The server could not be reached (refused, reset, DNS, TLS handshake failure …). */
export class OAuth2ConnectionError extends Error {
  override readonly name = 'OAuth2ConnectionError';
}
