import type { AccessToken, GetTokenOptions } from '../access-token.js';
import type { GrantClient } from './grant-client.js';
import type { ClientCredentialsGrantRequest, GrantParams } from '../types.js';

/** The client credentials grant (RFC 6749 §4.4). */
export class ClientCredentialsStrategy {
  constructor(private readonly client: GrantClient) {}

  getToken(params: GrantParams<ClientCredentialsGrantRequest> = {}, options?: GetTokenOptions): Promise<AccessToken> {
    return this.client.getToken({ grant_type: 'client_credentials', ...params }, options);
  }
}
