import WebSocket from 'ws';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelApp } from '../../src/app.js';
import type { ChannelConfig } from '../../src/config.js';
import { createMetrics, MAX_OPERATION_NAMES, OTHER_OPERATION } from '../../src/observability/metrics.js';
import { sandboxControl, testConfig } from '../http/harness.js';
import { useLiveApps } from './live-app.js';

const live = useLiveApps();

async function startApp(overrides: Partial<ChannelConfig> = {}, { refresh = true } = {}): Promise<ChannelApp> {
  const app = await live.startApp(overrides);
  if (refresh) await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.refresh(source)));
  return app;
}

async function scrape(app: ChannelApp, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${app.url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one sample line, e.g. `http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const graphql = (app: ChannelApp, query: string): Promise<Response> =>
  fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

describe('GET /metrics: Prometheus text', () => {
  it('HTTP requests by route and status with durations, GraphQL operations by name and outcome, upstream fetches, token refreshes, snapshot ages, response cache, process', async () => {
    const app = await startApp();
    // A query string is not part of the route label.
    for (const query of ['', '?sort=since', '?sort=since&then=/video/members?']) expect((await fetch(`${app.url}/video/members${query}`)).status).toBe(200);
    expect((await fetch(`${app.url}/nowhere/${Math.random()}?to=/healthz`)).status).toBe(404);
    // The response cache keeps an answer from its request's second occurrence on: the third is a hit.
    for (let index = 0; index < 3; index += 1) expect((await graphql(app, 'query Totals { stats { subscribers } }')).status).toBe(200);
    expect((await graphql(app, 'query Broken { supporter(id: "no-such-id") { name } }')).status).toBe(200);
    await sandboxControl(live.sandbox(), 'POST', 'expire-tokens');
    await app.store.refresh('membership');
    await sandboxControl(live.sandbox(), 'POST', 'faults', { target: 'video', status: 500 });
    await expect(app.store.refresh('video')).rejects.toThrow();

    const text = await scrape(app);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/video/members",status="200"}')).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="(unmatched)",status="404"}')).toBe(1);
    // The histogram's _count is the request count: no duplicate counter.
    expect(text).not.toContain('http_requests_total');
    expect(sample(text, 'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/video/members",status="200"}')).toBe(3);
    // Every operation answered counts, a hit too (its execute function is the cache's).
    expect(sample(text, 'graphql_operations_total{operation="Totals",type="query",outcome="ok"}')).toBe(3);
    expect(sample(text, 'graphql_operation_duration_seconds_count{operation="Totals",type="query",outcome="ok"}')).toBe(3);
    expect(sample(text, 'graphql_response_cache_lookups_total{result="hit"}')).toBe(1);
    expect(sample(text, 'graphql_response_cache_lookups_total{result="miss"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'upstream_fetches_total{source="video",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'upstream_fetches_total{source="video",outcome="error"}')).toBe(1);
    expect(sample(text, 'upstream_fetch_duration_seconds_count{source="membership",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'oauth_token_refreshes_total{outcome="ok"}')).toBe(1);
    // Live mode, and only that: an alert on channel_graph_mode{mode="sandbox"} stays quiet.
    expect(sample(text, 'channel_graph_mode{mode="live"}')).toBe(1);
    expect(text).not.toContain('channel_graph_mode{mode="sandbox"}');
    expect(sample(text, 'channel_snapshot_age_seconds{source="stats"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'channel_snapshot_stale{source="video"}')).toBe(1);
    expect(sample(text, 'channel_snapshot_stale{source="stats"}')).toBe(0);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
  });

  it('an operation whose result has errors (partial ones too) counts as outcome="error", one refused before execution not at all; a failed token refresh counts as a failure', async () => {
    await sandboxControl(live.sandbox(), 'POST', 'faults', { target: 'video', status: 500 });
    const app = await startApp({ graph: { ...testConfig('').graph, responseCache: false } }, { refresh: false });
    await vi.waitFor(() => expect(app.store.health().stats.lastError).not.toBeNull(), { timeout: 10_000 });
    const unavailable = (await (await graphql(app, 'query Stats { stats { subscribers } }')).json()) as { errors?: unknown[] };
    expect(unavailable.errors).toHaveLength(1);
    // The video platform is down: supporters lists the membership platform's and says why (a partial error).
    const partial = (await (await graphql(app, 'query Everyone { supporters { name } }')).json()) as { data?: unknown; errors?: unknown[] };
    expect(partial.data).not.toBeNull();
    expect(partial.errors).toHaveLength(1);
    expect((await graphql(app, 'query Unknown { noSuchField }')).status).toBe(200);
    await sandboxControl(live.sandbox(), 'POST', 'faults', { target: 'token', status: 500 });
    await app.store.read('membership');
    await sandboxControl(live.sandbox(), 'POST', 'expire-tokens');
    await expect(app.store.refresh('membership')).rejects.toThrow();

    const text = await scrape(app);
    expect(sample(text, 'graphql_operations_total{operation="Stats",type="query",outcome="error"}')).toBe(1);
    expect(sample(text, 'graphql_operations_total{operation="Everyone",type="query",outcome="error"}')).toBe(1);
    expect(text).not.toContain('operation="Everyone",type="query",outcome="ok"');
    expect(text).not.toContain('operation="Unknown"');
    expect(sample(text, 'oauth_token_refreshes_total{outcome="error"}')).toBe(1);
  });

  it('event subscribers by transport (GET /events, GraphQL over SSE, GraphQL over WebSocket), and /events and /overlay as route labels', async () => {
    const app = await startApp();
    const streams = new AbortController();
    // Held until the end: undici cancels the body of a response that is garbage-collected unread,
    // which would close its stream before the scrape.
    const open: Response[] = [];
    const openStream = async (path: string, init: RequestInit = {}): Promise<void> => {
      const response = await fetch(`${app.url}${path}`, { ...init, signal: streams.signal });
      expect(response.status).toBe(200);
      open.push(response);
    };
    const subscription = encodeURIComponent('subscription { statsChanged { subscribers } }');
    const socket = new WebSocket(`${app.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    try {
      await Promise.all([
        openStream('/events'),
        openStream('/events?types=stats'),
        openStream(`/graphql?query=${subscription}`, { headers: { accept: 'text/event-stream' } }),
        new Promise((resolve, reject) => {
          socket.once('open', resolve);
          socket.once('error', reject);
        }),
      ]);
      expect((await fetch(`${app.url}/overlay`)).status).toBe(200);
      const text = await scrape(app);
      expect(sample(text, 'channel_event_subscribers{transport="events"}')).toBe(2);
      expect(sample(text, 'channel_event_subscribers{transport="graphql-sse"}')).toBe(1);
      expect(sample(text, 'channel_event_subscribers{transport="graphql-ws"}')).toBe(1);
      expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/overlay",status="200"}')).toBe(1);
    } finally {
      streams.abort();
      open.length = 0;
      socket.close();
    }
    // A stream is counted as a request when it ends, under its own route.
    await vi.waitFor(async () => expect(sample(await scrape(app), 'http_request_duration_seconds_count{method="GET",route="/events",status="200"}')).toBe(2), { timeout: 10_000 });
    await vi.waitFor(async () => {
      const text = await scrape(app);
      for (const transport of ['events', 'graphql-sse', 'graphql-ws']) expect(sample(text, `channel_event_subscribers{transport="${transport}"}`)).toBe(0);
    }, { timeout: 10_000 });
  });

  it('one route answered with several methods and statuses: each combination is its own series', async () => {
    const app = await startApp();
    const query = encodeURIComponent('{ stats { subscribers } }');
    for (let index = 0; index < 2; index += 1) expect((await fetch(`${app.url}/graphql?query=${query}`, { headers: { accept: 'application/json' } })).status).toBe(200);
    expect((await graphql(app, '{ stats { subscribers } }')).status).toBe(200);
    // A validation error, asked as application/graphql-response+json: 400 (GraphQL over HTTP).
    const invalid = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query: '{ nosuchfield }' }) });
    expect(invalid.status).toBe(400);
    const text = await scrape(app);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/graphql",status="200"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/graphql",status="200"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/graphql",status="400"}')).toBe(1);
  });

  it('each app has its own registry: two apps count their own requests', async () => {
    const [first, second] = [await startApp(), await startApp()];
    await fetch(`${first.url}/healthz`);
    await fetch(`${first.url}/healthz`);
    await fetch(`${second.url}/healthz`);
    expect(sample(await first.metrics(), 'http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}')).toBe(2);
    expect(sample(await second.metrics(), 'http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}')).toBe(1);
  });

  it('METRICS_TOKEN: 401 without the bearer token or with another one, 200 with it', async () => {
    const app = await startApp({ metricsToken: 'scrape-secret-Rt5' });
    const missing = await fetch(`${app.url}/metrics`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(await missing.text()).not.toContain('scrape-secret');
    expect((await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret-Rt' } })).status).toBe(401);
    expect((await fetch(`${app.url}/metrics`, { headers: { authorization: 'Basic c2NyYXBlLXNlY3JldC1SdDU=' } })).status).toBe(401);
    expect(await scrape(app, { authorization: 'Bearer scrape-secret-Rt5' })).toContain('http_request_duration_seconds_count');
    expect((await fetch(`${app.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});

describe('label values stay bounded', () => {
  it(`GraphQL operation names: the first ${MAX_OPERATION_NAMES} distinct ones, then ${OTHER_OPERATION}; long names are ${OTHER_OPERATION}`, () => {
    const metrics = createMetrics({ mode: 'live', snapshots: () => ({}) as never, processMetrics: false });
    for (let index = 0; index < MAX_OPERATION_NAMES; index += 1) expect(metrics.operationLabel(`Op${index}`)).toBe(`Op${index}`);
    expect(metrics.operationLabel('OneTooMany')).toBe(OTHER_OPERATION);
    expect(metrics.operationLabel('Op7')).toBe('Op7');
    expect(createMetrics({ mode: 'live', snapshots: () => ({}) as never, processMetrics: false }).operationLabel('x'.repeat(65))).toBe(OTHER_OPERATION);
    expect(metrics.operationLabel(undefined)).toBe('(anonymous)');
  });
});

describe("node's process metrics", () => {
  it('are collected once per process, whatever the number of apps in it, and scraped with each app (without them when turned off)', async () => {
    const [first, second] = [1, 2].map(() => createMetrics({ mode: 'live', snapshots: () => ({}) as never }));
    const cpu = first?.registry.getSingleMetric('process_cpu_user_seconds_total');
    expect(cpu).toBeDefined();
    // The same collector, not one more per app (prom-client's never stop: an event-loop monitor and a GC observer each).
    expect(second?.registry.getSingleMetric('process_cpu_user_seconds_total')).toBe(cpu);
    expect(await second?.registry.metrics()).toMatch(/^process_cpu_user_seconds_total \d/m);
    const without = createMetrics({ mode: 'live', snapshots: () => ({}) as never, processMetrics: false });
    expect(await without.registry.metrics()).not.toContain('process_cpu_user_seconds_total');
    expect(await without.registry.metrics()).toContain('channel_graph_mode{mode="live"} 1');
  });
});
