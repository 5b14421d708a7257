import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { sandboxUpstream } from '../../src/app.js';
import { createMembershipKeeper, createMembershipOAuthClient } from '../../src/channel/membership-oauth.js';
import type { OAuth2Client, TokenHash } from '../../src/oauth2/index.js';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { RedisTokenStore, TokenRevokedError } from '../../src/redis/token-store.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';

/**
 * A login (`replace()`) and a revocation (`clear()`) in the Redis token store, as `npm run authorize`
 * does them while replicas run (src/redis/token-store.ts): under the refresh lock, announced on the
 * change channel so that running keepers drop the token they hold, and final — a replica holding an
 * older token can neither offer it back nor refresh it. Real redis-server, the sandbox's endpoint.
 */
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** A token hash issued `secondsAgo` before now, living an hour. */
const tokenIssued = (name: string, secondsAgo: number): TokenHash => {
  const issuedAt = Math.floor(Date.now() / 1000) - secondsAgo;
  return { access_token: `access-${name}`, refresh_token: `refresh-${name}`, token_type: 'Bearer', expires_in: 3600, expires_at: issuedAt + 3600 };
};

describeWithBinary(REDIS_SERVER, 'login and revocation in the Redis token store, with replicas running', (path) => {
  let redis: RunningRedis;
  let sandbox: RunningSandbox;
  let keyCounter = 0;
  let key: string;
  const connections: Redis[] = [];
  const stores: RedisTokenStore[] = [];
  const clients: OAuth2Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer(path);
  });
  afterAll(() => redis.stop());
  beforeEach(async () => {
    sandbox = await startSandbox({ seed: 1414 });
    keyCounter += 1;
    key = `login-test:${keyCounter}:membership:token`;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) store.close();
    await Promise.all(connections.splice(0).map(closeRedisConnection));
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await sandbox.close();
  });

  const connect = async (): Promise<Redis> => {
    const connection = createRedisConnection({ url: redis.url, prefix: '' }, { maxReconnectDelayMs: 100 });
    connections.push(connection);
    await connection.connect();
    return connection;
  };

  /** A replica's store, listening on the change channel (as createSharedState wires it). */
  const replicaStore = async (lockTtlMs = 10_000): Promise<RedisTokenStore> => {
    const store = new RedisTokenStore({ connection: await connect(), subscriber: await connect(), key, lockTtlMs, logger: quiet });
    stores.push(store);
    await waitFor('subscribed to the change channel', async () => Number((await (connections[0] as Redis).call('PUBSUB', 'NUMSUB', store.changeChannel) as [string, number])[1]) >= 1);
    return store;
  };

  /** The login command's store: no subscriber. */
  const commandStore = async (): Promise<RedisTokenStore> => {
    const store = new RedisTokenStore({ connection: await connect(), key, lockTtlMs: 10_000, logger: quiet });
    stores.push(store);
    return store;
  };

  const replicaKeeper = (store: RedisTokenStore) => {
    const settings = sandboxUpstream(sandbox).membership;
    const client = createMembershipOAuthClient(settings, { connection: { timeout: 5_000 } });
    clients.push(client);
    return createMembershipKeeper(client, settings, store);
  };

  const tokenEndpointCalls = async (): Promise<number> =>
    ((await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: { token: number } }).requests.token;

  const stored = async (): Promise<Record<string, string>> => (connections[0] as Redis).hgetall(key);

  it('a login reaches a running keeper at once (change channel), with no token-endpoint call; the older token can no longer be offered back', async () => {
    const replica = await replicaStore();
    const keeper = replicaKeeper(replica);
    const before = (await keeper.refresh()).token; // Redis holds the replica's rotated token
    const versionBefore = Number((await stored()).version);
    const calls = await tokenEndpointCalls();

    const login = { ...tokenIssued('login', 0), seed_fingerprint: (await replica.load())?.seed_fingerprint };
    await (await commandStore()).replace(login);

    const record = await stored();
    expect(Number(record.version)).toBe(versionBefore + 1);
    expect((JSON.parse(record.token ?? '{}') as TokenHash).access_token).toBe('access-login');
    // Without the announcement the keeper would keep `before` in memory until it is due.
    await waitFor('the keeper holds the login token', async () => (await keeper.token()).token === 'access-login');
    expect(await tokenEndpointCalls()).toBe(calls);
    expect(before).not.toBe('access-login');

    // The replica's older token: offered back (a reconnection, a shutdown) it is refused…
    await replica.save({ access_token: before, refresh_token: 'refresh-before', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600 });
    expect((JSON.parse((await stored()).token ?? '{}') as TokenHash).access_token).toBe('access-login');
    // …and a refresh with it adopts the login token without calling the endpoint.
    let called = false;
    const adopted = await replica.refreshShared({ access_token: before, expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600 }, () => {
      called = true;
      return Promise.resolve(tokenIssued('never', 0));
    });
    expect(called).toBe(false);
    expect(adopted.token.access_token).toBe('access-login');
  });

  it('a login waits for a refresh in flight on a replica (the refresh lock): the login is stored last, and wins', async () => {
    const replica = await replicaStore();
    const command = await commandStore();
    await replica.save(tokenIssued('old', 100));
    let releaseRefresh: () => void = () => undefined;
    const refreshing = replica.refreshShared(tokenIssued('old', 100), async () => {
      await new Promise<void>((resolve) => {
        releaseRefresh = resolve;
      });
      return tokenIssued('refreshed', 0); // issued after the login began
    });
    await waitFor('the replica holds the lock', async () => (await (connections[0] as Redis).exists(replica.lockKey)) === 1);
    let loggedIn = false;
    const login = command.exclusive(async () => {
      await command.replace(tokenIssued('login', 5));
      loggedIn = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(loggedIn).toBe(false); // waiting for the lock
    releaseRefresh();
    expect((await refreshing).token.access_token).toBe('access-refreshed');
    await login;
    expect((JSON.parse((await stored()).token ?? '{}') as TokenHash).access_token).toBe('access-login');
    expect(await (connections[0] as Redis).exists(replica.lockKey)).toBe(0);
  });

  it('a revocation leaves a tombstone: keepers drop the token at once and have none; the revoked chain is never written back nor refreshed; a new login or a new seed replaces it', async () => {
    const replica = await replicaStore();
    const keeper = replicaKeeper(replica);
    const held = (await keeper.refresh()).toHash();
    const command = await commandStore();
    await command.exclusive(() => command.clear());

    const record = await stored();
    expect(record.token).toBeUndefined();
    expect(record.revoked_seed).toEqual(expect.any(String));
    expect(await replica.load()).toBeNull();
    // The keeper was told: its next use reads the store, which has no token (the .env seed stands in, as without Redis).
    await waitFor('the keeper dropped the revoked token', async () => (await keeper.token()).token !== held.access_token);
    expect((await keeper.token()).token).toBe(sandbox.credentials.accessToken);

    const calls = await tokenEndpointCalls();
    await replica.save({ ...held, seed_fingerprint: record.revoked_seed });
    expect((await stored()).token).toBeUndefined();
    await expect(replica.refreshShared({ ...held, seed_fingerprint: record.revoked_seed }, () => Promise.resolve(tokenIssued('never', 0)))).rejects.toBeInstanceOf(TokenRevokedError);
    await expect(keeper.refresh()).rejects.toThrow(/revoked/);
    expect(await tokenEndpointCalls()).toBe(calls);

    // A new seed in the configuration (another fingerprint) supersedes the tombstone.
    const newSeed: TokenHash = { access_token: 'access-new-seed', refresh_token: 'refresh-new-seed', seed_fingerprint: 'another-seed' };
    const result = await replica.refreshShared(newSeed, (latest) => Promise.resolve({ ...tokenIssued(`after-${String(latest.access_token)}`, 0), seed_fingerprint: 'another-seed' }));
    expect(result.token.access_token).toBe('access-after-access-new-seed');

    // And a login replaces whatever is stored.
    await command.exclusive(() => command.clear());
    await command.exclusive(() => command.replace(tokenIssued('login', 0)));
    expect(await replica.load()).toMatchObject({ access_token: 'access-login' });
  });

  it('a replica waiting for another\'s refresh is woken by the announcement of its write, not by its poll', async () => {
    // Polls a minute apart: only the change channel can end the wait within the test's time.
    const holder = await replicaStore();
    const waiter = new RedisTokenStore({ connection: await connect(), subscriber: await connect(), key, lockTtlMs: 30_000, pollIntervalMs: 60_000, logger: quiet });
    stores.push(waiter);
    await waitFor('the waiter subscribed', async () => Number(((await (connections[0] as Redis).call('PUBSUB', 'NUMSUB', waiter.changeChannel)) as [string, number])[1]) >= 2);
    await holder.save(tokenIssued('old', 100));
    let finish: () => void = () => undefined;
    const holding = holder.refreshShared(tokenIssued('old', 100), async () => {
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return tokenIssued('new', 0);
    });
    await waitFor('the holder has the lock', async () => (await (connections[0] as Redis).exists(holder.lockKey)) === 1);
    let called = false;
    const waiting = waiter.refreshShared(tokenIssued('old', 100), () => {
      called = true;
      return Promise.resolve(tokenIssued('never', 0));
    });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the waiter has looked once and waits
    finish();
    await holding;
    const outcome = await Promise.race([waiting, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000))]);
    expect(outcome).toMatchObject({ token: { access_token: 'access-new' } });
    expect(called).toBe(false);
  });

  it('a holder that fails releases the lock with an announcement: the waiter takes the lock at once and refreshes itself', async () => {
    const holder = await replicaStore();
    const waiter = new RedisTokenStore({ connection: await connect(), subscriber: await connect(), key, lockTtlMs: 30_000, pollIntervalMs: 60_000, logger: quiet });
    stores.push(waiter);
    await waitFor('the waiter subscribed', async () => Number(((await (connections[0] as Redis).call('PUBSUB', 'NUMSUB', waiter.changeChannel)) as [string, number])[1]) >= 2);
    await holder.save(tokenIssued('old', 100));
    let fail: (error: Error) => void = () => undefined;
    const holding = holder.refreshShared(tokenIssued('old', 100), () => new Promise<TokenHash>((_resolve, reject) => (fail = reject)));
    holding.catch(() => undefined);
    await waitFor('the holder has the lock', async () => (await (connections[0] as Redis).exists(holder.lockKey)) === 1);
    const waiting = waiter.refreshShared(tokenIssued('old', 100), () => Promise.resolve(tokenIssued('by-waiter', 0)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    fail(new Error('the token endpoint failed'));
    await expect(holding).rejects.toThrow('the token endpoint failed');
    const outcome = await Promise.race([waiting, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000))]);
    expect(outcome).toMatchObject({ token: { access_token: 'access-by-waiter' } });
  });

  it('clear() with nothing stored writes nothing', async () => {
    const command = await commandStore();
    await command.clear();
    expect(await (connections[0] as Redis).exists(key)).toBe(0);
  });
});
