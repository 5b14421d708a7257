/** `npm run sandbox`: the sandbox on SANDBOX_PORT (default 4100), printing its URL and test credentials. */
import { startSandbox } from './index.js';

function readInteger(name: string, fallback: number | undefined): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) {
    console.error(`${name}: expected a non-negative integer, got "${raw}"`);
    process.exit(1);
  }
  return Number(raw);
}

const sandbox = await startSandbox({
  port: readInteger('SANDBOX_PORT', 4100),
  seed: readInteger('SANDBOX_SEED', undefined),
  patrons: readInteger('SANDBOX_PATRONS', undefined),
  videoMembers: readInteger('SANDBOX_VIDEO_MEMBERS', undefined),
  accessTokenTtlSeconds: readInteger('SANDBOX_ACCESS_TOKEN_TTL_SECONDS', undefined),
});
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
