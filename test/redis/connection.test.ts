import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeRedisConnection, createRedisConnection, prefixedKey, redisReachable } from '../../src/redis/connection.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';

describeWithBinary(REDIS_SERVER, 'the Redis connection (src/redis/connection.ts) against a real redis-server', (path) => {
  let redis: RunningRedis;
  beforeAll(async () => {
    redis = await startRedisServer(path);
  });
  afterAll(() => redis.stop());

  it('runs commands once connected and names keys under the prefix', async () => {
    const settings = { url: redis.url, prefix: 'test-prefix:' };
    const connection = createRedisConnection(settings);
    try {
      await connection.connect();
      expect(redisReachable(connection)).toBe(true);
      await connection.set(prefixedKey(settings, 'k'), 'v');
      expect(await connection.get('test-prefix:k')).toBe('v');
    } finally {
      await closeRedisConnection(connection);
    }
    expect(connection.status).toBe('end');
  });

  it('fails a command at once while Redis is down (no offline queue), and reconnects when it returns', async () => {
    const connection = createRedisConnection({ url: redis.url, prefix: '' }, { maxReconnectDelayMs: 100 });
    try {
      await connection.connect();
      await redis.stop();
      await eventually('the connection to see Redis go', () => !redisReachable(connection));
      const started = Date.now();
      await expect(connection.get('k')).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
      await redis.restart();
      await eventually('the connection to be back', () => redisReachable(connection));
      expect(await connection.ping()).toBe('PONG');
    } finally {
      await closeRedisConnection(connection);
    }
  });

  it('ends a command at its deadline when Redis stops answering (process frozen with SIGSTOP)', async () => {
    const connection = createRedisConnection({ url: redis.url, prefix: '' }, { commandTimeoutMs: 300 });
    try {
      await connection.connect();
      process.kill(redis.pid, 'SIGSTOP');
      const started = Date.now();
      try {
        await expect(connection.get('k')).rejects.toThrow(/timed out/i);
      } finally {
        process.kill(redis.pid, 'SIGCONT');
      }
      // The deadline, plus slack for a loaded machine; without it the command would wait forever.
      expect(Date.now() - started).toBeLessThan(300 + 5_000);
    } finally {
      await closeRedisConnection(connection);
    }
  });
});
