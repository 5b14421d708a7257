import type { AccessToken, GetTokenOptions } from '../access-token.js';
import type { JwtClaims, SigningOptions } from '../jwt.js';
import type { Params, TokenParams } from '../types.js';

/**
 * What a grant needs of its client: OAuth2Client is one. The strategies depend on this interface,
 * not on the client's class, which creates them (so the modules do not import each other).
 */
export interface GrantClient {
  readonly id: string | null;
  authorizeUrl(params?: Params): string;
  redirectionParams(): { redirect_uri?: string };
  getToken(params: TokenParams, options?: GetTokenOptions): Promise<AccessToken>;
  /** Signs a JWT with the client's `signJwt`; OAuth2UsageError when it has none. */
  signJwt(claims: JwtClaims, options: SigningOptions): Promise<string>;
}
