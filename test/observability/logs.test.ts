import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createChannelApp, MEMBERSHIP_TOKEN_FILE, type ChannelApp } from '../../src/app.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { captureLogger, liveUpstream, makeDataDir, sandboxControl, testConfig } from '../http/harness.js';

let sandbox: RunningSandbox;
const cleanups: Array<() => Promise<unknown>> = [];
beforeEach(async () => {
  sandbox = await startSandbox();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  await sandbox.close();
});

async function startApp(level: 'info' | 'debug' = 'info'): Promise<{ app: ChannelApp; dataDir: string; log: ReturnType<typeof captureLogger> }> {
  const dataDir = await makeDataDir();
  const log = captureLogger(level);
  const app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox)), { logger: log.logger });
  cleanups.push(async () => {
    await app.close().catch(() => undefined);
    await dataDir.remove();
  });
  return { app, dataDir: dataDir.path, log };
}

const linesWith = (lines: Array<Record<string, unknown>>, msg: string): Array<Record<string, unknown>> => lines.filter((line) => line.msg === msg);

describe('the log: JSON lines', () => {
  it('one line per request with method, route, status, duration and the request id, which the answer echoes', async () => {
    const { app, log } = await startApp();
    const given = await fetch(`${app.url}/membership/pledges?sort=amount`, { headers: { 'x-request-id': 'trace-me.42' } });
    expect(given.status).toBe(200);
    expect(given.headers.get('x-request-id')).toBe('trace-me.42');
    const generated = await fetch(`${app.url}/no/such/path`, { headers: { 'x-request-id': 'not a sane id; drop table' } });
    expect(generated.status).toBe(404);
    const id = generated.headers.get('x-request-id') ?? '';
    expect(id).toMatch(/^[\da-f]{16}-[\da-z]+$/);
    const graph = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ stats { subscribers } }' }) });
    expect(graph.status).toBe(200);

    await vi.waitFor(() => expect(linesWith(log.lines, 'request')).toHaveLength(3));
    const [first, second, third] = linesWith(log.lines, 'request');
    expect(first).toMatchObject({ level: 30, component: 'http', requestId: 'trace-me.42', method: 'GET', route: '/membership/pledges', status: 200, durationMs: expect.any(Number) });
    expect(second).toMatchObject({ requestId: id, method: 'GET', route: '(unmatched)', status: 404 });
    expect(third).toMatchObject({ method: 'POST', route: '/graphql', status: 200 });
    expect(typeof first?.time).toBe('number');
  });

  it('one line per upstream fetch, per token refresh (outcome, never the token) and per snapshot change', async () => {
    const { app, dataDir, log } = await startApp();
    await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.refresh(source)));
    expect(linesWith(log.lines, 'upstream fetch')).toEqual(
      expect.arrayContaining([expect.objectContaining({ component: 'upstream', source: 'video', outcome: 'ok', durationMs: expect.any(Number), retry: 0 })]),
    );
    expect(linesWith(log.lines, 'snapshot changed')).toEqual(
      expect.arrayContaining([expect.objectContaining({ component: 'snapshot-store', source: 'stats', fetchedAt: expect.any(String), stale: false })]),
    );

    await sandboxControl(sandbox, 'POST', 'expire-tokens');
    await app.store.refresh('membership');
    const [refresh] = linesWith(log.lines, 'token refresh');
    expect(refresh).toMatchObject({ component: 'oauth2', outcome: 'ok', durationMs: expect.any(Number) });
    const rotated = tokensIn(JSON.parse(await readFile(join(dataDir, MEMBERSHIP_TOKEN_FILE), 'utf8')));
    expect(rotated).toHaveLength(2);
    for (const token of rotated) expect(log.text()).not.toContain(token);

    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', status: 503 });
    await expect(app.store.refresh('stats')).rejects.toThrow();
    expect(linesWith(log.lines, 'upstream fetch').at(-1)).toMatchObject({ level: 40, source: 'stats', outcome: 'error', status: 503, retry: 0 });
    // `retry`: the failed fetches of the source in a row before this one; a success starts again at 0.
    await expect(app.store.refresh('stats')).rejects.toThrow();
    expect(linesWith(log.lines, 'upstream fetch').at(-1)).toMatchObject({ source: 'stats', outcome: 'error', retry: 1 });
    await sandboxControl(sandbox, 'DELETE', 'faults');
    await app.store.refresh('stats');
    expect(linesWith(log.lines, 'upstream fetch').at(-1)).toMatchObject({ source: 'stats', outcome: 'ok', retry: 2 });
    await app.store.refresh('stats');
    expect(linesWith(log.lines, 'upstream fetch').at(-1)).toMatchObject({ source: 'stats', outcome: 'ok', retry: 0 });
  });
});

describe('LOG_LEVEL=silent', () => {
  it('stops every line, and nothing else: the request id is still echoed, /metrics still counts the requests', async () => {
    const written: string[] = [];
    const logger = createLogger({ level: 'silent', destination: { write: (line: string) => void written.push(line) } });
    const dataDir = await makeDataDir();
    const app = await createChannelApp({ ...testConfig(dataDir.path, liveUpstream(sandbox)), logLevel: 'silent' }, { logger });
    cleanups.push(async () => {
      await app.close().catch(() => undefined);
      await dataDir.remove();
    });
    await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.refresh(source)));
    const answer = await fetch(`${app.url}/video/stats`, { headers: { 'x-request-id': 'silent-1' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toBe('silent-1');
    expect((await fetch(`${app.url}/video/stats`)).headers.get('x-request-id')).toMatch(/^[\da-f]{16}-[\da-z]+$/);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain('http_request_duration_seconds_count{method="GET",route="/video/stats",status="200"} 2');
    await app.close();
    expect(written).toEqual([]);
  });
});

describe('the snapshot line', () => {
  const snapshotLines = (lines: Array<Record<string, unknown>>, source: string): Array<Record<string, unknown>> => linesWith(lines, 'snapshot changed').filter((line) => line.source === source);
  const graphStats = async (url: string): Promise<{ fetchedAt: string; stale: boolean }> => {
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ stats { fetchedAt stale } }' }) });
    return ((await response.json()) as { data: { stats: { fetchedAt: string; stale: boolean } } }).data.stats;
  };

  it('is written when the data changed or turned stale, not on every refresh that brings the same data; answers still show the new fetchedAt', async () => {
    const { app, log } = await startApp();
    await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.refresh(source)));
    for (const source of ['membership', 'video', 'stats']) expect(snapshotLines(log.lines, source), source).toHaveLength(1);
    // The response cache keeps an answer from its second occurrence on.
    const first = await graphStats(app.url);
    expect(await graphStats(app.url)).toEqual(first);

    for (let refresh = 0; refresh < 2; refresh += 1) await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.refresh(source)));
    for (const source of ['membership', 'video', 'stats']) expect(snapshotLines(log.lines, source), source).toHaveLength(1);
    // Listeners are still told of every refresh: the cached answer was dropped, the new fetchedAt is served.
    const refreshed = await graphStats(app.url);
    expect(Date.parse(refreshed.fetchedAt)).toBeGreaterThan(Date.parse(first.fetchedAt));
    expect(refreshed.fetchedAt).toBe(app.store.current('stats')?.data.fetchedAt);

    // New data (a patron leaves, by webhook): one line.
    const memberId = sandbox.datasets.membership.member(0).id;
    await sandboxControl(sandbox, 'POST', 'webhook', { url: `${app.url}/membership/webhook`, event: 'members:pledge:delete', memberId });
    await vi.waitFor(() => expect(snapshotLines(log.lines, 'membership')).toHaveLength(2));

    // Turning stale and back (the same data again) are changes of what is served: one line each.
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', status: 503 });
    await expect(app.store.refresh('stats')).rejects.toThrow();
    await expect(app.store.refresh('stats')).rejects.toThrow();
    await sandboxControl(sandbox, 'DELETE', 'faults');
    await app.store.refresh('stats');
    expect(snapshotLines(log.lines, 'stats').map((line) => line.stale)).toEqual([false, true, false]);
  });
});

/** The values of `access_token` and `refresh_token` members anywhere in a parsed JSON document. */
function tokensIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(tokensIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => (typeof item === 'string' ? (key === 'access_token' || key === 'refresh_token' ? [item] : []) : tokensIn(item)));
}

describe('OAUTH_DEBUG=true: the whole log of a run holds none of the secrets it used', () => {
  it('client secret, seed and rotated tokens, members.json headers and key, webhook secret, clients’ Authorization and Cookie headers', async () => {
    vi.stubEnv('OAUTH_DEBUG', 'true');
    const { app, dataDir, log } = await startApp('debug');
    const clientAuthorization = 'Bearer client-sent-token-Zx81';
    const clientCookie = 'session=client-sent-cookie-Qw27';
    for (const path of ['/membership/pledges', '/video/members', '/video/stats', '/healthz', '/readyz', '/metrics']) {
      await fetch(`${app.url}${path}?access_token=query-token-Lk55`, { headers: { authorization: clientAuthorization, cookie: clientCookie } });
    }
    await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: clientAuthorization, cookie: clientCookie },
      body: JSON.stringify({ query: '{ supporters { name } }' }),
    });
    // Two rotations: the seed refresh token, then the first rotated one, go to the token endpoint.
    for (let rotation = 0; rotation < 2; rotation += 1) {
      await sandboxControl(sandbox, 'POST', 'expire-tokens');
      await app.store.refresh('membership');
    }
    const memberId = sandbox.datasets.membership.member(0).id;
    const delivered = await sandboxControl<{ status: number }>(sandbox, 'POST', 'webhook', { url: `${app.url}/membership/webhook`, event: 'members:pledge:delete', memberId });
    expect(delivered.status).toBe(204);
    await app.close();

    const rotated = tokensIn(JSON.parse(await readFile(join(dataDir, MEMBERSHIP_TOKEN_FILE), 'utf8')));
    const { credentials } = sandbox;
    const secrets: Record<string, string> = {
      clientSecret: credentials.clientSecret,
      seedAccessToken: credentials.accessToken,
      seedRefreshToken: credentials.refreshToken,
      webhookSecret: credentials.webhookSecret,
      membersKey: credentials.members.key,
      membersAuthorization: credentials.members.headers.authorization ?? '',
      membersCookie: credentials.members.headers.cookie ?? '',
      clientAuthorization: 'client-sent-token-Zx81',
      clientCookie: 'client-sent-cookie-Qw27',
      queryToken: 'query-token-Lk55',
    };
    expect(rotated).toHaveLength(2); // the rotated access and refresh tokens
    expect(rotated).not.toContain(credentials.refreshToken);
    rotated.forEach((token, index) => (secrets[`rotated${index}`] = token));

    const text = log.text();
    // It is a real debug log of that run: token requests and answers, requests, refreshes.
    expect(text).toContain('oauth2 request: POST');
    expect(text).toContain('grant_type=refresh_token');
    expect(text).toContain('"access_token\\":\\"[REDACTED]\\"');
    expect(linesWith(log.lines, 'token refresh')).toHaveLength(2);
    expect(linesWith(log.lines, 'request').length).toBeGreaterThanOrEqual(8);
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(text, `${name} leaked into the log`).not.toContain(secret);
    }
  });
});

describe('redaction by path', () => {
  it('header, OAuth2 parameter, settings and members.json secrets are replaced wherever a line carries them', () => {
    const { logger, lines, text } = captureLogger();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer h-1', cookie: 'c=h-2', 'x-request-id': 'kept' } },
        res: { headers: { 'set-cookie': 'c=h-3' } },
        body: { client_secret: 'h-4', refresh_token: 'h-5', code_verifier: 'h-6', assertion: 'h-7', access_token: 'h-8' },
        membership: { clientSecret: 'h-9', accessToken: 'h-10', refreshToken: 'h-11', webhookSecret: 'h-12' },
        members: { key: 'h-13', headers: { authorization: 'h-14', cookie: 'h-15' } },
        video: { members: { headers: { 'x-goog-authuser': 'h-16' } } },
      },
      'everything secret',
    );
    expect(lines[0]).toMatchObject({ req: { headers: { authorization: '[REDACTED]', 'x-request-id': 'kept' } }, members: { headers: '[REDACTED]' } });
    for (let index = 1; index <= 16; index += 1) expect(text()).not.toContain(`"h-${index}"`);
  });
});
