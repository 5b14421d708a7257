/**
 * The errors the library raises that carry no response. OAuth2Error and its subclasses carry the
 * server's response, and the response its error: they live with OAuth2Response in response.ts.
 *
 * The base of every error the library raises itself (as ky's `KyError`): `instanceof
 * OAuth2BaseError` tells a failure of the OAuth2 exchange from any other error. Messages never hold
 * a body, a token or a secret.
 */
export class OAuth2BaseError extends Error {
  override readonly name: string = 'OAuth2BaseError';
}

/**
 * A TokenKeeper has no usable token: none configured nor stored, or the stored one was revoked. No
 * retry helps; a new login (or new configured tokens) does.
 */
export class OAuth2NoTokenError extends OAuth2BaseError {
  override readonly name: string = 'OAuth2NoTokenError';
}

/** The request did not complete within `connection.timeout`, or the connect timeout of its pool (`undiciPool({ openTimeout })`). */
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
