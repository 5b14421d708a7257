/**
 * The one place that decides where state shared between replicas lives: REDIS_URL unset → in this
 * process and under DATA_DIR (one replica); set → in Redis (src/redis/), for several replicas.
 * Nothing else in the code knows which is in use: it gets the interfaces below.
 */
import type { Redis } from 'ioredis';
import { createMembershipTokenStore } from './channel/membership-oauth.js';
import type { ChannelConfig } from './config.js';
import { MemoryTokenStore, type TokenStore } from './oauth2/index.js';
import { closeRedisConnection, createRedisConnection, prefixedKey } from './redis/connection.js';
import { watchRedisHealth, type RedisHealth } from './redis/health.js';
import { RedisTokenStore, refreshLockTtlMs } from './redis/token-store.js';

export type { RedisHealth } from './redis/health.js';

export interface SharedState {
  /** Where the membership token is kept; a shared one also makes its refresh single-flight across replicas. */
  tokenStore: TokenStore;
  /** Redis reachability for GET /healthz; undefined without REDIS_URL. */
  redisHealth: () => RedisHealth | undefined;
  /** Closes the Redis connections (after the token keeper's drain). */
  close(): Promise<void>;
}

export interface SharedStateOptions {
  /** DATA_DIR, or its sandbox subdirectory: where the embedded state lives and the token file to migrate from. */
  dataDir: string;
  /** The platforms are the in-process sandbox: its tokens live and die with this process, never shared. */
  sandbox: boolean;
  /** Deadline of one token-endpoint call (UPSTREAM_TIMEOUT_MS): the refresh lock outlives it. */
  tokenEndpointDeadlineMs: number;
  logger?: Pick<Console, 'warn'>;
}

/** Key of the membership token record under REDIS_PREFIX. */
export const MEMBERSHIP_TOKEN_KEY = 'membership:token';

/**
 * Resolves once the Redis connection is up or its first attempt has failed (within the connect
 * deadline): a replica starts, and serves what it has, while Redis is down, and reconnects later.
 */
export async function createSharedState(config: Pick<ChannelConfig, 'redis'>, options: SharedStateOptions): Promise<SharedState> {
  const fileStore = createMembershipTokenStore(options.dataDir);
  const { redis } = config;
  if (redis === undefined) {
    return { tokenStore: options.sandbox ? new MemoryTokenStore() : fileStore, redisHealth: () => undefined, close: () => Promise.resolve() };
  }
  const connections: Redis[] = [createRedisConnection(redis, { connectionName: 'channel-graph:tokens' })];
  const [commands] = connections as [Redis];
  const redisHealth = watchRedisHealth(connections);
  await commands.connect().catch(() => undefined);
  const tokenStore = options.sandbox
    ? new MemoryTokenStore()
    : new RedisTokenStore({
        connection: commands,
        key: prefixedKey(redis, MEMBERSHIP_TOKEN_KEY),
        lockTtlMs: refreshLockTtlMs(options.tokenEndpointDeadlineMs),
        // Migration: the token file of a one-process deployment seeds Redis (newest by issue time wins). It is only read.
        seed: () => fileStore.load(),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
  return {
    tokenStore,
    redisHealth,
    close: async () => {
      await Promise.all(connections.map(closeRedisConnection));
    },
  };
}
