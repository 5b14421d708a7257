import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuth2AbortError, OAuth2Client, TokenKeeper, type TokenHash, type TokenStore } from '@channel-graph/oauth2';
import { FileTokenStore } from '../../src/channel/file-token-store.js';
import { builtModule } from '../support/built-module.js';
import { deferred } from '../support/deferred.js';
import { eventually } from '../support/eventually.js';
import { json, startServer, type TestServer } from './support/servers.js';

/**
 * A rotated refresh token is the only valid one once the authorization server has answered, so:
 * it is saved before anyone uses the new token; drain() (shutdown) waits for a refresh in flight
 * and its save and starts no new one; and a save cut short by a crash after its temporary file was
 * flushed is completed at the next start (FileTokenStore.recover, called by the keeper).
 */
let server: TestServer;
let generation = 0;
/** While set, the token endpoint has granted (a new generation) but holds its answer until it resolves. */
let tokenAnswerHeld: Promise<void> | undefined;
let dir: string;
const clients: OAuth2Client[] = [];

beforeAll(async () => {
  server = await startServer(async (request, response) => {
    if (request.path !== '/oauth/token') return json(response, 404, {});
    generation += 1;
    const issued = generation;
    await tokenAnswerHeld;
    json(response, 200, { access_token: `access-${issued}`, refresh_token: `refresh-${issued}`, token_type: 'Bearer', expires_in: 3600 });
  });
  dir = await mkdtemp(join(tmpdir(), 'token-durability-'));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function client(): OAuth2Client {
  const created = new OAuth2Client('id', 'secret', { site: server.url, logger: { debug: () => undefined, warn: () => undefined } });
  clients.push(created);
  return created;
}

const expired = (): TokenHash => ({ access_token: 'access-0', refresh_token: 'refresh-0', expires_at: Math.floor(Date.now() / 1000) - 10 });

/** A store whose saves wait until the test lets them finish, recording what happened in `events`. */
function gatedStore(events: string[]): TokenStore & { release(): void; saves: number } {
  let release: () => void = () => undefined;
  const store = {
    saves: 0,
    load: () => Promise.resolve(null),
    clear: () => Promise.resolve(),
    save(token: TokenHash) {
      store.saves += 1;
      events.push(`save started ${token.access_token}`);
      return new Promise<void>((resolve) => {
        release = () => {
          events.push(`saved ${token.access_token}`);
          resolve();
        };
      });
    },
    release: () => release(),
  };
  return store;
}


describe('the rotated token is on disk before it is used', () => {
  it('no caller gets the new token, and current() stays the old one, until its save has finished', async () => {
    const events: string[] = [];
    const store = gatedStore(events);
    const keeper = new TokenKeeper(client(), { initial: expired(), store });
    const first = keeper.token().then((token) => events.push(`first caller got ${token.token}`));
    await eventually('the save of the rotated token', () => store.saves === 1);
    const issued = `access-${generation}`;
    // A caller arriving while the save is pending joins the refresh instead of using the new token.
    const second = keeper.token().then((token) => events.push(`second caller got ${token.token}`));
    expect((await keeper.current()).token).toBe('access-0');
    // One more round trip to the server: nobody got the token meanwhile.
    expect((await fetch(`${server.url}later`)).status).toBe(404);
    expect(events).toEqual([`save started ${issued}`]);
    store.release();
    await Promise.all([first, second]);
    expect(events).toEqual([`save started ${issued}`, `saved ${issued}`, `first caller got ${issued}`, `second caller got ${issued}`]);
    expect((await keeper.current()).token).toBe(issued);
  });
});

describe('drain(): shutting down with a refresh in flight', () => {
  it('waits for the token endpoint’s answer AND the save, then refuses to start another refresh', async () => {
    const events: string[] = [];
    const store = gatedStore(events);
    const keeper = new TokenKeeper(client(), { initial: expired(), store });
    const answer = deferred();
    tokenAnswerHeld = answer.promise;
    const requestsBefore = server.requests.length;
    const refreshing = keeper.token();
    await eventually('the token request at the server', () => server.requests.length > requestsBefore); // its answer is held
    expect(keeper.refreshInFlight).toBe(true);
    const drained = keeper.drain().then(() => events.push('drained'));
    tokenAnswerHeld = undefined;
    answer.resolve();
    await eventually('the save of the rotated token', () => store.saves === 1);
    expect(events).toEqual([`save started access-${generation}`]); // the answer came; the save is pending; drain waits
    store.release();
    await drained;
    expect(events.slice(-2)).toEqual([`saved access-${generation}`, 'drained']);
    expect((await refreshing).token).toBe(`access-${generation}`);

    const requestsAfter = server.requests.length;
    await expect(keeper.refresh()).rejects.toBeInstanceOf(OAuth2AbortError);
    expect(server.requests.length).toBe(requestsAfter);
    expect(keeper.refreshInFlight).toBe(false);
  });

  it('without a refresh in flight it resolves at once', async () => {
    const keeper = new TokenKeeper(client(), { initial: expired() });
    await keeper.drain();
    await expect(keeper.token()).rejects.toThrow('no token refresh is started while shutting down');
  });

  it('saves once more a rotated token whose save had failed', async () => {
    const saved: TokenHash[] = [];
    let failures = 1;
    const store: TokenStore = {
      load: () => Promise.resolve(null),
      clear: () => Promise.resolve(),
      save: (token) => {
        if (failures-- > 0) return Promise.reject(new Error('disk full'));
        saved.push(token);
        return Promise.resolve();
      },
    };
    const keeper = new TokenKeeper(client(), { initial: expired(), store });
    const token = await keeper.token(); // the save failed; the new token is used anyway (the old one is dead)
    expect(saved).toEqual([]);
    await keeper.drain();
    expect(saved.map((hash) => hash.access_token)).toEqual([token.token]);
  });
});

describe('recover(): a save cut short by a crash', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));

  /**
   * A child process saves `token` to `path` and is killed (SIGKILL) where the rename would happen.
   * It runs on plain node, on the service's build (test/support/built-module.ts).
   */
  function killedBetweenWriteAndRename(path: string, token: TokenHash): void {
    const script = [
      `import { FileTokenStore } from ${JSON.stringify(pathToFileURL(builtModule('src/channel/file-token-store.ts')).href)};`,
      `await new FileTokenStore(${JSON.stringify(path)}, { rename: () => process.kill(process.pid, 'SIGKILL') }).save(${JSON.stringify(token)});`,
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
  }

  it('the next keeper uses the token the killed process had flushed, and the file holds it', async () => {
    const path = join(dir, 'killed', 'token.json');
    await new FileTokenStore(path).save({ access_token: 'retired-access', refresh_token: 'retired-refresh', expires_at: 4_102_444_800 });
    killedBetweenWriteAndRename(path, { access_token: 'rotated-access', refresh_token: 'rotated-refresh', expires_at: 4_102_444_800 });
    expect((await readdir(join(dir, 'killed'))).filter((name) => name.endsWith('.tmp'))).toHaveLength(1);

    const keeper = new TokenKeeper(client(), { store: new FileTokenStore(path) });
    expect((await keeper.token()).refreshToken).toBe('rotated-refresh');
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ refresh_token: 'rotated-refresh' });
    expect(await readdir(join(dir, 'killed'))).toEqual(['token.json']);
  });

  it('ignores a torn temporary file, one older than the file, and one whose writer is still running; removes the first two', async () => {
    const folder = join(dir, 'leftovers');
    await mkdir(folder, { recursive: true });
    const path = join(folder, 'token.json');
    const store = new FileTokenStore(path);
    await store.save({ access_token: 'current-access', refresh_token: 'current-refresh' });
    const deadPid = 2 ** 22 + 1; // above Linux's pid_max: no such process
    const leftovers = {
      torn: join(folder, `token.json.${deadPid}.aaaaaaaaaaaa.tmp`),
      older: join(folder, `token.json.${deadPid}.bbbbbbbbbbbb.tmp`),
      live: join(folder, `token.json.${process.ppid}.cccccccccccc.tmp`),
    };
    await writeFile(leftovers.torn, JSON.stringify({ access_token: 'torn-access', refresh_token: 'torn-refresh' }).slice(0, 30));
    await writeFile(leftovers.older, JSON.stringify({ access_token: 'older-access' }));
    await utimes(leftovers.older, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    await writeFile(leftovers.live, JSON.stringify({ access_token: 'live-access' }));
    await store.recover();
    expect(await store.load()).toEqual({ access_token: 'current-access', refresh_token: 'current-refresh' });
    // The dead writer's leftovers are removed (they must not pile up); the live writer's file stays.
    expect((await readdir(folder)).sort()).toEqual(['token.json', leftovers.live.slice(folder.length + 1)].sort());
  });

  it('with no file at all, a whole leftover is the token', async () => {
    const folder = join(dir, 'first-save');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `token.json.${2 ** 22 + 1}.dddddddddddd.tmp`), JSON.stringify({ access_token: 'first-access', refresh_token: 'first-refresh' }));
    const store = new FileTokenStore(join(folder, 'token.json'));
    await store.recover();
    expect(await store.load()).toEqual({ access_token: 'first-access', refresh_token: 'first-refresh' });
  });
});
