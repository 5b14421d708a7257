import type { KeyObject, webcrypto } from 'node:crypto';

/** A JSON Web Key (RFC 7517 §4): `kty` and the parameters of its type. */
export interface Jwk {
  kty?: string;
  [parameter: string]: unknown;
}

/** A signing key: a CryptoKey/KeyObject, a JWK, or the shared secret of an HMAC algorithm (HS256 …). */
export type SigningKey = webcrypto.CryptoKey | KeyObject | Jwk | Uint8Array | string;

export interface SigningOptions {
  key: SigningKey;
  /** JWS algorithm name (RFC 7518 §3.1), e.g. RS256, ES256, HS256. */
  alg: string;
  /** Key id, sent as the `kid` JWS header (reference: "JSON Web Signature support with key id"). */
  kid?: string;
}

/** A JWT claim set (RFC 7519 §4): the registered claims and any others. */
export interface JwtClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  [claim: string]: unknown;
}

/**
 * Signs `claims` as a compact JWS (RFC 7515). `signJwt` of `@channel-graph/oauth2/assertion` is one
 * (on jose, an optional peer dependency); the client needs one only for the assertion grant and
 * `private_key_jwt`, so no other user installs a JWT library.
 */
export type JwtSigner = (claims: JwtClaims, options: SigningOptions) => Promise<string>;
