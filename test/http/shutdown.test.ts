import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChannelApp, MEMBERSHIP_TOKEN_FILE, ShutdownTimeoutError, type ChannelApp } from '../../src/app.js';
import { FileTokenStore } from '../../src/channel/file-token-store.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { eventually } from '../support/eventually.js';
import { captureLogger, liveUpstream, makeDataDir, sandboxControl, sandboxRequests, testConfig, validator } from './harness.js';

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
  await eventually('the token request at the sandbox', async () => (await sandboxRequests(sandbox)).token > before);
}

/** The answer, and what in it does not conform to openapi/channel-api.yaml (as `request()` checks). */
interface InFlightAnswer {
  status: number;
  body: string;
  violations: string[];
}

/**
 * A GET that tells when the server has it: sent with `Expect: 100-continue`, it is answered
 * `100 Continue` by node:http as it hands the request to the app, and `received` resolves then.
 */
function requestInFlight(baseUrl: string, path: string): { received: Promise<void>; answer: Promise<InFlightAnswer>; answered(): boolean } {
  let answered = false;
  let received: () => void = () => undefined;
  const receivedPromise = new Promise<void>((resolve) => (received = resolve));
  const answer = new Promise<InFlightAnswer>((resolve, reject) => {
    const outgoing = httpRequest(`${baseUrl}${path}`, { headers: { expect: '100-continue' } }, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => {
        answered = true;
        const status = incoming.statusCode ?? 0;
        const headers = new Headers(Object.entries(incoming.headers).map(([name, value]): [string, string] => [name, String(value)]));
        resolve({ status, body, violations: validator.validate({ method: 'GET', path, status, headers, body }) });
      });
      incoming.on('error', reject);
    });
    outgoing.on('continue', received);
    outgoing.on('error', reject);
    outgoing.end();
  });
  return { received: receivedPromise, answer, answered: () => answered };
}

/** Whether a new TCP connection to `url`'s port is refused (the server stopped listening). */
function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
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
    await app.close();
    // close() found the refresh in flight, and resolved once its rotated token was saved.
    expect(logged.map((line) => line.msg)).toContain('closing: waiting for the membership token refresh in flight and its save');
    const saved = await new FileTokenStore(join(dataDir, MEMBERSHIP_TOKEN_FILE)).load();
    expect(saved?.refresh_token).toEqual(expect.any(String));
    expect(saved?.refresh_token).not.toBe(sandbox.credentials.refreshToken);
    expect(await refreshWith(saved?.refresh_token as string)).toBe(200); // the saved token is the valid one
  });

  it('rejects with ShutdownTimeoutError, naming what it waited for, after shutdownTimeoutMs', async () => {
    const { app, dataDir } = await startApp({ shutdownTimeoutMs: 800 });
    await startRefreshInFlight(app, 4_000);
    const error = await app.close().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ShutdownTimeoutError);
    expect((error as Error).message).toBe('shutdown did not finish within 800 ms (still waiting for the membership token refresh in flight and its save)');
    // It gave up before the refresh's answer (4 s away) came: nothing is saved yet.
    expect(await new FileTokenStore(join(dataDir, MEMBERSHIP_TOKEN_FILE)).load()).toBeNull();
  });

  it('lets a request in flight finish and refuses new connections meanwhile', async () => {
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', latencyMs: 1_000 });
    const { app } = await startApp();
    const inFlight = requestInFlight(app.url, '/video/stats'); // a cold read: waits for the slow upstream
    await inFlight.received;
    const closing = app.close();
    await eventually('new connections refused', () => connectionRefused(app.url));
    expect(inFlight.answered()).toBe(false); // meanwhile
    const answered = await inFlight.answer;
    expect(answered.violations).toEqual([]);
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ stale: false });
    await closing;
  });
});
