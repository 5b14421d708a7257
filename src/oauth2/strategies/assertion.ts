import type { JWTPayload } from 'jose';
import type { AccessToken, GetTokenOptions } from '../access-token.js';
import type { GrantClient } from './grant-client.js';
import { type SigningKey, signJwt } from '../jwt.js';
import type { GrantParams, JwtBearerGrantRequest } from '../types.js';

export interface AssertionInput {
  /** The claim set (RFC 7523 §3: iss, sub, aud, exp, …). */
  claims: JWTPayload;
  /** JWS algorithm, e.g. RS256, ES256, HS256. */
  algorithm: string;
  key: SigningKey;
  kid?: string;
}

/** The JWT bearer assertion grant (RFC 7523 §2.1). */
export class AssertionStrategy {
  constructor(private readonly client: GrantClient) {}

  async getToken(input: AssertionInput, params: GrantParams<JwtBearerGrantRequest> = {}, options?: GetTokenOptions): Promise<AccessToken> {
    const assertion = await signJwt(input.claims, { key: input.key, alg: input.algorithm, ...(input.kid === undefined ? {} : { kid: input.kid }) });
    return this.client.getToken({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, ...params }, options);
  }
}
