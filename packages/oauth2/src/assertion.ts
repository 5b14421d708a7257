/**
 * `@channel-graph/oauth2/assertion`: the JWT signer of the assertion grant (RFC 7523 §2.1) and of
 * `private_key_jwt` client authentication (RFC 7523 §2.2), on jose — an optional peer dependency,
 * installed only by the users of these two:
 *
 *   const client = new OAuth2Client(id, secret, { site, signJwt });
 *   await client.assertion.getToken({ claims, algorithm: 'RS256', key });
 */
import { importJWK, type JWK, SignJWT } from 'jose';
import type { Jwk, JwtClaims, JwtSigner, SigningKey, SigningOptions } from './jwt.js';

/** Signs `claims` as a compact JWS (RFC 7515) with jose. */
export const signJwt: JwtSigner = async (claims: JwtClaims, { key, alg, kid }: SigningOptions): Promise<string> => {
  const header = kid === undefined ? { alg, typ: 'JWT' } : { alg, kid, typ: 'JWT' };
  return new SignJWT(claims).setProtectedHeader(header).sign(await toKeyLike(key, alg));
};

async function toKeyLike(key: SigningKey, alg: string): Promise<Exclude<SigningKey, string | Jwk>> {
  if (typeof key === 'string') return new TextEncoder().encode(key);
  if (key instanceof Uint8Array) return key;
  if (isJwk(key)) return importJWK(key as JWK, alg);
  return key;
}

function isJwk(key: Exclude<SigningKey, string | Uint8Array>): key is Jwk {
  return typeof (key as { kty?: unknown }).kty === 'string';
}

export type { JwtClaims, JwtSigner, SigningKey, SigningOptions } from './jwt.js';
