/**
 * The shared state on Redis (REDIS_URL set), as src/shared-state.ts composes it: the membership
 * token record, the shared snapshots with their change channel and refresh lease, and the event
 * stream. A module of its own, loaded only when REDIS_URL is set, so that a one-process deployment
 * does not load ioredis at all (~10 MB of RSS).
 */
import type { Redis } from 'ioredis';
import type { SnapshotStoreOptions } from '../channel/snapshot-store.js';
import type { EventJournal } from '../channel/supporter-events.js';
import { MemoryTokenStore, type TokenStore } from '@channel-graph/oauth2';
import { closeRedisConnection, createRedisConnection, prefixedKey, type RedisSettings } from './connection.js';
import { createRedisEventJournal, READ_BLOCK_MS } from './event-journal.js';
import { watchRedisHealth, type RedisHealth } from './health.js';
import { createRedisSharedSnapshots } from './redis-shared-snapshots.js';
import { RedisTokenStore, refreshLockTtlMs } from './redis-token-store.js';

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface RedisSharedStateOptions {
  /** The token record's key, under the prefix. */
  tokenKey: string;
  /** The platforms are the in-process sandbox: its tokens stay in memory, its keys get a `sandbox:` after the prefix. */
  sandbox: boolean;
  /** Deadline of one token-endpoint call (UPSTREAM_TIMEOUT_MS): the refresh lock outlives it. */
  tokenEndpointDeadlineMs: number;
  /** EVENTS_LOG_SIZE: events kept for replay. */
  eventsLogSize: number;
  /** The token file of a one-process deployment, which seeds Redis (newest by issue time wins); only read. */
  seedFrom: TokenStore;
  logger: Logger;
}

export interface RedisSharedState {
  tokenStore: TokenStore;
  snapshots: Pick<SnapshotStoreOptions, 'shared' | 'lease'>;
  events: EventJournal;
  redisHealth: () => RedisHealth;
  close(): Promise<void>;
}

/**
 * Resolves once the Redis connections are up or their first attempt has failed (within the connect
 * deadline): a replica starts, and serves what it has, while Redis is down, and catches up later.
 */
export async function createRedisSharedState(redis: RedisSettings, options: RedisSharedStateOptions): Promise<RedisSharedState> {
  const settings: RedisSettings = { ...redis, prefix: options.sandbox ? `${redis.prefix}sandbox:` : redis.prefix };
  const connection = createRedisConnection(settings, { connectionName: 'channel-graph:state' });
  // A subscribed connection runs no other command, and a blocking read holds its connection: one each.
  const subscriber = createRedisConnection(settings, { connectionName: 'channel-graph:changes' });
  const reader = createRedisConnection(settings, { connectionName: 'channel-graph:events', commandTimeoutMs: READ_BLOCK_MS + 2_000 });
  const connections: Redis[] = [connection, subscriber, reader];
  const redisHealth = watchRedisHealth(connections);
  // Unreachable at start: the replica starts anyway (from its upstreams) and catches up when Redis is back.
  // All three, so /healthz reports reachable as soon as this resolves with Redis up.
  await Promise.all(connections.map((client) => client.connect().catch(() => {})));
  const tokenStore = options.sandbox
    ? new MemoryTokenStore()
    : new RedisTokenStore({
        connection,
        subscriber,
        key: prefixedKey(settings, options.tokenKey),
        lockTtlMs: refreshLockTtlMs(options.tokenEndpointDeadlineMs),
        // Migration: the token file of a one-process deployment seeds Redis (newest by issue time wins). It is only read.
        seed: () => options.seedFrom.load(),
        logger: options.logger,
      });
  const snapshots = createRedisSharedSnapshots({ settings, connection, subscriber });
  const events = await createRedisEventJournal({ settings, connection, reader, maxEntries: options.eventsLogSize, logger: options.logger });
  return {
    tokenStore,
    snapshots: { shared: snapshots, lease: snapshots },
    events,
    redisHealth,
    async close() {
      if (tokenStore instanceof RedisTokenStore) tokenStore.close();
      snapshots.close();
      events.close();
      // The blocking read has nothing worth waiting for.
      reader.disconnect(false);
      await Promise.all([closeRedisConnection(connection), closeRedisConnection(subscriber)]);
    },
  };
}

/** REDIS_URL without its credentials, for messages. */
function displayedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * The token record `npm run authorize` writes to: connects (rejects when Redis is unreachable: the
 * token has nowhere to go); the lock it takes there outlives `lockHeldMs` plus the usual margin.
 */
export async function openRedisLoginTokenStore(
  redis: RedisSettings,
  options: { tokenKey: string; lockHeldMs: number },
): Promise<{ store: TokenStore & { readonly location: string }; close(): Promise<void> }> {
  const connection = createRedisConnection(redis, { connectionName: 'channel-graph:authorize' });
  // connect() rejects with "Connection is closed"; the reason (refused, TLS, auth) came as an 'error' event.
  let reason: Error | undefined;
  const noteReason = (error: Error): void => {
    reason = error;
  };
  connection.on('error', noteReason);
  try {
    await connection.connect();
  } catch (error) {
    connection.disconnect(false);
    throw new Error(`Redis at ${displayedUrl(redis.url)} is unreachable (${(reason ?? (error as Error)).message})`, { cause: error });
  } finally {
    connection.off('error', noteReason);
  }
  const key = prefixedKey(redis, options.tokenKey);
  const store = new RedisTokenStore({ connection, key, lockTtlMs: refreshLockTtlMs(options.lockHeldMs) });
  return {
    store: Object.assign(store, { location: `Redis (${displayedUrl(redis.url)}, key ${key})` }),
    close: () => closeRedisConnection(connection),
  };
}
