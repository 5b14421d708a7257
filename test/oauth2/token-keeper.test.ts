import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessToken, MemoryTokenStore, OAuth2Client, TokenKeeper, type TokenHash } from '@channel-graph/oauth2';
import { FileTokenStore } from '../../src/channel/file-token-store.js';
import { builtModule } from '../support/built-module.js';
import { deferred } from '../support/deferred.js';
import { eventually } from '../support/eventually.js';
import { json, type Recorded, startServer, type TestServer } from './support/servers.js';

/**
 * A token endpoint that rotates: every refresh_token grant answers a new access token and a new
 * refresh token; resource `/me` accepts only the newest access token. `holdTokenAnswers()` keeps
 * the token endpoint's answers (and so a refresh in flight) until the returned function is called.
 */
async function startRotatingServer(): Promise<TestServer & { issued: () => number; holdTokenAnswers: () => () => void }> {
  let generation = 0;
  let held: Promise<void> | undefined;
  const server = await startServer(async (request: Recorded, response) => {
    if (request.path === '/oauth/token') {
      await held;
      generation += 1;
      json(response, 200, { access_token: `access-${generation}`, refresh_token: `refresh-${generation}`, token_type: 'Bearer', expires_in: 3600 });
      return;
    }
    if (request.path === '/me' && request.headers.authorization === `Bearer access-${generation}`) json(response, 200, { ok: true, generation });
    else json(response, 401, { error: 'invalid_token' });
  });
  const holdTokenAnswers = (): (() => void) => {
    const gate = deferred();
    held = gate.promise;
    return () => {
      held = undefined;
      gate.resolve();
    };
  };
  return Object.assign(server, { issued: () => generation, holdTokenAnswers });
}

let server: Awaited<ReturnType<typeof startRotatingServer>>;
let dir: string;
const clients: OAuth2Client[] = [];

function newClient(): OAuth2Client {
  const client = new OAuth2Client('keeper-client', 'keeper-secret', { site: server.url });
  clients.push(client);
  return client;
}

const expired: TokenHash = { access_token: 'access-0', refresh_token: 'refresh-0', expires_at: Math.floor(Date.now() / 1000) - 10 };

beforeAll(async () => {
  server = await startRotatingServer();
  dir = await mkdtemp(join(tmpdir(), 'oauth2-keeper-'));
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function refreshRequests(): Recorded[] {
  return server.requests.filter((request) => request.path === '/oauth/token');
}

describe('TokenKeeper', () => {
  it('1,000 concurrent calls with an expired token → exactly one refresh request', async () => {
    const before = refreshRequests().length;
    const keeper = new TokenKeeper(newClient(), { initial: expired, store: new MemoryTokenStore() });
    const tokens = await Promise.all(Array.from({ length: 1000 }, () => keeper.token()));
    expect(refreshRequests().length - before).toBe(1);
    const refreshed = refreshRequests().at(-1);
    expect(refreshed?.form.get('grant_type')).toBe('refresh_token');
    expect(refreshed?.form.get('refresh_token')).toBe('refresh-0');
    expect(new Set(tokens.map((token) => token.token)).size).toBe(1);
    expect(tokens[0]?.token).toBe(`access-${server.issued()}`);
  });

  it('refreshes within the leeway, not before', async () => {
    const soon = { access_token: 'a', refresh_token: 'r', expires_at: Math.floor(Date.now() / 1000) + 30 };
    const before = refreshRequests().length;
    expect((await new TokenKeeper(newClient(), { initial: soon, refreshLeewayMs: 10_000 }).token()).token).toBe('a');
    expect(refreshRequests().length).toBe(before);
    await new TokenKeeper(newClient(), { initial: soon }).token(); // default leeway 60 s > 30 s left
    expect(refreshRequests().length).toBe(before + 1);
  });

  it('the lead is the smaller of the leeway and 10 % of the lifetime: a short-lived token is not refreshed at every use', async () => {
    const now = Math.floor(Date.now() / 1000);
    const before = refreshRequests().length;
    // Lifetime 100 s, 30 s left: the lead is 10 s, not 60 s, so no refresh yet.
    const keeper = new TokenKeeper(newClient(), { initial: { access_token: 'short', refresh_token: 'r', expires_in: 100, expires_at: now + 30 } });
    expect((await keeper.token()).token).toBe('short');
    expect(keeper.refreshLeadMs(await keeper.current())).toBe(10_000);
    expect(refreshRequests().length).toBe(before);
    // 5 s left, inside the 10 s lead: refreshed.
    const due = new TokenKeeper(newClient(), { initial: { access_token: 'due', refresh_token: 'r', expires_in: 100, expires_at: now + 5 } });
    expect((await due.token()).token).not.toBe('due');
    expect(refreshRequests().length).toBe(before + 1);
    // A long lifetime keeps the 60 s cap; an unknown lifetime gets the leeway.
    const long = new TokenKeeper(newClient(), { initial: { access_token: 'long', expires_in: 86_400, expires_at: now + 86_400 } });
    expect(long.refreshLeadMs(await long.current())).toBe(60_000);
    expect(long.refreshLeadMs(await new TokenKeeper(newClient(), { initial: { access_token: 'x' } }).current())).toBe(60_000);
  });

  it('a failed load (the store unreachable) is not kept: the next call loads again', async () => {
    let failures = 1;
    const store = new MemoryTokenStore();
    await store.save({ access_token: 'stored' });
    const flaky = Object.assign(Object.create(store) as MemoryTokenStore, {
      load: () => (failures-- > 0 ? Promise.reject(new Error('store unreachable')) : store.load()),
    });
    const keeper = new TokenKeeper(newClient(), { store: flaky });
    await expect(keeper.current()).rejects.toThrow('store unreachable');
    expect((await keeper.current()).token).toBe('stored');
  });

  it('while the store is unreachable, `initial` stands in without being kept: the store is read again at the next call', async () => {
    let reachable = false;
    const store = new MemoryTokenStore();
    const flaky = Object.assign(Object.create(store) as MemoryTokenStore, {
      load: () => (reachable ? store.load() : Promise.reject(new Error('store unreachable'))),
    });
    const initial = { access_token: 'seed', refresh_token: 'seed-refresh' };
    const keeper = new TokenKeeper(newClient(), { store: flaky, initial });
    expect((await keeper.current()).token).toBe('seed');
    // Another process rotated the token meanwhile; once the store answers, its token wins.
    const rotated = new TokenKeeper(newClient(), { store, initial });
    await rotated.replace(AccessToken.fromHash(newClient(), { access_token: 'rotated', refresh_token: 'r2' }));
    reachable = true;
    expect((await keeper.current()).token).toBe('rotated');
  });

  it('refresh() calls made concurrently share one request', async () => {
    const keeper = new TokenKeeper(newClient(), { initial: { access_token: 'x', refresh_token: 'y' } });
    const before = refreshRequests().length;
    const results = await Promise.all(Array.from({ length: 50 }, () => keeper.refresh()));
    expect(refreshRequests().length - before).toBe(1);
    expect(new Set(results).size).toBe(1);
  });

  it('request(): a 401 refreshes once (coalesced across callers) and retries once', async () => {
    // A token that is not expired by its clock but no longer accepted by the server.
    const keeper = new TokenKeeper(newClient(), { initial: { access_token: 'revoked', refresh_token: 'r', expires_in: 3600 } });
    const before = refreshRequests().length;
    const refusedBefore = server.requests.filter((request) => request.headers.authorization === 'Bearer revoked').length;
    // Every caller's 401 comes while the refresh is in flight: the token endpoint answers only then.
    const release = server.holdTokenAnswers();
    const responding = Promise.all(Array.from({ length: 20 }, () => keeper.request('get', '/me')));
    await eventually('every caller refused once', () => server.requests.filter((request) => request.headers.authorization === 'Bearer revoked').length === refusedBefore + 20);
    release();
    const responses = await responding;
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(refreshRequests().length - before).toBe(1);
  });

  it('request(): a second 401 after the retry surfaces as OAuth2Error (no loop)', async () => {
    const client = newClient();
    const keeper = new TokenKeeper(client, { initial: { access_token: 'revoked', refresh_token: 'r', expires_in: 3600 } });
    const before = server.requests.length;
    await expect(keeper.request('get', '/always-401')).rejects.toMatchObject({ name: 'OAuth2Error' });
    // initial request, one refresh, one retry
    expect(server.requests.length - before).toBe(3);
  });

  it('persists every rotated token to the FileTokenStore with mode 0600; a new keeper resumes from it', async () => {
    const path = join(dir, 'rotation', 'token.json');
    const store = new FileTokenStore(path);
    const keeper = new TokenKeeper(newClient(), { initial: expired, store });
    const token = await keeper.token();
    const saved = JSON.parse(await readFile(path, 'utf8')) as TokenHash;
    expect(saved.access_token).toBe(token.token);
    expect(saved.refresh_token).toBe(token.refreshToken);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // Next run, same seed in configuration: the stored (newer) token wins, no refresh needed.
    const before = refreshRequests().length;
    const resumed = await new TokenKeeper(newClient(), { initial: expired, store }).token();
    expect(resumed.token).toBe(token.token);
    expect(refreshRequests().length).toBe(before);
  });

  it('a NEW initial token (operator changed the seed) wins over the stored one', async () => {
    const path = join(dir, 'seed', 'token.json');
    const store = new FileTokenStore(path);
    await new TokenKeeper(newClient(), { initial: expired, store }).token();
    const fresh: TokenHash = { access_token: 'operator-access', refresh_token: 'operator-refresh', expires_in: 3600 };
    expect((await new TokenKeeper(newClient(), { initial: fresh, store }).token()).token).toBe('operator-access');
  });

  it('a crash between write and rename leaves the previous token readable', async () => {
    const path = join(dir, 'crash', 'token.json');
    const good: TokenHash = { access_token: 'good-access', refresh_token: 'good-refresh' };
    await new FileTokenStore(path).save(good);
    const crashing = new FileTokenStore(path, {
      rename: () => Promise.reject(Object.assign(new Error('simulated crash before rename'), { code: 'EIO' })),
    });
    await expect(crashing.save({ access_token: 'half-written', refresh_token: 'lost' })).rejects.toThrow('simulated crash');
    expect(await new FileTokenStore(path).load()).toEqual(good);
    expect(await readdir(join(dir, 'crash'))).toEqual(['token.json']); // the temporary file is cleaned up
  });

  it('a process killed (SIGKILL) between write and rename leaves the previous token readable', async () => {
    const path = join(dir, 'killed', 'token.json');
    const good: TokenHash = { access_token: 'good-access', refresh_token: 'good-refresh' };
    await new FileTokenStore(path).save(good);
    // The child writes and flushes the temporary file, then dies where the rename would happen. It
    // runs on plain node, on the service's build (test/support/built-module.ts).
    const script = [
      `import { FileTokenStore } from ${JSON.stringify(pathToFileURL(builtModule('src/channel/file-token-store.ts')).href)};`,
      `await new FileTokenStore(${JSON.stringify(path)}, { rename: () => process.kill(process.pid, 'SIGKILL') })`,
      `  .save({ access_token: 'never-renamed', refresh_token: 'x' });`,
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    const files = await readdir(join(dir, 'killed'));
    expect(files.filter((name) => name.endsWith('.tmp'))).toHaveLength(1); // the torn write is left behind …
    expect(await new FileTokenStore(path).load()).toEqual(good); // … and never read
  });

  it('a store that fails to save does not lose the refreshed token', async () => {
    const warnings: string[] = [];
    const client = new OAuth2Client('keeper-client', 'keeper-secret', { site: server.url, logger: { debug: () => undefined, warn: (m: string) => warnings.push(m) } });
    clients.push(client);
    const failing = { load: () => Promise.resolve(null), save: () => Promise.reject(new Error('disk full')), clear: () => Promise.resolve() };
    const keeper = new TokenKeeper(client, { initial: expired, store: failing });
    const token = await keeper.token();
    expect(token.token).toBe(`access-${server.issued()}`);
    expect(warnings.join('\n')).toContain('disk full');
    expect(warnings.join('\n')).not.toContain(token.token);
  });

  it('without initial or stored token it says so', async () => {
    await expect(new TokenKeeper(newClient(), { store: new MemoryTokenStore() }).token()).rejects.toThrow(/no token/);
  });
});
