import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import type { SupportersResponse } from '@channel-graph/client/rest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, request, sandboxControl, sandboxRequests, silentLogger, testConfig } from './harness.js';

/**
 * Upstream faults injected by the sandbox: the last snapshot is served with `stale: true`; 503 with
 * Retry-After only while a source has no snapshot at all; a restart serves the snapshot from disk.
 */
let sandbox: RunningSandbox;
const cleanups: Array<() => Promise<void>> = [];

async function startApp(dataDir?: string): Promise<ChannelApp> {
  const dir = dataDir ?? (await makeDataDir()).path;
  const app = await createChannelApp(testConfig(dir, liveUpstream(sandbox)), { logger: silentLogger });
  cleanups.push(() => app.close());
  return app;
}

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterEach(async () => {
  await sandboxControl(sandbox, 'DELETE', 'faults');
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});
afterAll(() => sandbox.close());

describe('upstream faults', () => {
  it('answers 503 problem+json with Retry-After while a source has never been read and its upstream is down', async () => {
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'all', status: 503 });
    const app = await startApp();
    for (const path of ['/membership/pledges', '/video/members', '/video/stats']) {
      const response = await request(app.url, 'GET', path);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.json<{ detail: string }>().detail).toMatch(/^no (membership|video|stats) data yet and the upstream is unavailable \(.*503/);
    }
    const health = (await request(app.url, 'GET', '/healthz')).json<{ status: string; sources: Record<string, { fetched_at: string | null; last_error: string | null }> }>();
    expect(health.status).toBe('degraded');
    expect(health.sources.membership).toMatchObject({ fetched_at: null, last_error: expect.stringContaining('503') });

    // Once the upstream is back, the next request reads it.
    await sandboxControl(sandbox, 'DELETE', 'faults');
    const recovered = await request(app.url, 'GET', '/membership/pledges');
    expect(recovered.status).toBe(200);
    expect(recovered.json<SupportersResponse>().stale).toBe(false);
  });

  it('serves the last snapshot with stale: true when a refresh fails (error status, wrong shape, broken JSON)', async () => {
    const app = await startApp();
    const fresh = (await request(app.url, 'GET', '/video/members?sort=amount')).json<SupportersResponse>();
    const freshStats = (await request(app.url, 'GET', '/video/stats')).json<{ subscribers: number }>();

    for (const fault of [{ status: 500 }, { malformed: 'shape' }, { malformed: 'json' }]) {
      await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', ...fault });
      await expect(app.store.refresh('video'), JSON.stringify(fault)).rejects.toThrow();
      await expect(app.store.refresh('stats')).rejects.toThrow();
      const stale = (await request(app.url, 'GET', '/video/members?sort=amount')).json<SupportersResponse>();
      expect(stale).toEqual({ ...fresh, stale: true });
      expect((await request(app.url, 'GET', '/video/stats')).json()).toMatchObject({ subscribers: freshStats.subscribers, stale: true });
      const health = (await request(app.url, 'GET', '/healthz')).json<{ status: string; sources: Record<string, { stale: boolean; last_error: string | null }> }>();
      expect(health.status).toBe('degraded');
      expect(health.sources.video).toMatchObject({ stale: true, last_error: expect.stringMatching(/^video: /) });
      expect(health.sources.membership).toMatchObject({ stale: false, last_error: null });
    }

    await sandboxControl(sandbox, 'DELETE', 'faults');
    await app.store.refresh('video');
    expect((await request(app.url, 'GET', '/video/members?sort=amount')).json<SupportersResponse>()).toMatchObject({ stale: false, users: fresh.users });
  });

  it('after a restart serves the persisted snapshot at once while the upstream is down', async () => {
    const dataDir = await makeDataDir();
    cleanups.push(() => dataDir.remove());
    const first = await startApp(dataDir.path);
    const before = (await request(first.url, 'GET', '/membership/pledges')).json<SupportersResponse>();
    await first.close();

    await sandboxControl(sandbox, 'POST', 'faults', { target: 'all', status: 502 });
    const second = await startApp(dataDir.path);
    const served = await request(second.url, 'GET', '/membership/pledges');
    expect(served.status).toBe(200);
    expect(served.json<SupportersResponse>()).toMatchObject({ users: before.users, levels: before.levels, fetched_at: before.fetched_at });
    // The background refresh at start fails, which marks the snapshot stale.
    await expect.poll(async () => (await request(second.url, 'GET', '/membership/pledges')).json<SupportersResponse>().stale, { timeout: 10_000 }).toBe(true);
  });

  it('concurrent requests on a cold cache make ONE upstream fetch', async () => {
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'membership', latencyMs: 300 });
    const before = await sandboxRequests(sandbox);
    const app = await startApp();
    const responses = await Promise.all(Array.from({ length: 25 }, () => request(app.url, 'GET', '/membership/pledges')));
    expect(new Set(responses.map((response) => response.status))).toEqual(new Set([200]));
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
    const after = await sandboxRequests(sandbox);
    expect(after.members - before.members).toBe(1); // 40 patrons: one page
  });
});
