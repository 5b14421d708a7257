/**
 * The one place that decides where the state replicas share lives: REDIS_URL unset → this process
 * alone (the membership token and the snapshots in files under DATA_DIR, events numbered in memory);
 * set → Redis (src/redis/), so that several replicas refresh one token, serve one snapshot, invalidate
 * each other's caches and stream the same events. Nothing else in the service knows which one is in
 * use: the token keeper, the snapshot store and the event log get their seams (TokenStore,
 * SharedSnapshots, RefreshLease, EventJournal) from here.
 */
import type { Redis } from 'ioredis';
import { createMembershipTokenStore } from './channel/membership-oauth.js';
import type { SnapshotStoreOptions } from './channel/snapshot-store.js';
import { createLocalEventJournal, type EventJournal } from './channel/supporter-events.js';
import type { AuthorizeConfig, ChannelConfig } from './config.js';
import { MemoryTokenStore, type TokenStore } from './oauth2/index.js';
import { closeRedisConnection, createRedisConnection, prefixedKey, type RedisSettings } from './redis/connection.js';
import { createRedisEventJournal, READ_BLOCK_MS } from './redis/event-journal.js';
import { watchRedisHealth, type RedisHealth } from './redis/health.js';
import { createRedisSharedSnapshots } from './redis/shared-snapshots.js';
import { RedisTokenStore, refreshLockTtlMs } from './redis/token-store.js';

export type { RedisHealth } from './redis/health.js';

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface SharedStateOptions {
  /** DATA_DIR, or its sandbox subdirectory: where one process keeps its state, and the token file to migrate from. */
  dataDir: string;
  /** The platforms are the in-process sandbox: its tokens live and die with this process, and its made-up data is kept apart from real data. */
  sandbox: boolean;
  /** Deadline of one token-endpoint call (UPSTREAM_TIMEOUT_MS): the refresh lock outlives it. */
  tokenEndpointDeadlineMs: number;
  /** EVENTS_LOG_SIZE: events kept for replay. */
  eventsLogSize: number;
  logger: Logger;
}

export interface SharedState {
  /** Where the membership token is kept; a shared one also makes its refresh single-flight across replicas. */
  tokenStore: TokenStore;
  /** Where the snapshot store keeps snapshots and who refreshes them. */
  snapshots: Pick<SnapshotStoreOptions, 'dataDir' | 'shared' | 'lease'>;
  /** Where events get their ids and come from. */
  events: EventJournal;
  /** Redis reachability for GET /healthz; undefined without REDIS_URL. */
  redisHealth: () => RedisHealth | undefined;
  /** Closes the connections: after the token keeper's drain, the snapshot store and the event log. */
  close(): Promise<void>;
}

/** Key of the membership token record under REDIS_PREFIX. */
export const MEMBERSHIP_TOKEN_KEY = 'membership:token';

/**
 * Resolves once the Redis connections are up or their first attempt has failed (within the connect
 * deadline): a replica starts, and serves what it has, while Redis is down, and catches up later.
 */
export async function createSharedState(config: Pick<ChannelConfig, 'redis'>, options: SharedStateOptions): Promise<SharedState> {
  const fileStore = createMembershipTokenStore(options.dataDir);
  if (config.redis === undefined) {
    return {
      tokenStore: options.sandbox ? new MemoryTokenStore() : fileStore,
      snapshots: { dataDir: options.dataDir },
      events: createLocalEventJournal(),
      redisHealth: () => undefined,
      close: () => Promise.resolve(),
    };
  }
  const settings: RedisSettings = { ...config.redis, prefix: options.sandbox ? `${config.redis.prefix}sandbox:` : config.redis.prefix };
  const connection = createRedisConnection(settings, { connectionName: 'channel-graph:state' });
  // A subscribed connection runs no other command, and a blocking read holds its connection: one each.
  const subscriber = createRedisConnection(settings, { connectionName: 'channel-graph:changes' });
  const reader = createRedisConnection(settings, { connectionName: 'channel-graph:events', commandTimeoutMs: READ_BLOCK_MS + 2_000 });
  const connections: Redis[] = [connection, subscriber, reader];
  const redisHealth = watchRedisHealth(connections);
  // Unreachable at start: the replica starts anyway (from its upstreams) and catches up when Redis is back.
  // All three, so /healthz reports reachable as soon as this resolves with Redis up.
  await Promise.all(connections.map((redis) => redis.connect().catch(() => {})));
  const tokenStore = options.sandbox
    ? new MemoryTokenStore()
    : new RedisTokenStore({
        connection,
        subscriber,
        key: prefixedKey(settings, MEMBERSHIP_TOKEN_KEY),
        lockTtlMs: refreshLockTtlMs(options.tokenEndpointDeadlineMs),
        // Migration: the token file of a one-process deployment seeds Redis (newest by issue time wins). It is only read.
        seed: () => fileStore.load(),
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

/** Where `npm run authorize` puts the token it obtains, and what `--revoke` clears. */
export interface LoginTokenStores {
  /** Where the service reads the token: the file under DATA_DIR, or Redis (REDIS_URL). `location` says which, without credentials. */
  store: TokenStore & { readonly location: string };
  /** With REDIS_URL: the token file under DATA_DIR, from before the move to Redis (only `--revoke` touches it). */
  formerFile?: TokenStore & { readonly location: string };
  close(): Promise<void>;
}

/** REDIS_URL without its credentials, for messages. */
function displayedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * The token stores of the login command. With REDIS_URL it connects (rejects when Redis is
 * unreachable: the token has nowhere to go) and the token goes to the record the replicas share,
 * never to a file; the lock it takes there outlives `lockHeldMs` plus the usual margin.
 */
export async function openLoginTokenStores(config: Pick<AuthorizeConfig, 'dataDir' | 'redis'>, options: { lockHeldMs: number }): Promise<LoginTokenStores> {
  const fileStore = createMembershipTokenStore(config.dataDir);
  if (config.redis === undefined) return { store: fileStore, close: () => Promise.resolve() };
  const connection = createRedisConnection(config.redis, { connectionName: 'channel-graph:authorize' });
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
    throw new Error(`Redis at ${displayedUrl(config.redis.url)} is unreachable (${(reason ?? (error as Error)).message})`, { cause: error });
  } finally {
    connection.off('error', noteReason);
  }
  const key = prefixedKey(config.redis, MEMBERSHIP_TOKEN_KEY);
  const store = new RedisTokenStore({ connection, key, lockTtlMs: refreshLockTtlMs(options.lockHeldMs) });
  return {
    store: Object.assign(store, { location: `Redis (${displayedUrl(config.redis.url)}, key ${key})` }),
    formerFile: fileStore,
    close: () => closeRedisConnection(connection),
  };
}
