/**
 * The one place that decides where the state replicas share lives: REDIS_URL unset → this process
 * alone (the membership token and the snapshots in files under DATA_DIR, events numbered in memory);
 * set → Redis (src/redis/), so that several replicas refresh one token, serve one snapshot, invalidate
 * each other's caches and stream the same events. Nothing else in the service knows which one is in
 * use: the token keeper, the snapshot store and the event log get their seams (TokenStore,
 * SharedSnapshots, RefreshLease, EventJournal) from here.
 */
import { createMembershipTokenStore } from './channel/membership-oauth.js';
import type { SnapshotStoreOptions } from './channel/snapshot-store.js';
import { createLocalEventJournal, type EventJournal } from './channel/supporter-events.js';
import type { AuthorizeConfig, ChannelConfig } from './config.js';
import { MemoryTokenStore, type TokenStore } from '@channel-graph/oauth2';
import type { RedisHealth } from './redis/health.js';

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
  // Loaded only here: a one-process deployment never loads ioredis.
  const { createRedisSharedState } = await import('./redis/redis-shared-state.js');
  return createRedisSharedState(config.redis, {
    tokenKey: MEMBERSHIP_TOKEN_KEY,
    sandbox: options.sandbox,
    tokenEndpointDeadlineMs: options.tokenEndpointDeadlineMs,
    eventsLogSize: options.eventsLogSize,
    seedFrom: fileStore,
    logger: options.logger,
  });
}

/** Where `npm run authorize` puts the token it obtains, and what `--revoke` clears. */
export interface LoginTokenStores {
  /** Where the service reads the token: the file under DATA_DIR, or Redis (REDIS_URL). `location` says which, without credentials. */
  store: TokenStore & { readonly location: string };
  /** With REDIS_URL: the token file under DATA_DIR, from before the move to Redis (only `--revoke` touches it). */
  formerFile?: TokenStore & { readonly location: string };
  close(): Promise<void>;
}

/**
 * The token stores of the login command. With REDIS_URL it connects (rejects when Redis is
 * unreachable: the token has nowhere to go) and the token goes to the record the replicas share,
 * never to a file; the lock it takes there outlives `lockHeldMs` plus the usual margin.
 */
export async function openLoginTokenStores(config: Pick<AuthorizeConfig, 'dataDir' | 'redis'>, options: { lockHeldMs: number }): Promise<LoginTokenStores> {
  const fileStore = createMembershipTokenStore(config.dataDir);
  if (config.redis === undefined) return { store: fileStore, close: () => Promise.resolve() };
  const { openRedisLoginTokenStore } = await import('./redis/redis-shared-state.js');
  const shared = await openRedisLoginTokenStore(config.redis, { tokenKey: MEMBERSHIP_TOKEN_KEY, lockHeldMs: options.lockHeldMs });
  return { ...shared, formerFile: fileStore };
}
