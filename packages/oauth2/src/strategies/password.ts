import type { AccessToken, GetTokenOptions } from '../access-token.js';
import type { GrantClient } from './grant-client.js';
import type { GrantParams, PasswordGrantRequest } from '../types.js';

/** The resource owner password credentials grant (RFC 6749 §4.3; discouraged by OAuth 2.1). */
export class PasswordStrategy {
  constructor(private readonly client: GrantClient) {}

  getToken(username: string, password: string, params: GrantParams<PasswordGrantRequest> = {}, options?: GetTokenOptions): Promise<AccessToken> {
    return this.client.getToken({ grant_type: 'password', username, password, ...params }, options);
  }
}
