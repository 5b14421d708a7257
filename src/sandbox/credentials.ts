/**
 * The sandbox's documented test credentials. They are fixed (not secret, not seed-dependent) so the
 * docs (docs/sandbox.md) can list them and `.env` files written for the sandbox keep working.
 */
import type { MembersConfig } from '../channel/members-config.js';
import type { MembershipCredentials } from '../channel/membership.js';

/**
 * The membership credentials the sandbox issues — its access token is valid for one access-token
 * TTL after the sandbox starts (or until POST /__sandbox/expire-tokens), its refresh token once per
 * sandbox process — and a members.json for the emulated video platform.
 */
export interface SandboxCredentials extends MembershipCredentials {
  accessToken: string;
  refreshToken: string;
  members: MembersConfig;
}

const SANDBOX_CHANNEL_ID = 'UCsandboxChannel00000001';

export function sandboxCredentials(): SandboxCredentials {
  return {
    clientId: 'sandbox-client-id',
    clientSecret: 'sandbox-client-secret',
    accessToken: 'sandbox-access-token',
    refreshToken: 'sandbox-refresh-token',
    campaignId: '4100123',
    webhookSecret: 'sandbox-webhook-secret',
    members: {
      key: 'sandbox-api-key',
      externalChannelId: SANDBOX_CHANNEL_ID,
      context: {
        client: { clientName: 62, clientVersion: '1.20260101.00.00', hl: 'en', gl: 'US' },
        request: { returnLogEntry: true, internalExperimentFlags: [] },
        user: { onBehalfOfUser: '104857600000000000001' },
      },
      headers: {
        authorization: 'SAPISIDHASH 1767225600_sandbox',
        cookie: 'SAPISID=sandbox; __Secure-3PAPISID=sandbox',
        'x-goog-authuser': '0',
        'x-origin': 'https://studio.youtube.com',
        'x-youtube-client-name': '62',
        'x-youtube-client-version': '1.20260101.00.00',
      },
      referrer: `https://studio.youtube.com/channel/${SANDBOX_CHANNEL_ID}/monetization/memberships`,
    },
  };
}
