import type { GrantClient } from './grant-client.js';
import type { AuthorizationRequest, Params } from '../types.js';
import { assertNoClientSecret } from './authorize-params.js';

/**
 * The implicit grant (RFC 6749 §4.2; discouraged by OAuth 2.1). The token comes back in the
 * redirect URI's fragment: read it with `AccessToken.fromKvform`.
 */
export class ImplicitStrategy {
  constructor(private readonly client: GrantClient) {}

  /** `<authorize URL>?client_id=…&redirect_uri=…&response_type=token&…` (RFC 6749 §4.2.1). */
  authorizeUrl(params: Partial<Omit<AuthorizationRequest, 'response_type' | 'client_id'>> & Params = {}): string {
    assertNoClientSecret(params);
    return this.client.authorizeUrl({ client_id: this.client.id, ...this.client.redirectionParams(), response_type: 'token', ...params });
  }
}
