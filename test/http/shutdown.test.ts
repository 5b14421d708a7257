import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChannelApp, MEMBERSHIP_TOKEN_FILE, ShutdownTimeoutError, type ChannelApp } from '../../src/app.js';
import { FileTokenStore } from '@channel-graph/oauth2';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { captureLogger, liveUpstream, makeDataDir, request, sandboxControl, sandboxRequests, testConfig } from './harness.js';

/**
 * ChannelApp.close(), the shutdown sequence behind SIGTERM: requests in flight finish while new
 * connections are refused; a membership token refresh in flight is answered and its rotated token
 * saved before close() resolves; the whole is bounded by shutdownTimeoutMs. (The signals and the
 * process exit are tested on the real process in shutdown.slow.test.ts.)
 */
let sandbox: RunningSandbox;
const cleanups: Array<() => Promise<unknown>> = [];

// A sandbox per test: each app starts from the sandbox's seed refresh token, which works once.
beforeEach(async () => {
  sandbox = await startSandbox({ seed: 21 });
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  await sandbox.close();
});

async function startApp(overrides: Parameters<typeof testConfig>[2] = {}): Promise<{ app: ChannelApp; dataDir: string; logged: Array<Record<string, unknown>> }> {
  const dataDir = await makeDataDir();
  const { logger, lines: logged } = captureLogger();
  const app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox), overrides), { logger });
  cleanups.push(async () => {
    await app.close().catch(() => undefined);
    await dataDir.remove();
  });
  return { app, dataDir: dataDir.path, logged };
}

/** Expires the access tokens and starts a membership refresh that will need the (slowed) token endpoint. */
async function startRefreshInFlight(app: ChannelApp, tokenLatencyMs: number): Promise<void> {
  await app.store.refresh('membership');
  const before = (await sandboxRequests(sandbox)).token;
  await sandboxControl(sandbox, 'POST', 'faults', { target: 'token', latencyMs: tokenLatencyMs });
  await sandboxControl(sandbox, 'POST', 'expire-tokens');
  app.store.refresh('membership').catch(() => undefined);
  while ((await sandboxRequests(sandbox)).token === before) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function refreshWith(refreshToken: string): Promise<number> {
  const { clientId, clientSecret } = sandbox.credentials;
  const response = await fetch(`${sandbox.url}/api/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret }),
  });
  return response.status;
}

describe('ChannelApp.close()', () => {
  it('with a token refresh in flight: resolves only once the answer is in and the rotated token is saved', async () => {
    const { app, dataDir, logged } = await startApp();
    await startRefreshInFlight(app, 1_500);
    // The sandbox has already retired the seed refresh token; its answer is 1.5 s away.
    expect(await new FileTokenStore(join(dataDir, MEMBERSHIP_TOKEN_FILE)).load()).toBeNull();
    const started = performance.now();
    await app.close();
    const ms = performance.now() - started;
    const saved = await new FileTokenStore(join(dataDir, MEMBERSHIP_TOKEN_FILE)).load();
    expect(saved?.refresh_token).toEqual(expect.any(String));
    expect(saved?.refresh_token).not.toBe(sandbox.credentials.refreshToken);
    expect(logged.map((line) => line.msg)).toContain('closing: waiting for the membership token refresh in flight and its save');
    expect(ms).toBeGreaterThan(500); // it did wait for the late answer
    expect(await refreshWith(saved?.refresh_token as string)).toBe(200); // the saved token is the valid one
  });

  it('rejects with ShutdownTimeoutError, naming what it waited for, after shutdownTimeoutMs', async () => {
    const { app } = await startApp({ shutdownTimeoutMs: 800 });
    await startRefreshInFlight(app, 4_000);
    const started = performance.now();
    const error = await app.close().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ShutdownTimeoutError);
    expect((error as Error).message).toBe('shutdown did not finish within 800 ms (still waiting for the membership token refresh in flight and its save)');
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('lets a request in flight finish and refuses new connections meanwhile', async () => {
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', latencyMs: 1_000 });
    const { app } = await startApp();
    const inFlight = request(app.url, 'GET', '/video/stats'); // a cold read: waits for the slow upstream
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.json()).toMatchObject({ stale: false });
    await closing;
  });
});
