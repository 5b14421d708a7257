/** The variables that run the service (`src/main.ts`) in live mode against a sandbox started by a test. */
import type { RunningSandbox } from '../../src/sandbox/index.js';

export function liveModeEnv(sandbox: RunningSandbox): Record<string, string> {
  const { credentials } = sandbox;
  return {
    MEMBERSHIP_API_BASE: sandbox.url,
    VIDEO_API_BASE: sandbox.url,
    MEMBERSHIP_CLIENT_ID: credentials.clientId,
    MEMBERSHIP_CLIENT_SECRET: credentials.clientSecret,
    MEMBERSHIP_ACCESS_TOKEN: credentials.accessToken,
    MEMBERSHIP_REFRESH_TOKEN: credentials.refreshToken,
    MEMBERSHIP_CAMPAIGN_ID: credentials.campaignId,
    MEMBERSHIP_WEBHOOK_SECRET: credentials.webhookSecret,
  };
}
