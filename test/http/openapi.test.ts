import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import { listen } from '../../src/lib/listen.js';
import { createOperationsEndpoints } from '../../src/observability/endpoints.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createReadinessProbe } from '../../src/observability/readiness.js';
import { signWebhookBody, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { eventually } from '../support/eventually.js';
import { liveUpstream, makeDataDir, request, sandboxControl, silentLogger, testConfig, validator } from './harness.js';

/**
 * Every response the running server gives is validated against openapi/channel-api.yaml (the
 * `request` helper does it with Ajv 2020 + ajv-formats, in every test of test/http). This file
 * drives the server through every response the document declares — errors included — and checks
 * that each one was produced and conformed.
 */
let sandbox: RunningSandbox;
let app: ChannelApp;
let dataDir: Awaited<ReturnType<typeof makeDataDir>>;
const REPLAY_TOKEN = 'replay-token-Zk2';

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = await makeDataDir();
  // Upstream down before the first read: the 503 answers come first.
  await sandboxControl(sandbox, 'POST', 'faults', { target: 'all', status: 503 });
  // With its history: the database opens in the background (its first start takes seconds), so the
  // history's and the notifications' 503s come first too.
  app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox), { events: { maxStreams: 1 }, history: true, notificationsReplayToken: REPLAY_TOKEN }), { logger: silentLogger });
}, 60_000);
afterAll(async () => {
  await app.close();
  await sandbox.close();
  await dataDir.remove();
});

const guardedOperations = createOperationsEndpoints({
  mode: 'live',
  metrics: createMetrics({ mode: 'live', snapshots: () => ({}) as never, processMetrics: false }),
  readiness: createReadinessProbe(() => ({}) as never, 0),
  metricsToken: 'metrics-token-Hq4',
});

function webhook(event: string, body: string, signature: string | null = signWebhookBody(body, sandbox.credentials.webhookSecret)) {
  return request(app.url, 'POST', '/membership/webhook', {
    headers: { 'content-type': 'application/json', 'x-patreon-event': event, ...(signature === null ? {} : { 'x-patreon-signature': signature }) },
    body,
  });
}

describe('openapi/channel-api.yaml', () => {
  it('the validator is real: it rejects a response that breaks the document', () => {
    const headers = new Headers({ 'content-type': 'application/json' });
    const bad = { users: [{ id: '1', name: 'A', level: { level_id: null, amount_cents: 1.5, created_at: 'yesterday' } }], levels: {}, fetched_at: new Date().toISOString(), stale: false };
    const violations = validator.validate({ method: 'GET', path: '/membership/pledges', status: 200, headers, body: JSON.stringify(bad) });
    expect(violations.join('\n')).toMatch(/amount_cents.*must be integer/);
    expect(violations.join('\n')).toMatch(/created_at.*must match format "date-time"/);
    expect(validator.validate({ method: 'GET', path: '/video/stats', status: 418, headers, body: '{}' })).not.toEqual([]);
    expect(validator.validate({ method: 'GET', path: '/video/stats', status: 503, headers: new Headers({ 'content-type': 'application/problem+json' }), body: JSON.stringify({ type: 'about:blank', title: 'x', status: 503, detail: 'd', source: 'stats', retry_after_seconds: 5 }) })).toEqual([expect.stringContaining('missing required header Retry-After')]);
  });

  it('every response of every endpoint conforms, and every declared response is produced', async () => {
    // 503: no snapshot yet and the upstream is down (reads, readiness and a webhook that needs a first fetch).
    expect((await request(app.url, 'GET', '/readyz')).status).toBe(503);
    for (const path of ['/membership/pledges', '/video/members', '/video/stats']) expect((await request(app.url, 'GET', path)).status).toBe(503);
    const member = JSON.stringify({ data: { type: 'member', id: 'x', attributes: {} } });
    expect((await webhook('members:pledge:delete', member)).status).toBe(503);
    expect((await request(app.url, 'GET', '/healthz')).status).toBe(200);
    expect((await request(app.url, 'GET', '/totals')).status).toBe(503);
    expect((await request(app.url, 'GET', '/history?from=2025-01-01T00:00:00Z')).status).toBe(503);
    expect((await request(app.url, 'GET', '/changes?since=2025-01-01T00:00:00Z')).status).toBe(503);
    const replay = (body?: string, token: string | null = REPLAY_TOKEN) =>
      request(app.url, 'POST', '/notifications/replay', { headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) }, ...(body === undefined ? {} : { body }) });
    expect((await request(app.url, 'GET', '/notifications/deliveries')).status).toBe(503);
    expect((await replay('{}')).status).toBe(503);

    await sandboxControl(sandbox, 'DELETE', 'faults');
    for (const path of ['/membership/pledges', '/membership/pledges?sort=amount', '/video/members', '/video/members?sort=since', '/video/stats', '/healthz']) {
      const ok = await request(app.url, 'GET', path);
      expect(ok.status).toBe(200);
      expect((await request(app.url, 'HEAD', path)).status).toBe(200);
      if (path !== '/healthz') expect((await request(app.url, 'GET', path, { headers: { 'if-none-match': ok.headers.get('etag') ?? '' } })).status).toBe(304);
    }
    // /healthz changes every second (age_seconds): its 304 needs the ETag of an unchanged body.
    const health = await request(app.url, 'GET', '/healthz');
    const revalidated = await request(app.url, 'GET', '/healthz', { headers: { 'if-none-match': `"other", ${health.headers.get('etag') ?? ''}` } });
    expect([200, 304]).toContain(revalidated.status);
    expect((await request(app.url, 'GET', '/healthz', { headers: { 'if-none-match': '*' } })).status).toBe(304);
    for (const path of ['/membership/pledges?sort=amounts', '/video/members?sort=since&sort=amount', '/totals?platform=both', '/history?from=2025', '/changes?since=2025-01-01T00:00:00Z&limit=0']) {
      expect((await request(app.url, 'GET', path)).status).toBe(400);
    }
    expect((await request(app.url, 'GET', '/membership/pledges?limit=2')).status).toBe(200);
    expect((await request(app.url, 'GET', '/totals')).status).toBe(200);
    expect((await request(app.url, 'GET', '/goals')).status).toBe(200);
    const { history } = app;
    await eventually('the history database to open', () => history?.health().state === 'open', { timeoutMs: 60_000 });
    expect((await request(app.url, 'GET', '/history?from=2025-01-01T00:00:00Z&interval=month')).status).toBe(200);
    expect((await request(app.url, 'GET', '/changes?since=2025-01-01T00:00:00Z&limit=2')).status).toBe(200);

    expect((await webhook('members:pledge:delete', member)).status).toBe(204);
    expect((await webhook('members:pledge:delete', member, null)).status).toBe(401);
    expect((await webhook('members:pledge:delete', member, 'f'.repeat(32))).status).toBe(401);
    expect((await webhook('members:pledge:gone', member)).status).toBe(400);
    expect((await webhook('members:pledge:create', '[]')).status).toBe(400);
    expect((await webhook('members:pledge:create', 'x'.repeat(257 * 1024))).status).toBe(413);

    // GET /events, resuming from an id older than the log: a reset event, validated as it comes.
    const stream = new AbortController();
    const events = await fetch(`${app.url}/events?lastEventId=1`, { signal: stream.signal });
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let streamed = '';
    while (!streamed.includes('event: reset')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended before a reset event: ${streamed}`);
      streamed += chunk.value;
    }
    expect(validator.validate({ method: 'GET', path: '/events', status: events.status, headers: events.headers, body: streamed })).toEqual([]);
    expect((await request(app.url, 'GET', '/events')).status).toBe(503);
    stream.abort();
    expect((await request(app.url, 'GET', '/events?lastEventId=x')).status).toBe(400);

    expect((await request(app.url, 'GET', '/notifications/deliveries?state=dead&limit=5')).status).toBe(200);
    expect((await request(app.url, 'GET', '/notifications/deliveries?state=lost')).status).toBe(400);
    expect((await replay()).status).toBe(200);
    expect((await replay('{"destination":"crm","event":"evt_1"}')).status).toBe(200);
    expect((await replay('{}', null)).status).toBe(401);
    expect((await replay('{}', 'replay-token-wrong')).status).toBe(401);
    expect((await replay('{"everything":true}')).status).toBe(400);
    expect((await replay(JSON.stringify({ destination: 'x'.repeat(8 * 1024) }))).status).toBe(413);

    expect((await request(app.url, 'GET', '/readyz')).status).toBe(200);
    expect((await request(app.url, 'GET', '/metrics')).status).toBe(200);
    // METRICS_TOKEN set: the same endpoints, behind the bearer token.
    const guarded = await listen(createServer((req, res) => void (guardedOperations(req, res) || res.writeHead(404).end())));
    try {
      expect((await request(guarded.url, 'GET', '/metrics')).status).toBe(401);
      expect((await request(guarded.url, 'GET', '/metrics', { headers: { authorization: 'Bearer metrics-token-Hq4' } })).status).toBe(200);
    } finally {
      await guarded.close();
    }

    expect((await request(app.url, 'GET', '/')).status).toBe(404);
    expect((await request(app.url, 'GET', '/video/stats/')).status).toBe(404);
    expect((await request(app.url, 'POST', '/video/stats', { body: '{}' })).status).toBe(405);
    expect((await request(app.url, 'PUT', '/membership/webhook', { body: '{}' })).status).toBe(405);

    const seen = [...validator.seen].map((entry) => entry.replace(/^HEAD /, 'GET '));
    for (const declared of validator.declaredResponses()) expect(seen, `never produced: ${declared}`).toContain(declared);
    expect(seen).toContain('GET / NotFound');
    expect(seen).toContain('POST /video/stats MethodNotAllowed');
  }, 90_000);
});
