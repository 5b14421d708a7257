import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxUpstream } from '../../src/app.js';
import { createMembershipOAuthClient, createMembershipKeeper, createMembershipTokenStore, MEMBERSHIP_TOKEN_FILE } from '../../src/channel/membership-oauth.js';
import type { OAuth2Client, TokenHash } from '@channel-graph/oauth2';
import { closeRedisConnection, createRedisConnection, redisReachable } from '../../src/redis/connection.js';
import { issuedAtOf, RedisTokenStore, TokenRevokedError } from '../../src/redis/redis-token-store.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createSharedState, MEMBERSHIP_TOKEN_KEY } from '../../src/shared-state.js';
import { deferred } from '../support/deferred.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';

/**
 * The Redis token store (src/redis/redis-token-store.ts) against a real redis-server and the sandbox's
 * token endpoint, which rotates: a refresh token presented twice gets invalid_grant. Two stores on
 * separate connections stand for two replicas.
 */
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A token hash issued `secondsAgo` before now, living an hour. */
const tokenIssued = (name: string, secondsAgo: number): TokenHash => {
  const issuedAt = Math.floor(Date.now() / 1000) - secondsAgo;
  return { access_token: `access-${name}`, refresh_token: `refresh-${name}`, token_type: 'Bearer', expires_in: 3600, expires_at: issuedAt + 3600 };
};

describeWithBinary(REDIS_SERVER, 'membership token in Redis, shared by replicas', (path) => {
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
  // A sandbox per test: its documented refresh token is single-use, like any other.
  beforeEach(async () => {
    sandbox = await startSandbox({ seed: 14 });
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) store.close();
    await Promise.all(connections.splice(0).map(closeRedisConnection));
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await sandbox.close();
    keyCounter += 1;
  });

  const connect = async (): Promise<Redis> => {
    const connection = createRedisConnection({ url: redis.url, prefix: '' }, { maxReconnectDelayMs: 100 });
    connections.push(connection);
    await connection.connect();
    return connection;
  };

  /**
   * A replica's store; every test gets keys of its own. `subscribe`: it listens on the change channel
   * (as createSharedState wires it), and resolves once it does.
   */
  const replicaStore = async (options: { lockTtlMs?: number; subscribe?: boolean; pollIntervalMs?: number } = {}): Promise<RedisTokenStore> => {
    key = `test:${keyCounter}:membership:token`;
    const connection = await connect();
    const subscribers = async (): Promise<number> => Number(((await connection.call('PUBSUB', 'NUMSUB', `${key}:changed`)) as [string, number])[1]);
    const before = await subscribers();
    const subscriber = options.subscribe === true ? await connect() : undefined;
    const store = new RedisTokenStore({
      connection,
      key,
      lockTtlMs: options.lockTtlMs ?? 10_000,
      logger: quiet,
      ...(subscriber === undefined ? {} : { subscriber }),
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    });
    stores.push(store);
    if (subscriber !== undefined) await eventually('subscribed to the change channel', async () => (await subscribers()) > before);
    return store;
  };

  /** A replica's keeper, seeded with the sandbox's documented tokens (as every replica's .env is). */
  const replicaKeeper = (store: RedisTokenStore) => {
    const settings = sandboxUpstream(sandbox).membership;
    const client = createMembershipOAuthClient(settings, { connection: { timeout: 5_000 } });
    clients.push(client);
    return createMembershipKeeper(client, settings, store);
  };

  const tokenEndpointCalls = async (): Promise<number> =>
    ((await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: { token: number } }).requests.token;

  const storedAccessToken = async (connection: Redis): Promise<string | undefined> => {
    const token = await connection.hget(key, 'token');
    return token === null ? undefined : (JSON.parse(token) as TokenHash).access_token;
  };

  /**
   * Resolves once some client sends Redis `command` on `lockKey` from now on (Redis's MONITOR
   * reports every command it receives): how a test knows that a replica has looked at a lock
   * another one holds, instead of guessing how long that takes.
   */
  const lockCommandSent = async (command: 'exists' | 'set', lockKey: string): Promise<{ sent: Promise<void>; stop(): void }> => {
    const monitor = await (connections[0] as Redis).monitor();
    monitor.on('error', () => undefined);
    const sent = new Promise<void>((resolve) => {
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === command && args[1] === lockKey) resolve();
      });
    });
    return { sent, stop: () => monitor.disconnect() };
  };

  it('two replicas refreshing at the same moment → exactly one token-endpoint call; both hold the new token, which Redis stores', async () => {
    const [storeA, storeB] = [await replicaStore(), await replicaStore()];
    const [a, b] = [replicaKeeper(storeA), replicaKeeper(storeB)];
    await Promise.all([a.current(), b.current()]);
    const before = await tokenEndpointCalls();
    const [tokenA, tokenB] = await Promise.all([a.refresh(), b.refresh()]);
    expect(await tokenEndpointCalls()).toBe(before + 1);
    expect(tokenA.token).toBe(tokenB.token);
    expect(tokenA.token).not.toBe(sandbox.credentials.accessToken);
    expect(await storedAccessToken(connections[0] as Redis)).toBe(tokenA.token);
    // Both keep working: the next refresh (by either) uses the stored, live refresh token.
    const next = await b.refresh();
    expect(await tokenEndpointCalls()).toBe(before + 2);
    expect((await a.refresh()).token).toBe(next.token); // a adopts b's token: no call
    expect(await tokenEndpointCalls()).toBe(before + 2);
  });

  it('a replica whose token in memory is stale adopts the stored one and never presents the retired refresh token', async () => {
    const [storeA, storeB] = [await replicaStore(), await replicaStore()];
    const [a, b] = [replicaKeeper(storeA), replicaKeeper(storeB)];
    await a.refresh(); // seeds Redis and rotates once
    const stale = await b.current(); // b loads the stored token...
    const rotated = await a.refresh(); // ...which a rotates: b's refresh token is retired now
    expect(stale.token).not.toBe(rotated.token);
    const before = await tokenEndpointCalls();
    const adopted = await b.refresh();
    expect(adopted.token).toBe(rotated.token);
    expect(await tokenEndpointCalls()).toBe(before); // no call, so no invalid_grant
    // And b's next refresh presents the live refresh token: the endpoint answers with a new token.
    const fresh = await b.refresh();
    expect(fresh.token).not.toBe(rotated.token);
    expect(await tokenEndpointCalls()).toBe(before + 1);
  });

  it('a save after the lock was lost is refused: the newer token another replica stored stays, and its lock is not released by the loser', async () => {
    const connection = await connect();
    const slow = await replicaStore({ lockTtlMs: 200 });
    const other = new RedisTokenStore({ connection, key, lockTtlMs: 10_000, logger: quiet });
    const seed = tokenIssued('seed', 100);
    await other.save(seed);
    // The token endpoint answers the slow replica only when the test says so: its lock expires
    // (Redis's 200 ms PX) while it waits, and another replica refreshes meanwhile.
    const endpointCalled = deferred();
    const endpointAnswers = deferred();
    const slowRefresh = slow.refreshShared(seed, async () => {
      endpointCalled.resolve();
      await endpointAnswers.promise;
      return tokenIssued('slow', 50);
    });
    await endpointCalled.promise;
    await eventually("the slow replica's lock expired", async () => (await connection.exists(other.lockKey)) === 0);
    let otherHeldLock = false;
    const fast = await other.refreshShared(seed, async (latest) => {
      expect(latest.access_token).toBe('access-seed');
      otherHeldLock = (await connection.get(other.lockKey))?.startsWith(`${hostname()}:${process.pid}:`) ?? false;
      return tokenIssued('fast', 0);
    });
    expect(otherHeldLock).toBe(true);
    expect(fast.token.access_token).toBe('access-fast');
    // A third replica takes the lock before the slow one finishes: the slow one must not delete it.
    await connection.set(other.lockKey, 'third-replica', 'PX', 10_000);
    endpointAnswers.resolve();
    const lost = await slowRefresh;
    expect(lost.token.access_token).toBe('access-slow'); // valid, held in memory by that replica
    expect(await storedAccessToken(connection)).toBe('access-fast');
    expect(await connection.get(other.lockKey)).toBe('third-replica');
  });

  it('the lock holder finds in Redis a token another replica rotated after its read: it adopts it, no endpoint call', async () => {
    const connection = await connect();
    const store = await replicaStore();
    await store.save(tokenIssued('old', 100));
    await new RedisTokenStore({ connection, key, lockTtlMs: 10_000, logger: quiet }).refreshShared(tokenIssued('old', 100), () => Promise.resolve(tokenIssued('new', 0)));
    let called = false;
    const result = await store.refreshShared(tokenIssued('old', 100), () => {
      called = true;
      return Promise.resolve(tokenIssued('newer', 0));
    });
    expect(called).toBe(false);
    expect(result.token.access_token).toBe('access-new');
  });

  it('the lock holder finds an expired token another replica stored: it refreshes that one (its refresh token is the live one) instead of adopting it', async () => {
    const store = await replicaStore();
    const expiredToken = (name: string, secondsAgo: number): TokenHash => ({ ...tokenIssued(name, secondsAgo), expires_in: 60, expires_at: Math.floor(Date.now() / 1000) - secondsAgo + 60 });
    await store.save(expiredToken('other', 200));
    const presented: string[] = [];
    const result = await store.refreshShared(expiredToken('mine', 300), (latest) => {
      presented.push(String(latest.refresh_token));
      return Promise.resolve(tokenIssued('next', 0));
    });
    expect(presented).toEqual(['refresh-other']);
    expect(result.token.access_token).toBe('access-next');
  });

  it('Redis restarted empty: the newest token held in memory gets back in, an older one never overwrites it', async () => {
    const [storeA, storeB] = [await replicaStore(), await replicaStore()];
    const [connectionA] = connections as [Redis];
    const older = tokenIssued('older', 100);
    await storeB.save(older); // b last saw this one
    const newest = await storeA.refreshShared(older, () => Promise.resolve(tokenIssued('newest', 10)));
    expect(newest.token.access_token).toBe('access-newest');
    await redis.restart();
    await eventually('both replicas reconnected', () => connections.every(redisReachable));
    // On reconnecting each store offers the newest token it has seen: a's wins, b's older one is refused.
    await eventually('the newest token is back in Redis', async () => (await storedAccessToken(connectionA)) === 'access-newest');
    await storeB.save(older);
    expect(await storedAccessToken(connectionA)).toBe('access-newest');
    // b, holding the older token, adopts the newest without calling the endpoint.
    let called = false;
    const adopted = await storeB.refreshShared(older, () => {
      called = true;
      return Promise.resolve(tokenIssued('never', 0));
    });
    expect(called).toBe(false);
    expect(adopted.token.access_token).toBe('access-newest');
  });

  it('Redis down: the token in memory is used while valid; a refresh is refused at once, without a token-endpoint call; after Redis returns it refreshes', async () => {
    const store = await replicaStore();
    const keeper = replicaKeeper(store);
    const held = await keeper.refresh();
    await redis.stop();
    try {
      await eventually('the replica saw Redis go', () => !connections.every(redisReachable));
      expect((await keeper.token()).token).toBe(held.token);
      const before = await tokenEndpointCalls();
      const started = Date.now();
      await expect(keeper.refresh()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await tokenEndpointCalls()).toBe(before);
      expect((await keeper.token()).token).toBe(held.token);
    } finally {
      await redis.restart();
    }
    await eventually('reconnected', () => connections.every(redisReachable));
    const before = await tokenEndpointCalls();
    const next = await keeper.refresh(); // the store put the held token back in on reconnecting
    expect(next.token).not.toBe(held.token);
    expect(await tokenEndpointCalls()).toBe(before + 1);
  });

  /**
   * A login (`replace()`) and a revocation (`clear()`), as `npm run authorize` does them while
   * replicas run: under the refresh lock, announced on the change channel so that running keepers
   * drop the token they hold, and final — a replica holding an older token can neither offer it back
   * nor refresh it. A store without a subscriber stands for the command.
   */
  describe('login and revocation while replicas run; waiting replicas woken by the change channel', () => {
    const stored = async (): Promise<Record<string, string>> => (connections[0] as Redis).hgetall(key);
    /**
     * A waiter polls every 60 s (pollIntervalMs): woken before this, it was woken by the change
     * channel. The bound only decides a failure; a passing wait ends at the announcement.
     */
    const ANNOUNCEMENT_DEADLINE_MS = 20_000;
    const stillWaitingAfter = (ms: number): Promise<'still waiting'> =>
      new Promise((resolve) => {
        setTimeout(() => resolve('still waiting'), ms).unref();
      });

    it('a login reaches a running keeper at once (change channel), with no token-endpoint call; the older token can no longer be offered back', async () => {
      const replica = await replicaStore({ subscribe: true });
      const keeper = replicaKeeper(replica);
      const before = (await keeper.refresh()).token; // Redis holds the replica's rotated token
      const versionBefore = Number((await stored()).version);
      const calls = await tokenEndpointCalls();

      const login = { ...tokenIssued('login', 0), seed_fingerprint: (await replica.load())?.seed_fingerprint };
      await (await replicaStore()).replace(login);

      const record = await stored();
      expect(Number(record.version)).toBe(versionBefore + 1);
      expect((JSON.parse(record.token ?? '{}') as TokenHash).access_token).toBe('access-login');
      // Without the announcement the keeper would keep `before` in memory until it is due.
      await eventually('the keeper holds the login token', async () => (await keeper.token()).token === 'access-login');
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
      const replica = await replicaStore({ subscribe: true });
      const command = await replicaStore();
      await replica.save(tokenIssued('old', 100));
      let releaseRefresh: () => void = () => undefined;
      const refreshing = replica.refreshShared(tokenIssued('old', 100), async () => {
        await new Promise<void>((resolve) => {
          releaseRefresh = resolve;
        });
        return tokenIssued('refreshed', 0); // issued after the login began
      });
      await eventually('the replica holds the lock', async () => (await (connections[0] as Redis).exists(replica.lockKey)) === 1);
      const lockAsked = await lockCommandSent('set', replica.lockKey);
      let loggedIn = false;
      const login = command.exclusive(async () => {
        await command.replace(tokenIssued('login', 5));
        loggedIn = true;
      });
      try {
        await lockAsked.sent; // the login asked for the lock, which the refresh holds
      } finally {
        lockAsked.stop();
      }
      expect(loggedIn).toBe(false); // waiting for the lock
      releaseRefresh();
      expect((await refreshing).token.access_token).toBe('access-refreshed');
      await login;
      expect((JSON.parse((await stored()).token ?? '{}') as TokenHash).access_token).toBe('access-login');
      expect(await (connections[0] as Redis).exists(replica.lockKey)).toBe(0);
    });

    it('a revocation leaves a tombstone: keepers drop the token at once and have none; the revoked chain is never written back nor refreshed; a new login or a new seed replaces it', async () => {
      const replica = await replicaStore({ subscribe: true });
      const keeper = replicaKeeper(replica);
      const held = (await keeper.refresh()).toHash();
      const command = await replicaStore();
      await command.exclusive(() => command.clear());

      const record = await stored();
      expect(record.token).toBeUndefined();
      expect(record.revoked_seed).toEqual(expect.any(String));
      expect(await replica.load()).toBeNull();
      // The keeper was told: its next use reads the store, which has no token (the .env seed stands in, as without Redis).
      await eventually('the keeper dropped the revoked token', async () => (await keeper.token()).token !== held.access_token);
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
      // Polls a minute apart: only the change channel can end the wait before ANNOUNCEMENT_DEADLINE_MS.
      const holder = await replicaStore({ subscribe: true });
      const waiter = await replicaStore({ subscribe: true, lockTtlMs: 30_000, pollIntervalMs: 60_000 });
      await holder.save(tokenIssued('old', 100));
      let finish: () => void = () => undefined;
      const holding = holder.refreshShared(tokenIssued('old', 100), async () => {
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return tokenIssued('new', 0);
      });
      await eventually('the holder has the lock', async () => (await (connections[0] as Redis).exists(holder.lockKey)) === 1);
      const waiterLooked = await lockCommandSent('exists', holder.lockKey);
      let called = false;
      const waiting = waiter.refreshShared(tokenIssued('old', 100), () => {
        called = true;
        return Promise.resolve(tokenIssued('never', 0));
      });
      try {
        await waiterLooked.sent; // the waiter has looked once, found the lock held, and waits
      } finally {
        waiterLooked.stop();
      }
      finish();
      await holding;
      const outcome = await Promise.race([waiting, stillWaitingAfter(ANNOUNCEMENT_DEADLINE_MS)]);
      expect(outcome).toMatchObject({ token: { access_token: 'access-new' } });
      expect(called).toBe(false);
    });

    it('a holder that fails releases the lock with an announcement: the waiter takes the lock at once and refreshes itself', async () => {
      const holder = await replicaStore({ subscribe: true });
      const waiter = await replicaStore({ subscribe: true, lockTtlMs: 30_000, pollIntervalMs: 60_000 });
      await holder.save(tokenIssued('old', 100));
      let fail: (error: Error) => void = () => undefined;
      const holding = holder.refreshShared(tokenIssued('old', 100), () => new Promise<TokenHash>((_resolve, reject) => (fail = reject)));
      holding.catch(() => undefined);
      await eventually('the holder has the lock', async () => (await (connections[0] as Redis).exists(holder.lockKey)) === 1);
      const waiterLooked = await lockCommandSent('exists', holder.lockKey);
      const waiting = waiter.refreshShared(tokenIssued('old', 100), () => Promise.resolve(tokenIssued('by-waiter', 0)));
      try {
        await waiterLooked.sent;
      } finally {
        waiterLooked.stop();
      }
      fail(new Error('the token endpoint failed'));
      await expect(holding).rejects.toThrow('the token endpoint failed');
      const outcome = await Promise.race([waiting, stillWaitingAfter(ANNOUNCEMENT_DEADLINE_MS)]);
      expect(outcome).toMatchObject({ token: { access_token: 'access-by-waiter' } });
    });

    it('clear() with nothing stored writes nothing', async () => {
      const command = await replicaStore();
      await command.clear();
      expect(await (connections[0] as Redis).exists(key)).toBe(0);
    });
  });

  describe('migration from the token file (createSharedState)', () => {
    let dataDir: string;
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'redis-migration-'));
    });
    afterAll(() => rm(dataDir, { recursive: true, force: true }));

    it('seeds an empty Redis with the token file; a newer token already in Redis wins over the file', async () => {
      const prefix = `migration:${keyCounter}:`;
      await createMembershipTokenStore(dataDir).save(tokenIssued('file', 100));
      const settings = { url: redis.url, prefix };
      const shared = await createSharedState({ redis: settings }, { dataDir, sandbox: false, tokenEndpointDeadlineMs: 1_000, eventsLogSize: 100, logger: quiet });
      try {
        await shared.tokenStore.recover?.();
        expect((await shared.tokenStore.load())?.access_token).toBe('access-file');
        await shared.tokenStore.save(tokenIssued('redis-newer', 10));
      } finally {
        await shared.close();
      }
      const again = await createSharedState({ redis: settings }, { dataDir, sandbox: false, tokenEndpointDeadlineMs: 1_000, eventsLogSize: 100, logger: quiet });
      try {
        await again.tokenStore.recover?.();
        expect((await again.tokenStore.load())?.access_token).toBe('access-redis-newer');
        expect(again.redisHealth()).toEqual({ reachable: true, lastError: null });
      } finally {
        await again.close();
      }
      const connection = await connect();
      expect(await connection.exists(`${prefix}${MEMBERSHIP_TOKEN_KEY}`)).toBe(1);
    });
  });

  it('a token file that does not parse is reported and does not keep the replica from the token in Redis', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'redis-bad-seed-'));
    const warnings: string[] = [];
    try {
      await writeFile(join(dataDir, MEMBERSHIP_TOKEN_FILE), '{"not":"a token"}');
      const settings = { url: redis.url, prefix: `bad-seed:${keyCounter}:` };
      const shared = await createSharedState({ redis: settings }, { dataDir, sandbox: false, tokenEndpointDeadlineMs: 1_000, eventsLogSize: 100, logger: { ...quiet, warn: (line: string) => warnings.push(line) } });
      try {
        await shared.tokenStore.save(tokenIssued('in-redis', 10));
        await shared.tokenStore.recover?.();
        expect((await shared.tokenStore.load())?.access_token).toBe('access-in-redis');
        expect(warnings.join('\n')).toContain('the seed token could not be read');
      } finally {
        await shared.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('issue time of a token hash: expires_at − expires_in, 0 when unknown', () => {
    expect(issuedAtOf({ access_token: 'a', expires_at: 1_000_100, expires_in: 100 })).toBe(1_000_000);
    expect(issuedAtOf({ access_token: 'a' })).toBe(0);
  });
});
