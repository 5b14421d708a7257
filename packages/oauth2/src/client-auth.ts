import { randomUUID } from 'node:crypto';
import { OAuth2UsageError } from './errors.js';
import type { JwtSigner, SigningOptions } from './jwt.js';
import { formEncode } from './url.js';

/** Client authentication at the token and revocation endpoints (reference: `auth_scheme`). */
export type AuthScheme = 'basic_auth' | 'request_body' | 'tls_client_auth' | 'private_key_jwt';

const AUTH_SCHEMES: ReadonlySet<string> = new Set<AuthScheme>(['basic_auth', 'request_body', 'tls_client_auth', 'private_key_jwt']);

/**
 * How id and secret are written into the Basic credentials of `basic_auth`:
 * - `form` (default): each form-urlencoded first, as RFC 6749 §2.3.1 requires — what oidc-provider
 *   and other certified servers decode, and the only way to carry a `:` in the client id;
 * - `plain`: as they are (RFC 7617), as the Ruby gem sends them — what servers that skip the
 *   decoding step expect (`@node-oauth/oauth2-server` through the `basic-auth` package).
 * Both are the same bytes for ids and secrets made of letters, digits and `-._~` only.
 */
export type BasicAuthEncoding = 'form' | 'plain';

export interface ClientCredentials {
  id: string | null;
  secret: string | null;
  authScheme: AuthScheme;
  basicAuthEncoding: BasicAuthEncoding;
  clientAssertionKey: SigningOptions | undefined;
  /** Signs the `private_key_jwt` assertion (see JwtSigner). */
  signJwt: JwtSigner;
}

/** The credentials with their options checked once, up front: an unknown scheme must not silently send none. */
export function clientCredentials(credentials: ClientCredentials): Readonly<ClientCredentials> {
  if (!AUTH_SCHEMES.has(credentials.authScheme)) {
    throw new OAuth2UsageError(`unknown authScheme ${JSON.stringify(credentials.authScheme)}; expected one of ${[...AUTH_SCHEMES].join(', ')}`);
  }
  if (credentials.basicAuthEncoding !== 'form' && credentials.basicAuthEncoding !== 'plain') {
    throw new OAuth2UsageError(`unknown basicAuthEncoding ${JSON.stringify(credentials.basicAuthEncoding)}; expected form or plain`);
  }
  if (credentials.authScheme === 'basic_auth' && credentials.basicAuthEncoding === 'plain' && credentials.secret !== null && credentials.id?.includes(':')) {
    throw new OAuth2UsageError('a client id holding ":" cannot be sent in plain Basic credentials (RFC 7617 §2); use basicAuthEncoding form');
  }
  return Object.freeze({ ...credentials });
}

/** Lifetime of a private_key_jwt client assertion, in seconds (short: it is single-use, RFC 7523 §3 item 4). */
const CLIENT_ASSERTION_LIFETIME = 60;

/**
 * Adds the client's credentials to a token or revocation request, in place. `endpoint` is the token
 * endpoint URL, the audience of a private_key_jwt assertion. A client without a secret (a public
 * client, RFC 6749 §2.1) identifies itself with `client_id` in the body (§3.2.1).
 */
export async function authenticateClient(
  credentials: ClientCredentials,
  form: Record<string, unknown>,
  headers: Record<string, string>,
  endpoint: string,
): Promise<void> {
  const { id, secret } = credentials;
  if (id === null) return;
  switch (credentials.authScheme) {
    case 'basic_auth':
      if (secret === null) form.client_id = id;
      else headers.authorization = basicCredentials(id, secret, credentials.basicAuthEncoding);
      return;
    case 'request_body':
      form.client_id = id;
      if (secret !== null) form.client_secret = secret;
      return;
    case 'tls_client_auth':
      // RFC 8705 §2: the certificate authenticates; client_id says which client it is.
      form.client_id = id;
      return;
    case 'private_key_jwt':
      form.client_id = id;
      form.client_assertion_type = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
      form.client_assertion = await clientAssertion(id, endpoint, credentials.clientAssertionKey, credentials.signJwt);
      return;
  }
}

/**
 * The Basic Authorization header value: id and secret joined by ':' and base64-encoded, each
 * form-urlencoded first with `form` (RFC 6749 §2.3.1), as they are with `plain` (RFC 7617).
 */
export function basicCredentials(id: string, secret: string, encoding: BasicAuthEncoding = 'form'): string {
  const encode = encoding === 'form' ? formEncode : (value: string) => value;
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

/** RFC 7523 §2.2 / §3, OpenID Connect Core §9: iss = sub = client_id, aud = token endpoint, unique jti. */
async function clientAssertion(id: string, endpoint: string, key: SigningOptions | undefined, signJwt: JwtSigner): Promise<string> {
  if (key === undefined) throw new OAuth2UsageError('authScheme private_key_jwt needs the clientAssertionKey option');
  const now = Math.floor(Date.now() / 1000);
  return signJwt({ iss: id, sub: id, aud: endpoint, jti: randomUUID(), iat: now, exp: now + CLIENT_ASSERTION_LIFETIME }, key);
}
