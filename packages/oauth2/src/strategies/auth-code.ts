import type { AccessToken, GetTokenOptions } from '../access-token.js';
import type { GrantClient } from './grant-client.js';
import type { AuthorizationCodeGrantRequest, AuthorizationRequest, GrantParams, Params } from '../types.js';
import { assertNoClientSecret } from './authorize-params.js';

/** Authorization URL parameters, plus PKCE in camelCase: `codeChallenge` (method S256 unless `codeChallengeMethod`). */
export type AuthorizeParams = Partial<Omit<AuthorizationRequest, 'response_type' | 'client_id'>> &
  Params & { codeChallenge?: string; codeChallengeMethod?: AuthorizationRequest['code_challenge_method'] };

/** Token request parameters of the code grant, plus the PKCE `codeVerifier` (RFC 7636 §4.5). */
export type AuthCodeTokenParams = GrantParams<AuthorizationCodeGrantRequest> & { codeVerifier?: string };

/** The authorization code grant (RFC 6749 §4.1). */
export class AuthCodeStrategy {
  constructor(private readonly client: GrantClient) {}

  /** `<authorize URL>?client_id=…&redirect_uri=…&response_type=code&…` (RFC 6749 §4.1.1, RFC 7636 §4.3). */
  authorizeUrl(params: AuthorizeParams = {}): string {
    const { codeChallenge, codeChallengeMethod, ...rest } = params;
    assertNoClientSecret(rest);
    const pkce = codeChallenge === undefined ? {} : { code_challenge: codeChallenge, code_challenge_method: codeChallengeMethod ?? 'S256' };
    return this.client.authorizeUrl({
      client_id: this.client.id,
      ...this.client.redirectionParams(),
      response_type: 'code',
      ...pkce,
      ...rest,
    });
  }

  /** Exchanges the code (RFC 6749 §4.1.3); the client's redirect_uri is sent unless params override it. */
  getToken(code: string, params: AuthCodeTokenParams = {}, options?: GetTokenOptions): Promise<AccessToken> {
    const { codeVerifier, ...rest } = params;
    return this.client.getToken(
      {
        grant_type: 'authorization_code',
        code,
        ...this.client.redirectionParams(),
        ...(codeVerifier === undefined ? {} : { code_verifier: codeVerifier }),
        ...rest,
      },
      options,
    );
  }
}
