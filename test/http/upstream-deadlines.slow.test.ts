import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { eventually } from '../support/eventually.js';
import { collectGarbageContinuously } from '../support/hung-upstream.js';
import { liveUpstream, makeDataDir, request, sandboxControl, silentLogger, testConfig } from './harness.js';

/**
 * A hung upstream, seen from the service: with UPSTREAM_TIMEOUT_MS the snapshot turns stale with the
 * error in /healthz within deadline + refresh interval, and a cold read answers 503 with
 * Retry-After within the deadline (plus slack for a loaded machine) — with the garbage collector running every 5 ms, which on
 * Node 20 made the old `AbortSignal.any` deadline never fire. The sandbox hangs on demand
 * (`stall` faults): no answer at all, or headers and then a body that never completes.
 */
const DEADLINE_MS = 1_000;
/** Slack for a loaded machine: without a deadline the answer would take undici's 300 s, or never come. */
const SLACK_MS = 5_000;
const REFRESH_INTERVAL_SECONDS = 1;

interface Health {
  status: string;
  sources: Record<'membership' | 'video' | 'stats', { stale: boolean; last_error: string | null; fetched_at: string | null }>;
}

let sandbox: RunningSandbox;
const cleanups: Array<() => Promise<void>> = [];
let stopCollecting: (() => void) | undefined;

async function startApp(): Promise<ChannelApp> {
  const dataDir = await makeDataDir();
  const app = await createChannelApp(
    testConfig(dataDir.path, liveUpstream(sandbox), { upstreamTimeoutMs: DEADLINE_MS, refreshIntervalSeconds: REFRESH_INTERVAL_SECONDS }),
    { logger: silentLogger },
  );
  cleanups.push(async () => {
    await app.close();
    await dataDir.remove();
  });
  return app;
}

/** Polls /healthz until `source` is stale; resolves with the health and the time it took. */
async function untilStale(app: ChannelApp, source: keyof Health['sources'], since: number): Promise<{ health: Health; ms: number }> {
  let last: Health | undefined;
  const health = await eventually(
    `${source} turning stale in /healthz`,
    async () => {
      last = (await request(app.url, 'GET', '/healthz')).json<Health>();
      return last.sources[source].stale ? last : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 25, detail: () => JSON.stringify(last) },
  );
  return { health, ms: performance.now() - since };
}

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 6 });
});
afterEach(async () => {
  stopCollecting?.();
  await sandboxControl(sandbox, 'DELETE', 'faults');
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});
afterAll(() => sandbox.close());

describe('a hung upstream with UPSTREAM_TIMEOUT_MS', () => {
  it('with no snapshot, a cold read answers 503 with Retry-After within the deadline (plus slack for a loaded machine)', async () => {
    stopCollecting = collectGarbageContinuously();
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', stall: 'headers' });
    const app = await startApp();
    for (const path of ['/video/members', '/video/stats']) {
      const started = performance.now();
      const response = await request(app.url, 'GET', path);
      const ms = performance.now() - started;
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.json<{ detail: string }>().detail).toContain(`the request was aborted or timed out (no answer within ${DEADLINE_MS} ms)`);
      expect(ms, `${path} answered after ${Math.round(ms)} ms`).toBeLessThan(DEADLINE_MS + SLACK_MS);
    }
  });

  it('a video platform that stalls its body: /healthz shows the snapshot stale with the error within deadline + refresh interval', async () => {
    const app = await startApp();
    await app.store.refresh('video');
    stopCollecting = collectGarbageContinuously();
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', stall: 'body' });
    const { health, ms } = await untilStale(app, 'video', performance.now());
    expect(health.status).toBe('degraded');
    // A refresh in flight when the fault was set hangs at a later request (channel titles, say).
    expect(health.sources.video.last_error).toMatch(new RegExp(`^video: [^:]+: the request was aborted or timed out \\(no answer within ${DEADLINE_MS} ms\\)$`));
    expect(health.sources.video.fetched_at).not.toBeNull(); // the last good snapshot is still served
    // The promised bound (deadline + refresh interval), plus scheduling slack of the poll on a loaded machine.
    expect(ms, `stale after ${Math.round(ms)} ms`).toBeLessThan(DEADLINE_MS + REFRESH_INTERVAL_SECONDS * 1000 + SLACK_MS);
    const served = await request(app.url, 'GET', '/video/members');
    expect(served.status).toBe(200);
    expect(served.json()).toMatchObject({ stale: true });
  });

  it('a token endpoint that never answers: the membership snapshot turns stale, naming the token endpoint, within deadline + refresh interval', async () => {
    const app = await startApp();
    await app.store.refresh('membership');
    stopCollecting = collectGarbageContinuously();
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'token', stall: 'headers' });
    await sandboxControl(sandbox, 'POST', 'expire-tokens'); // the next read gets a 401 and refreshes
    const { health, ms } = await untilStale(app, 'membership', performance.now());
    expect(health.sources.membership.last_error).toMatch(
      new RegExp(`^membership: campaign: the request was aborted or timed out \\(request to http://127\\.0\\.0\\.1:\\d+/api/oauth2/token timed out after ${DEADLINE_MS} ms\\)$`),
    );
    expect(ms, `stale after ${Math.round(ms)} ms`).toBeLessThan(DEADLINE_MS + REFRESH_INTERVAL_SECONDS * 1000 + SLACK_MS);
  });
});
