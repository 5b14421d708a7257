import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp, MEMBERSHIP_TOKEN_FILE, type ChannelApp } from '../../src/app.js';
import { FileTokenStore } from '../../src/channel/file-token-store.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, request, sandboxControl, sandboxRequests, silentLogger, testConfig } from './harness.js';

/**
 * Token expiry and refresh-token rotation across a restart. The sandbox outlives two app instances
 * that get the SAME `.env` seed tokens: the first rotates them away; the second must use the token
 * persisted under DATA_DIR, because the sandbox refuses a refresh token once it has been used.
 */
let sandbox: RunningSandbox;
let dataDir: Awaited<ReturnType<typeof makeDataDir>>;
const apps: ChannelApp[] = [];

async function startApp(dir: string): Promise<ChannelApp> {
  const app = await createChannelApp(testConfig(dir, liveUpstream(sandbox)), { logger: silentLogger });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  sandbox = await startSandbox({ accessTokenTtlSeconds: 3600 });
  dataDir = await makeDataDir();
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await sandbox.close();
  await dataDir.remove();
});

describe('membership tokens', () => {
  it('refreshes an expired access token, persists the rotated tokens, and a restart uses them', async () => {
    const seed = sandbox.credentials;
    const first = await startApp(dataDir.path);
    await first.store.refresh('membership');
    expect((await sandboxRequests(sandbox)).token).toBe(0); // the seed access token is still valid

    // The platform expires the access token: the next read gets a 401, refreshes once and retries.
    await sandboxControl(sandbox, 'POST', 'expire-tokens');
    await first.store.refresh('membership');
    expect((await sandboxRequests(sandbox)).token).toBe(1);
    expect((await request(first.url, 'GET', '/membership/pledges')).json()).toMatchObject({ stale: false });

    const tokenFile = join(dataDir.path, MEMBERSHIP_TOKEN_FILE);
    const stored = await new FileTokenStore(tokenFile).load();
    expect(stored?.refresh_token).toEqual(expect.any(String));
    expect(stored?.refresh_token).not.toBe(seed.refreshToken);
    expect(stored?.access_token).not.toBe(seed.accessToken);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    await first.close();

    // Restart with the same (now dead) seed tokens in the configuration and the same DATA_DIR.
    await sandboxControl(sandbox, 'POST', 'expire-tokens');
    const second = await startApp(dataDir.path);
    await second.store.refresh('membership');
    expect((await sandboxRequests(sandbox)).token).toBe(2);
    expect(second.store.health().membership).toMatchObject({ stale: false, lastError: null });
    const rotatedAgain = await new FileTokenStore(tokenFile).load();
    expect(rotatedAgain?.refresh_token).not.toBe(stored?.refresh_token);
    await second.close();
  });

  it('without the persisted token the used seed refresh token is refused (what a restart would hit)', async () => {
    const fresh = await makeDataDir();
    try {
      await sandboxControl(sandbox, 'POST', 'expire-tokens');
      const app = await startApp(fresh.path);
      await expect(app.store.refresh('membership')).rejects.toThrow();
      const response = await request(app.url, 'GET', '/membership/pledges');
      expect(response.status).toBe(503);
      expect(app.store.health().membership.lastError).not.toContain(sandbox.credentials.refreshToken);
      await app.close();
    } finally {
      await fresh.remove();
    }
  });
});
