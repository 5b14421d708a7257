import type { KeyObject } from 'node:crypto';
import { importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';

/** A signing key: a CryptoKey/KeyObject, a JWK, or the shared secret of an HMAC algorithm (HS256 …). */
export type SigningKey = CryptoKey | KeyObject | JWK | Uint8Array | string;

export interface SigningOptions {
  key: SigningKey;
  /** JWS algorithm name (RFC 7518 §3.1), e.g. RS256, ES256, HS256. */
  alg: string;
  /** Key id, sent as the `kid` JWS header (reference: "JSON Web Signature support with key id"). */
  kid?: string;
}

/** Signs `claims` as a compact JWS (RFC 7515). */
export async function signJwt(claims: JWTPayload, { key, alg, kid }: SigningOptions): Promise<string> {
  const header = kid === undefined ? { alg, typ: 'JWT' } : { alg, kid, typ: 'JWT' };
  return new SignJWT(claims).setProtectedHeader(header).sign(await toKeyLike(key, alg));
}

async function toKeyLike(key: SigningKey, alg: string): Promise<CryptoKey | KeyObject | Uint8Array> {
  if (typeof key === 'string') return new TextEncoder().encode(key);
  if (key instanceof Uint8Array) return key;
  if (isJwk(key)) return importJWK(key, alg);
  return key;
}

function isJwk(key: CryptoKey | KeyObject | JWK): key is JWK {
  return typeof (key as JWK).kty === 'string';
}
