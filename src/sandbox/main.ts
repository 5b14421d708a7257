/** `npm run sandbox`: the sandbox on SANDBOX_PORT (default 4100), printing its URL and test credentials. */
import { readSettings, SettingError, type SettingValues } from '../lib/settings.js';
import { startSandbox, type MembershipPagination } from './index.js';
import { SANDBOX_SETTINGS } from './settings.js';

/** A bad setting: EX_CONFIG of sysexits.h, as `npm start` and `npm run authorize` use. */
const EX_CONFIG = 78;

let settings: SettingValues<typeof SANDBOX_SETTINGS>;
try {
  settings = readSettings(SANDBOX_SETTINGS, process.env);
} catch (error) {
  if (!(error instanceof SettingError)) throw error;
  console.error(error.message);
  process.exit(EX_CONFIG);
}

// SANDBOX_MEMBERSHIP_PAGINATION was checked against its values when read (oneOf types it as a string).
const sandbox = await startSandbox({ ...settings, membershipPagination: settings.membershipPagination as MembershipPagination });
const { credentials } = sandbox;
console.log(`sandbox: membership and video platforms emulated at ${sandbox.url}`);
console.log(`
# .env for the sandbox (test credentials, not secrets)
MEMBERSHIP_API_BASE=${sandbox.url}
VIDEO_API_BASE=${sandbox.url}
MEMBERSHIP_CLIENT_ID=${credentials.clientId}
MEMBERSHIP_CLIENT_SECRET=${credentials.clientSecret}
MEMBERSHIP_ACCESS_TOKEN=${credentials.accessToken}
MEMBERSHIP_REFRESH_TOKEN=${credentials.refreshToken}
MEMBERSHIP_CAMPAIGN_ID=${credentials.campaignId}
MEMBERSHIP_WEBHOOK_SECRET=${credentials.webhookSecret}

# members.json for the sandbox
${JSON.stringify(credentials.members, null, 2)}
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => process.exit(0));
  });
}
