import { createServer } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelApp } from '../../src/app.js';
import type { SourceHealth, SourceName } from '../../src/channel/snapshot-store.js';
import { listen } from '../../src/lib/listen.js';
import { createOperationsEndpoints } from '../../src/observability/endpoints.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createReadinessProbe } from '../../src/observability/readiness.js';
import { sandboxControl } from '../http/harness.js';
import { useLiveApps } from './live-app.js';

const live = useLiveApps();

const startApp = (coldStartDeadlineMs?: number): Promise<ChannelApp> => live.startApp({}, coldStartDeadlineMs === undefined ? {} : { coldStartDeadlineMs });

async function readyz(url: string): Promise<{ status: number; body: { status: string; mode: string; reason?: string } }> {
  const response = await fetch(`${url}/readyz`);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return { status: response.status, body: (await response.json()) as { status: string; mode: string; reason?: string } };
}

describe('GET /readyz', () => {
  it('503 naming the sources without a snapshot until every source has one, then 200', async () => {
    await sandboxControl(live.sandbox(), 'POST', 'faults', { target: 'video', latencyMs: 1_500 });
    const app = await startApp();
    await vi.waitFor(() => expect(app.store.health().membership.fetchedAt).not.toBeNull(), { timeout: 10_000 });
    const waiting = await readyz(app.url);
    expect(waiting).toEqual({ status: 503, body: { status: 'not ready', mode: 'live', reason: 'waiting for the first snapshot of video, stats' } });
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200); // liveness is unaffected
    await vi.waitFor(async () => expect((await readyz(app.url)).status).toBe(200), { timeout: 15_000, interval: 100 });
    expect((await readyz(app.url)).body).toEqual({ status: 'ready', mode: 'live' });
  });

  it('200 once the cold-start deadline has passed, even with a source still missing', async () => {
    await sandboxControl(live.sandbox(), 'POST', 'faults', { target: 'video', status: 500 });
    const app = await startApp(1_000);
    expect((await readyz(app.url)).status).toBe(503);
    await vi.waitFor(async () => expect((await readyz(app.url)).status).toBe(200), { timeout: 15_000, interval: 100 });
    expect(app.store.health().video.fetchedAt).toBeNull();
  });
});

describe('readiness while shutting down', () => {
  const allFetched = (): Record<SourceName, SourceHealth> => {
    const health: SourceHealth = { fetchedAt: new Date().toISOString(), ageSeconds: 0, stale: false, lastError: null };
    return { membership: health, video: health, stats: health };
  };

  it('the probe turns not ready for good when stop() is called (close() calls it first)', async () => {
    const probe = createReadinessProbe(allFetched, 0);
    const endpoints = createOperationsEndpoints({ mode: 'live', metrics: createMetrics({ mode: 'live', snapshots: allFetched, processMetrics: false }), readiness: probe });
    const server = await listen(createServer((request, response) => void (endpoints(request, response) || response.writeHead(404).end())), { port: 0, host: '127.0.0.1' });
    try {
      expect((await readyz(server.url)).status).toBe(200);
      probe.stop();
      expect(await readyz(server.url)).toEqual({ status: 503, body: { status: 'not ready', mode: 'live', reason: 'shutting down' } });
    } finally {
      await server.close();
    }
  });
});
