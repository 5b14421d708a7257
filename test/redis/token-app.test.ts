import { readdir } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { MEMBERSHIP_TOKEN_KEY } from '../../src/shared-state.js';
import { liveUpstream, makeDataDir, request, sandboxControl, silentLogger, testConfig } from '../http/harness.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';

/**
 * The app composed with REDIS_URL (src/shared-state.ts): the membership token lives in Redis and
 * nowhere on disk, /healthz reports Redis (validated against openapi/channel-api.yaml by `request`),
 * a Redis outage degrades /healthz but not /readyz nor the reads, and close() ends the connection.
 */
interface Health {
  status: 'ok' | 'degraded';
  redis?: { reachable: boolean; last_error: string | null };
}

const PREFIX = 'app-test:';

describeWithBinary(REDIS_SERVER, 'the app with REDIS_URL: token in Redis, Redis health in /healthz', (path) => {
  let redis: RunningRedis;
  let sandbox: RunningSandbox;
  let dataDir: Awaited<ReturnType<typeof makeDataDir>>;
  let app: ChannelApp;
  let observer: Redis;

  beforeAll(async () => {
    redis = await startRedisServer(path);
    sandbox = await startSandbox({ seed: 1415 });
    dataDir = await makeDataDir();
    app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox), { redis: { url: redis.url, prefix: PREFIX }, upstreamTimeoutMs: 2_000 }), {
      logger: silentLogger,
    });
    observer = createRedisConnection({ url: redis.url, prefix: PREFIX }, { maxReconnectDelayMs: 100 });
    await observer.connect();
  });
  afterAll(async () => {
    await app.close();
    await closeRedisConnection(observer);
    await sandbox.close();
    await redis.stop();
    await dataDir.remove();
  });

  const health = async (): Promise<Health> => (await request(app.url, 'GET', '/healthz')).json<Health>();

  it('the rotated token is stored in Redis and no token file is written', async () => {
    await sandboxControl(sandbox, 'POST', 'expire-tokens'); // the next membership read refreshes
    await app.store.refresh('membership');
    const stored = await observer.hget(`${PREFIX}${MEMBERSHIP_TOKEN_KEY}`, 'token');
    expect(stored).not.toBeNull();
    expect(JSON.parse(stored ?? '{}')).toMatchObject({ access_token: expect.any(String) as string, refresh_token: expect.any(String) as string });
    expect((await readdir(dataDir.path)).filter((name) => name.includes('token'))).toEqual([]);
    expect(await health()).toMatchObject({ status: 'ok', redis: { reachable: true, last_error: null } });
  });

  it('Redis down: /healthz says so (200, degraded), /readyz stays ready, reads answer 200 from memory, a due refresh is not attempted without the lock', async () => {
    await redis.stop();
    try {
      await eventually('/healthz reports Redis unreachable', async () => (await health()).redis?.reachable === false);
      const report = await health();
      expect(report.status).toBe('degraded');
      expect(report.redis?.last_error).toEqual(expect.any(String));
      expect((await fetch(`${app.url}/readyz`)).status).toBe(200); // (not in the contract yet)
      const calls = (await sandboxControl<{ requests: { token: number } }>(sandbox, 'GET', 'stats')).requests.token;
      await sandboxControl(sandbox, 'POST', 'expire-tokens');
      await app.store.refresh('membership').catch(() => undefined); // fails: no refresh without the lock
      expect((await sandboxControl<{ requests: { token: number } }>(sandbox, 'GET', 'stats')).requests.token).toBe(calls);
      for (const path of ['/membership/pledges', '/video/members', '/video/stats']) expect((await request(app.url, 'GET', path)).status).toBe(200);
    } finally {
      await redis.restart();
    }
    await eventually('/healthz reports Redis reachable again', async () => (await health()).redis?.reachable === true);
    expect((await health()).redis).toEqual({ reachable: true, last_error: null });
    // Catching up: the token the app held went back into the (empty) Redis, and it refreshes again.
    await app.store.refresh('membership');
    expect(await observer.hget(`${PREFIX}${MEMBERSHIP_TOKEN_KEY}`, 'token')).not.toBeNull();
    expect((await request(app.url, 'GET', '/healthz')).json<{ sources: { membership: { last_error: string | null } } }>().sources.membership.last_error).toBeNull();
  });

  it('close() ends the app’s Redis connection after the token keeper’s drain', async () => {
    await eventually('the observer is connected', () => observer.status === 'ready');
    const names = async (): Promise<string> => String(await observer.call('CLIENT', 'LIST'));
    expect(await names()).toContain('name=channel-graph:state');
    await app.close();
    expect(await names()).not.toContain('name=channel-graph:state');
  });
});
