import type { AccessToken, GetTokenOptions } from '../access-token.js';
import type { GrantClient } from './grant-client.js';
import type { JwtClaims, SigningKey } from '../jwt.js';
import type { GrantParams, JwtBearerGrantRequest } from '../types.js';

export interface AssertionInput {
  /** The claim set (RFC 7523 §3: iss, sub, aud, exp, …). */
  claims: JwtClaims;
  /** JWS algorithm, e.g. RS256, ES256, HS256. */
  algorithm: string;
  key: SigningKey;
  kid?: string;
}

/** The JWT bearer assertion grant (RFC 7523 §2.1), signed by the client's `signJwt`. */
export class AssertionStrategy {
  constructor(private readonly client: GrantClient) {}

  async getToken(input: AssertionInput, params: GrantParams<JwtBearerGrantRequest> = {}, options?: GetTokenOptions): Promise<AccessToken> {
    const assertion = await this.client.signJwt(input.claims, { key: input.key, alg: input.algorithm, ...(input.kid === undefined ? {} : { kid: input.kid }) });
    return this.client.getToken({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, ...params }, options);
  }
}
