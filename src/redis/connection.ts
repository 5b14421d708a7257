/**
 * The one place a Redis connection is made (REDIS_URL set: shared state for several replicas).
 * Every Redis-specific module lives in src/redis/ and gets its connection from here, so the
 * deadlines and the reconnect policy are decided once:
 *
 * - no offline queue: while Redis is unreachable a command fails at once (the caller keeps serving
 *   what it has in memory) instead of piling up behind a reconnect;
 * - every command has a deadline (`commandTimeoutMs`), connecting too (`connectTimeoutMs`);
 * - reconnects forever, backing off up to `maxReconnectDelayMs`, so replicas catch up when Redis returns;
 * - `rediss://` is TLS (ioredis reads the scheme).
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisSettings } from './settings.js';

export { DEFAULT_REDIS_PREFIX, prefixedKey, type RedisSettings } from './settings.js';

export interface RedisConnectionOptions {
  /** Deadline of one command (default 2,000 ms). */
  commandTimeoutMs?: number;
  /** Deadline of one connection attempt (default 2,000 ms). */
  connectTimeoutMs?: number;
  /** Longest wait between reconnection attempts (default 1,000 ms). */
  maxReconnectDelayMs?: number;
  /** Shown in `CLIENT LIST` (e.g. `channel-graph:subscriber`). */
  connectionName?: string;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
const DEFAULT_MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * A connection to REDIS_URL with the policy above. `lazyConnect`: it connects on `connect()` or its
 * first command, so creating one never throws. A subscriber needs a connection of its own (Redis
 * protocol rule: a subscribed connection runs no other command); call this again for it.
 */
export function createRedisConnection(settings: RedisSettings, options: RedisConnectionOptions = {}): Redis {
  const maxReconnectDelayMs = options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    // A command sent just before the connection dropped fails rather than being resent later, out of order.
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), maxReconnectDelayMs),
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
  };
  const connection = new Redis(settings.url, redisOptions);
  // ioredis reports every failed attempt as an 'error' event; without a listener Node would crash the
  // process on it. Reachability is read from `connection.status` (see redisReachable).
  connection.on('error', () => {});
  return connection;
}

/** Whether the connection is up now (`ready`); anything else is a reconnect in progress or closed. */
export function redisReachable(connection: Redis): boolean {
  return connection.status === 'ready';
}

/**
 * Closes the connection: QUIT when it is up (replies in flight arrive first, and it resolves once the
 * connection has ended), else a disconnect at once, which also stops reconnecting.
 */
export async function closeRedisConnection(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  if (connection.status === 'ready') {
    const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
    try {
      await connection.quit();
      await ended;
      return;
    } catch {
      // the connection dropped while quitting: disconnect below
    }
  }
  connection.disconnect(false);
}
