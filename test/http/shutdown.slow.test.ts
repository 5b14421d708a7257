import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMBERSHIP_TOKEN_FILE } from '../../src/app.js';
import { FileTokenStore } from '../../src/channel/file-token-store.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { builtModule, START_NODE_FLAGS } from '../support/built-module.js';
import { eventually } from '../support/eventually.js';
import { liveModeEnv } from '../support/live-env.js';

/**
 * Shutdown and crashes lose no token — on the real service process (`src/main.ts` as `npm start`
 * runs it: built, on node with the start script's flags; test/support/built-module.ts) in live mode
 * against a sandbox whose token endpoint is slowed. The sandbox retires the presented refresh token
 * as soon as the refresh request arrives (a real authorization server does too), so a service that
 * exits or dies before saving the answer has lost the only valid refresh token.
 *
 * - SIGTERM with a refresh in flight: the process waits for the answer and the save, exits 0, and
 *   the next start refreshes with the saved token;
 * - a second signal (a second or more after the first) exits at once;
 * - SHUTDOWN_TIMEOUT_MS bounds the wait (exit 1, saying what it waited for);
 * - kill -9 after the temporary file is flushed, before the rename: the next start recovers the
 *   new token from it and works; kill -9 in the middle of the write: the next start reads complete
 *   files only and reports the dead token in /healthz, naming the fix.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVICE_WAIT_MS = 30_000;
/** src/main.ts: a signal repeated within this time is the same request to stop (npm forwards a Ctrl-C twice). */
const REPEATED_SIGNAL_MS = 1_000;
const MAIN = builtModule('src/main.ts');
const HOLD_TOKEN_SAVE = join(ROOT, 'test/support/hold-token-save.mjs');

interface Service {
  child: ChildProcess;
  output: () => string;
  url: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

let sandbox: RunningSandbox;
let dir: string;
let dataDir: string;
const running: Service[] = [];

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 31 });
  dir = await mkdtemp(join(tmpdir(), 'channel-shutdown-'));
  dataDir = join(dir, 'data');
  await writeFile(join(dir, 'members.json'), JSON.stringify(sandbox.credentials.members));
});
afterEach(async () => {
  for (const service of running.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await service.exited;
  }
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

function startService(env: Record<string, string> = {}, preload?: 'rename' | 'write'): Service {
  const child = spawn(process.execPath, [...START_NODE_FLAGS, ...(preload === undefined ? [] : ['--import', HOLD_TOKEN_SAVE]), MAIN], {
    cwd: ROOT,
    stdio: 'pipe',
    env: {
      PATH: process.env.PATH ?? '',
      ENV_FILE: join(dir, 'absent.env'),
      PORT: '0',
      ...liveModeEnv(sandbox),
      MEMBERS_CONFIG: join(dir, 'members.json'),
      DATA_DIR: dataDir,
      REFRESH_INTERVAL_SECONDS: '0',
      // The token's crash windows are this file's subject: no history database to start beside them.
      HISTORY: 'false',
      ...(preload === undefined ? {} : { HOLD_TOKEN_SAVE: preload }),
      ...env,
    },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const url = eventually(
    'the service to listen',
    () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited before listening:\n${output}`);
      return /channel api listening on (http:\/\/\S+)/.exec(output)?.[1];
    },
    { timeoutMs: SERVICE_WAIT_MS, detail: () => output },
  );
  url.catch(() => undefined);
  const service = { child, output: () => output, url, exited };
  running.push(service);
  return service;
}

async function control(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${sandbox.url}/__sandbox/${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`sandbox ${method} ${path}: HTTP ${response.status}`);
}

async function tokenRequests(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: { token: number } }).requests.token;
}

/** A process of its own: generous on a loaded machine. */
function waitFor<T>(what: string, probe: () => Promise<T> | T): Promise<Exclude<T, undefined | false>> {
  return eventually(what, probe, { timeoutMs: SERVICE_WAIT_MS });
}

/** The access tokens expire, so the service's first membership read at start refreshes (slowly, with `latencyMs`). */
async function refreshAtStart(latencyMs: number): Promise<void> {
  await control('POST', 'faults', { target: 'token', latencyMs });
  await control('POST', 'expire-tokens');
}

interface Health {
  sources: { membership: { fetched_at: string | null; stale: boolean; last_error: string | null } };
}

async function membershipHealth(service: Service): Promise<Health['sources']['membership']> {
  const response = await fetch(`${await service.url}/healthz`);
  return ((await response.json()) as Health).sources.membership;
}

/** A restart with the same configuration and DATA_DIR must refresh with the token on disk. */
async function expectNextStartWorks(): Promise<void> {
  await control('DELETE', 'faults');
  await control('POST', 'expire-tokens');
  const before = await tokenRequests();
  const next = startService();
  const health = await waitFor('a membership read', async () => {
    const membership = await membershipHealth(next);
    return membership.fetched_at !== null || membership.last_error !== null ? membership : undefined;
  });
  expect(health).toMatchObject({ stale: false, last_error: null });
  expect(await tokenRequests()).toBe(before + 1); // it refreshed, with the saved token, and the sandbox accepted it
  next.child.kill('SIGTERM');
  expect((await next.exited).code).toBe(0);
}

describe('the service process and its token', () => {
  it('SIGTERM (twice, as npm start forwards a Ctrl-C) with a refresh in flight: waits for the answer and the save, exits 0; the next start works', async () => {
    const latencyMs = 2_500;
    await refreshAtStart(latencyMs);
    const service = startService();
    await service.url;
    await waitFor('the refresh request', async () => (await tokenRequests()) >= 1);
    const answerDue = performance.now() + latencyMs;
    const signalled = performance.now();
    service.child.kill('SIGTERM');
    await waitFor('the closing line', () => service.output().includes('SIGTERM: closing'));
    service.child.kill('SIGTERM'); // once the first was handled, and within a second of it: the same request to stop
    const { code, at } = await service.exited;
    expect(code, service.output()).toBe(0);
    expect(service.output()).toContain('closing: waiting for the membership token refresh in flight and its save');
    expect(at).toBeGreaterThan(answerDue - 200); // it did wait for the answer
    console.info(`SIGTERM → exit 0 in ${Math.round(at - signalled)} ms; the token endpoint's answer was due ${Math.round(answerDue - signalled)} ms after the signal`);

    const saved = await new FileTokenStore(join(dataDir, MEMBERSHIP_TOKEN_FILE)).load();
    expect(saved?.refresh_token).toEqual(expect.any(String));
    expect(saved?.refresh_token).not.toBe(sandbox.credentials.refreshToken);
    await expectNextStartWorks();
  });

  it('a second signal a second after the first exits at once', async () => {
    await refreshAtStart(20_000);
    const service = startService({ UPSTREAM_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '30000' });
    await service.url;
    await waitFor('the refresh request', async () => (await tokenRequests()) >= 1);
    service.child.kill('SIGINT');
    await waitFor('the closing line', () => service.output().includes('SIGINT: closing'));
    // The process logged that line after it took the first signal's time: the window is measured from here.
    const closingSeen = performance.now();
    await eventually("the first signal's repeat window to end", () => performance.now() - closingSeen > REPEATED_SIGNAL_MS, { intervalMs: 50 });
    const again = performance.now();
    service.child.kill('SIGINT');
    const { code, at } = await service.exited;
    expect(code).toBe(130); // 128 + SIGINT
    expect(service.output()).toContain('SIGINT again: exiting at once');
    expect(at - again).toBeLessThan(5_000); // not the 18 s the token answer was still away
  });

  it('SHUTDOWN_TIMEOUT_MS bounds the wait: exit 1 naming what it waited for', async () => {
    await refreshAtStart(20_000);
    const service = startService({ UPSTREAM_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '1000' });
    await service.url;
    await waitFor('the refresh request', async () => (await tokenRequests()) >= 1);
    service.child.kill('SIGTERM');
    const { code } = await service.exited;
    expect(code).toBe(1);
    expect(service.output()).toContain('error while closing: shutdown did not finish within 1000 ms (still waiting for the membership token refresh in flight and its save)');
  });

  it('kill -9 after the new token is flushed to its temporary file, before the rename: the next start recovers it and works', async () => {
    await refreshAtStart(0);
    const service = startService({}, 'rename');
    await waitFor('the held rename', () => service.output().includes('holding the token save (rename)'));
    const files = await readdir(dataDir);
    expect(files).not.toContain(MEMBERSHIP_TOKEN_FILE); // the seed token in the configuration is the only other copy, and it is dead
    expect(files.filter((name) => name.startsWith(`${MEMBERSHIP_TOKEN_FILE}.`) && name.endsWith('.tmp'))).toHaveLength(1);
    service.child.kill('SIGKILL');
    expect((await service.exited).signal).toBe('SIGKILL');

    await expectNextStartWorks();
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('kill -9 in the middle of writing the token: the next start reads complete files only and /healthz says to log in again', async () => {
    await refreshAtStart(0);
    const service = startService({}, 'write');
    await waitFor('the held write', () => service.output().includes('holding the token save (write)'));
    service.child.kill('SIGKILL');
    await service.exited;

    // The window this cannot close: the server has answered, the new token is not on disk yet.
    await control('DELETE', 'faults');
    const next = startService();
    const health = await waitFor('a membership read', async () => {
      const membership = await membershipHealth(next);
      return membership.last_error !== null ? membership : undefined;
    });
    expect(health.last_error).toMatch(/refreshing the access token failed: invalid_grant: .*; log in again with npm run authorize$/);
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
  });
});
