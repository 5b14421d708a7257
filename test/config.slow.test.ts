import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ConfigError, loadConfig } from '../src/config.js';
import { builtModule, START_NODE_FLAGS } from './support/built-module.js';
import { configErrorOf } from './support/config-error.js';
import { sandboxCredentials } from '../src/sandbox/credentials.js';

/**
 * Start-up configuration: `.env` + members.json validated; a bad value → ONE line naming the file,
 * the field and what is expected, never a secret. The last tests run `src/main.ts` as a process.
 */
const ROOT = resolve(import.meta.dirname, '..');
let cwd: string;

const LIVE_ENV = [
  'MEMBERSHIP_CLIENT_ID=client-id-value',
  'MEMBERSHIP_CLIENT_SECRET=client-secret-value',
  'MEMBERSHIP_ACCESS_TOKEN=access-token-value',
  'MEMBERSHIP_REFRESH_TOKEN=refresh-token-value',
  'MEMBERSHIP_CAMPAIGN_ID=12345',
  'MEMBERSHIP_WEBHOOK_SECRET=webhook-secret-value',
];
const SECRETS = ['client-secret-value', 'access-token-value', 'refresh-token-value', 'webhook-secret-value'];

async function writeEnv(lines: string[]): Promise<void> {
  await writeFile(join(cwd, '.env'), `${lines.join('\n')}\n`);
}

function configError(env: Record<string, string> = {}): ConfigError {
  return configErrorOf({ cwd, env });
}

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'channel-config-'));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

describe('loadConfig', () => {
  it('with no .env at all: sandbox mode and the documented defaults', () => {
    const config = loadConfig({ cwd, env: {} });
    expect(config).toMatchObject({ port: 4000, host: '127.0.0.1', dataDir: join(cwd, 'data'), refreshIntervalSeconds: 300, upstream: { mode: 'sandbox' } });
    expect(config.graph.responseCache).toBe(true);
  });

  it('the shipped .env.example loads as is: sandbox mode, documented defaults', async () => {
    const documented = Object.keys(parseEnv(await readFile(join(ROOT, '.env.example'), 'utf8')));
    const required = ['PORT', ...LIVE_ENV.map((line) => line.split('=')[0]!), 'MEMBERSHIP_API_BASE', 'VIDEO_API_BASE', 'MEMBERS_CONFIG', 'DATA_DIR', 'REFRESH_INTERVAL_SECONDS'];
    for (const name of required) expect(documented, name).toContain(name);
    await copyFile(join(ROOT, '.env.example'), join(cwd, '.env'));
    expect(loadConfig({ cwd, env: {} })).toMatchObject({ port: 4000, host: '127.0.0.1', dataDir: join(cwd, 'data'), refreshIntervalSeconds: 300, upstream: { mode: 'sandbox' } });
  });

  it('reads .env; the process environment wins over it', async () => {
    await writeEnv(['PORT=4555', 'DATA_DIR=/var/lib/channel', 'REFRESH_INTERVAL_SECONDS=60', 'HOST=0.0.0.0']);
    expect(loadConfig({ cwd, env: {} })).toMatchObject({ port: 4555, dataDir: '/var/lib/channel', refreshIntervalSeconds: 60, host: '0.0.0.0' });
    expect(loadConfig({ cwd, env: { PORT: '4600' } }).port).toBe(4600);
  });

  it('live mode: all six credentials, the API bases and a valid members.json', async () => {
    await writeEnv([...LIVE_ENV, 'MEMBERSHIP_API_BASE=http://127.0.0.1:4100/', 'VIDEO_API_BASE=http://127.0.0.1:4100', 'MEMBERS_CONFIG=conf/members.json']);
    await mkdir(join(cwd, 'conf'));
    await writeFile(join(cwd, 'conf/members.json'), JSON.stringify(sandboxCredentials().members));
    const config = loadConfig({ cwd, env: {} });
    expect(config.upstream).toEqual({
      mode: 'live',
      membership: {
        apiBase: 'http://127.0.0.1:4100',
        clientId: 'client-id-value',
        clientSecret: 'client-secret-value',
        accessToken: 'access-token-value',
        refreshToken: 'refresh-token-value',
        campaignId: '12345',
        webhookSecret: 'webhook-secret-value',
      },
      video: { apiBase: 'http://127.0.0.1:4100', members: sandboxCredentials().members },
    });
  });

  it.each([
    [['PORT=http'], '.env: PORT: expected a port number 0-65535, got "http"'],
    [['PORT=70000'], '.env: PORT: expected a port number 0-65535, got "70000"'],
    [['REFRESH_INTERVAL_SECONDS=5m'], '.env: REFRESH_INTERVAL_SECONDS: expected whole seconds 0-86400 (0 turns the interval refresh off), got "5m"'],
    [['GRAPHQL_MAX_DEPTH=deep'], '.env: GRAPHQL_MAX_DEPTH: expected a positive integer, got "deep"'],
    [[...LIVE_ENV, 'MEMBERSHIP_API_BASE=ftp://example.org'], '.env: MEMBERSHIP_API_BASE: expected an http(s) URL, got "ftp://example.org"'],
  ])('%j → %s', async (lines, message) => {
    await writeEnv(lines);
    const error = configError();
    expect(error.message).toBe(message);
    expect(error.message).not.toContain('\n');
  });

  it('names the first missing credential when only some are set, without echoing any secret', async () => {
    await writeEnv(LIVE_ENV.filter((line) => !line.startsWith('MEMBERSHIP_CAMPAIGN_ID')));
    const error = configError();
    expect(error.file).toBe('.env');
    expect(error.field).toBe('MEMBERSHIP_CAMPAIGN_ID');
    expect(error.message).toMatch(/^\.env: MEMBERSHIP_CAMPAIGN_ID: expected a value/);
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
  });

  it('members.json: missing, not JSON, still the example placeholders, a bad field', async () => {
    await writeEnv(LIVE_ENV);
    expect(configError().message).toBe(`${join(cwd, 'members.json')}: (file): not found (expected the video dashboard values: cp members.example.json members.json)`);

    await writeFile(join(cwd, 'members.json'), '{ "key": ');
    expect(configError().message).toBe(`${join(cwd, 'members.json')}: line 1, column 10: expected a value, not the end of the file (the file is not valid JSON)`);

    await copyFile(join(ROOT, 'members.example.json'), join(cwd, 'members.json'));
    expect(configError().message).toMatch(/members\.json: key: expected .*placeholder from members\.example\.json/);

    const members = { ...sandboxCredentials().members, externalChannelId: 'my channel' };
    await writeFile(join(cwd, 'members.json'), JSON.stringify(members));
    const error = configError();
    expect(error.message).toBe(`${join(cwd, 'members.json')}: externalChannelId: expected the channel id (UC followed by 22 characters)`);
    expect(error.message).not.toContain('\n');
  });
});

/**
 * Runs src/main.ts as `npm start` does (built, with the start script's node flags) in `cwd` with
 * exactly `env` (and PATH). With `whileServing`, once the start line names the URL, runs it against
 * the server, then sends SIGTERM.
 */
function runMain(env: Record<string, string>, whileServing?: (url: string) => Promise<void>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...START_NODE_FLAGS, builtModule('src/main.ts')], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let serving = false;
    let failure: Error | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /channel api listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (serving || whileServing === undefined || url === undefined) return;
      serving = true;
      // One SIGTERM only: a second one means "stop now" (the default action).
      void whileServing(url)
        .catch((error: unknown) => (failure = error instanceof Error ? error : new Error(String(error))))
        .finally(() => child.kill('SIGTERM'));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (failure === undefined ? resolvePromise({ code, stdout, stderr }) : reject(failure)));
  });
}

/** The JSON log lines of a run. */
const logLines = (stdout: string): Array<{ level: number; component?: string; mode?: string; msg: string }> =>
  stdout.trim().split('\n').map((line) => JSON.parse(line) as { level: number; component?: string; mode?: string; msg: string });

describe('src/main.ts (npm start)', () => {
  it('stops on a bad value with exactly one line naming the file and the field', async () => {
    await writeEnv(['PORT=fourthousand', ...LIVE_ENV]);
    const { code, stdout, stderr } = await runMain({});
    expect(code).toBe(78);
    expect(stdout).toBe('');
    expect(stderr).toBe('configuration error: .env: PORT: expected a port number 0-65535, got "fourthousand"\n');
    for (const secret of SECRETS) expect(stderr).not.toContain(secret);
  });

  it('a malformed .env line stops it (exit 78) naming the file and the line, without quoting it', async () => {
    await writeFile(join(cwd, '.env'), `PORT=0\nMEMBERSHIP_CLIENT_SECRET client-secret-value\n`);
    const { code, stdout, stderr } = await runMain({});
    expect(code).toBe(78);
    expect(stdout).toBe('');
    expect(stderr).toBe('configuration error: .env: line 2: expected NAME=value, a # comment or a blank line\n');
  });

  it('a goals file that is not valid stops it (exit 78) with one line naming the file, the goal and what is expected', async () => {
    await writeFile(join(cwd, 'goals.json'), JSON.stringify({ goals: [{ id: 'fifty', title: '50 patrons', measure: 'members', platform: 'membership', target: 50 }, { id: 'fifty', title: 'Again', measure: 'patrons', target: -1 }] }));
    const { code, stdout, stderr } = await runMain({ GOALS_FILE: 'goals.json' });
    expect(code).toBe(78);
    expect(stdout).toBe('');
    expect(stderr).toBe('configuration error: goals.json: goals.1.measure: expected "members" or "monthlyCents"\n');
    await writeFile(join(cwd, 'goals.json'), JSON.stringify({ goals: [{ id: 'a', title: 'A', measure: 'members', target: 5 }, { id: 'a', title: 'B', measure: 'members', target: 6 }] }));
    expect((await runMain({ GOALS_FILE: 'goals.json' })).stderr).toBe('configuration error: goals.json: goals.1.id: expected a unique id ("a" is used twice)\n');
    expect((await runMain({ GOALS_FILE: 'missing-goals.json' })).stderr).toMatch(/^configuration error: .*missing-goals\.json: \(file\): not found \(expected the goals/);
  });

  it('a bad value from the process environment is reported as coming from it, not from .env', async () => {
    const { code, stderr } = await runMain({ PORT: 'fourthousand' });
    expect(code).toBe(78);
    expect(stderr).toBe('configuration error: environment: PORT: expected a port number 0-65535, got "fourthousand"\n');
  });

  it('without credentials (and without NODE_ENV=production) runs on the sandbox and says so: a warning, the start line, /healthz, /readyz, /metrics; exits 0 on SIGTERM', async () => {
    await writeEnv(['PORT=0']);
    const { code, stdout } = await runMain({}, async (url) => {
      expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ mode: 'sandbox' });
      // Ready once every source has its first snapshot.
      await vi.waitFor(async () => expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', mode: 'sandbox' }), { timeout: 15_000, interval: 50 });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics.split('\n').filter((line) => line.startsWith('channel_graph_mode{'))).toEqual(['channel_graph_mode{mode="sandbox"} 1']);
    });
    // JSON log lines (pino), in order; upstream fetch lines may come between.
    const lines = logLines(stdout);
    expect(lines[0]).toMatchObject({ level: 40, component: 'main', mode: 'sandbox', msg: expect.stringMatching(/^sandbox mode: no membership credentials are set, .* made-up test data.*docs\/operating\.md#setup-for-your-channel/) });
    expect(lines.find((line) => line.msg.startsWith('channel api listening'))).toMatchObject({
      component: 'main',
      mode: 'sandbox',
      msg: expect.stringMatching(/^channel api listening on http:\/\/127\.0\.0\.1:\d+ in sandbox mode /),
    });
    expect(lines.some((line) => line.msg.startsWith('SIGTERM: closing'))).toBe(true);
    // Every line says which part of the service wrote it: main's own lines too.
    expect(lines.filter((line) => typeof line.component !== 'string')).toEqual([]);
    // The log is written asynchronously: the line written just before the exit is flushed, not lost.
    expect(lines.at(-1)).toMatchObject({ component: 'main', msg: 'closed' });
    expect(code).toBe(0);
  });

  it('NODE_ENV=production without credentials refuses to start: exit 78, one line naming them, SANDBOX=true and the setup', async () => {
    const { code, stdout, stderr } = await runMain({ NODE_ENV: 'production', PORT: '0' });
    expect(code).toBe(78);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'configuration error: environment (no .env file): MEMBERSHIP_CLIENT_ID, MEMBERSHIP_CLIENT_SECRET, MEMBERSHIP_CAMPAIGN_ID, MEMBERSHIP_WEBHOOK_SECRET: expected values: NODE_ENV=production serves your channel, with its membership credentials (docs/operating.md#setup-for-your-channel); SANDBOX=true serves the built-in sandbox\'s test data instead\n',
    );
  });

  it('SANDBOX=true with credentials is refused too (exit 78): neither is guessed to win', async () => {
    await writeEnv(LIVE_ENV);
    const { code, stderr } = await runMain({ SANDBOX: 'true' });
    expect(code).toBe(78);
    expect(stderr).toMatch(/^configuration error: environment: SANDBOX: expected no membership credentials with SANDBOX=true .*\n$/);
    for (const secret of SECRETS) expect(stderr).not.toContain(secret);
  });

  it('NODE_ENV=production with SANDBOX=true runs the sandbox, deliberately, and still says so', async () => {
    await writeEnv(['PORT=0', 'SANDBOX=true']);
    const { code, stdout } = await runMain({ NODE_ENV: 'production' }, async (url) => {
      expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ mode: 'sandbox' });
    });
    expect(logLines(stdout)[0]).toMatchObject({ level: 40, mode: 'sandbox' });
    expect(code).toBe(0);
  });
});

describe('src/main.ts when the port is taken', () => {
  it('stops with one line saying so', async () => {
    const blocker = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(0, '127.0.0.1', resolveListen));
    const { port } = blocker.address() as { port: number };
    try {
      await writeEnv([`PORT=${port}`]);
      const { code, stderr } = await runMain({});
      expect(code).toBe(1);
      expect(stderr).toBe(`could not start: cannot listen on 127.0.0.1:${port}: the address is in use (set PORT or HOST in .env)\n`);
    } finally {
      blocker.close();
    }
  });
});

/** UPSTREAM_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS and the HTTP_*_TIMEOUT_MS settings: defaults, overrides, refusals. */
describe('timeouts in the configuration', () => {
  it('defaults: upstream 10 s, shutdown 10 s, headers 10 s, request 30 s, keep-alive 5 s', () => {
    expect(loadConfig({ cwd, env: {} })).toMatchObject({
      upstreamTimeoutMs: 10_000,
      shutdownTimeoutMs: 10_000,
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 },
    });
  });

  it('each one is overridden by its variable', () => {
    const env = {
      UPSTREAM_TIMEOUT_MS: '2500',
      SHUTDOWN_TIMEOUT_MS: '4000',
      HTTP_HEADERS_TIMEOUT_MS: '3000',
      HTTP_REQUEST_TIMEOUT_MS: '9000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
    };
    expect(loadConfig({ cwd, env })).toMatchObject({
      upstreamTimeoutMs: 2_500,
      shutdownTimeoutMs: 4_000,
      http: { headersTimeoutMs: 3_000, requestTimeoutMs: 9_000, keepAliveTimeoutMs: 65_000 },
    });
  });

  it.each([
    ['UPSTREAM_TIMEOUT_MS', '0', 'expected milliseconds 1-600000, got "0"'],
    ['SHUTDOWN_TIMEOUT_MS', '10s', 'expected milliseconds 1-600000, got "10s"'],
    ['HTTP_HEADERS_TIMEOUT_MS', '-1', 'expected milliseconds 1-600000, got "-1"'],
    ['HTTP_REQUEST_TIMEOUT_MS', '3600001', 'expected milliseconds 1-3600000, got "3600001"'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '', null],
  ])('%s=%s', (name, value, expected) => {
    if (expected === null) {
      expect(loadConfig({ cwd, env: { [name]: value } }).http?.keepAliveTimeoutMs).toBe(5_000); // empty: the default
      return;
    }
    // The value came from the process environment, and the message says so (there is no .env here).
    expect(configError({ [name]: value }).message).toBe(`environment: ${name}: ${expected}`);
  });

  it('a headers timeout longer than the request timeout is refused (node:http would throw at start)', () => {
    expect(configError({ HTTP_HEADERS_TIMEOUT_MS: '40000' }).message).toBe('environment: HTTP_HEADERS_TIMEOUT_MS: expected at most HTTP_REQUEST_TIMEOUT_MS (30000), got 40000');
  });
});
