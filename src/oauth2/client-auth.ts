import { randomUUID } from 'node:crypto';
import { type SigningOptions, signJwt } from './jwt.js';
import { formEncode } from './url.js';

/** Client authentication at the token and revocation endpoints (reference: `auth_scheme`). */
export type AuthScheme = 'basic_auth' | 'request_body' | 'tls_client_auth' | 'private_key_jwt';

export interface ClientCredentials {
  id: string | null;
  secret: string | null;
  authScheme: AuthScheme;
  clientAssertionKey: SigningOptions | undefined;
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
      else headers.authorization = basicCredentials(id, secret);
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
      form.client_assertion = await clientAssertion(id, endpoint, credentials.clientAssertionKey);
      return;
  }
}

/** RFC 6749 §2.3.1: id and secret are each form-urlencoded, then joined by ':' and base64-encoded. */
export function basicCredentials(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64')}`;
}

/** RFC 7523 §2.2 / §3, OpenID Connect Core §9: iss = sub = client_id, aud = token endpoint, unique jti. */
async function clientAssertion(id: string, endpoint: string, key: SigningOptions | undefined): Promise<string> {
  if (key === undefined) throw new TypeError('authScheme private_key_jwt needs the clientAssertionKey option');
  const now = Math.floor(Date.now() / 1000);
  return signJwt({ iss: id, sub: id, aud: endpoint, jti: randomUUID(), iat: now, exp: now + CLIENT_ASSERTION_LIFETIME }, key);
}
