import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseEnv } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfigError, loadConfig } from '../src/config.js';
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

const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function runMain(env: Record<string, string>, stopWhen?: (stdout: string) => boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'src/main.ts')], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // One SIGTERM only: a second one means "stop now" (the default action).
      if (!stopped && stopWhen?.(stdout)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

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

  it('a bad value from the process environment is reported as coming from it, not from .env', async () => {
    const { code, stderr } = await runMain({ PORT: 'fourthousand' });
    expect(code).toBe(78);
    expect(stderr).toBe('configuration error: environment: PORT: expected a port number 0-65535, got "fourthousand"\n');
  });

  it('without credentials says "sandbox mode" in its first log line, serves, and exits 0 on SIGTERM', async () => {
    await writeEnv(['PORT=0']);
    const { code, stdout } = await runMain({}, (out) => out.includes('listening on'));
    // JSON log lines (pino): the messages in order; upstream fetch lines may come between.
    const messages = stdout.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages[0]).toMatch(/^sandbox mode: no membership credentials in \.env/);
    expect(messages.find((message) => message.startsWith('channel api listening'))).toMatch(/^channel api listening on http:\/\/127\.0\.0\.1:\d+ /);
    expect(messages.some((message) => message.startsWith('SIGTERM: closing'))).toBe(true);
    // The log is written asynchronously: the line written just before the exit is flushed, not lost.
    expect(messages.at(-1)).toBe('closed');
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
