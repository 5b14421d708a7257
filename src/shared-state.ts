/**
 * The one place where the state replicas share is chosen: REDIS_URL unset → this process alone
 * (snapshots in files under DATA_DIR, events numbered in memory); set → Redis (src/redis/), so that
 * several replicas serve one snapshot, invalidate each other's caches and stream the same events.
 * Nothing else in the service knows which one is in use: the snapshot store and the event log get
 * their seams (SharedSnapshots, RefreshLease, EventJournal) from here.
 */
import type { SnapshotStoreOptions } from './channel/snapshot-store.js';
import { createLocalEventJournal, type EventJournal } from './channel/supporter-events.js';
import type { ChannelConfig } from './config.js';
import { closeRedisConnection, createRedisConnection, type RedisSettings } from './redis/connection.js';
import { createRedisEventJournal, READ_BLOCK_MS } from './redis/event-journal.js';
import { createRedisSharedSnapshots } from './redis/shared-snapshots.js';

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface SharedStateOptions {
  /** Where one process keeps its snapshots (the sandbox's own directory in sandbox mode). */
  dataDir: string;
  /** EVENTS_LOG_SIZE: events kept for replay. */
  eventsLogSize: number;
  /** Sandbox mode: its made-up data is kept apart from real data (a key prefix of its own). */
  sandbox: boolean;
  logger: Logger;
}

export interface SharedState {
  /** Where the snapshot store keeps snapshots and who refreshes them. */
  snapshots: Pick<SnapshotStoreOptions, 'dataDir' | 'shared' | 'lease'>;
  /** Where events get their ids and come from. */
  events: EventJournal;
  /** Closes the connections; after the snapshot store and the event log are closed. */
  close(): Promise<void>;
}

export async function createSharedState(config: Pick<ChannelConfig, 'redis'>, options: SharedStateOptions): Promise<SharedState> {
  if (config.redis === undefined) {
    return { snapshots: { dataDir: options.dataDir }, events: createLocalEventJournal(), close: async () => {} };
  }
  const settings: RedisSettings = { ...config.redis, prefix: options.sandbox ? `${config.redis.prefix}sandbox:` : config.redis.prefix };
  const connection = createRedisConnection(settings, { connectionName: 'channel-graph:state' });
  const subscriber = createRedisConnection(settings, { connectionName: 'channel-graph:changes' });
  const reader = createRedisConnection(settings, { connectionName: 'channel-graph:events', commandTimeoutMs: READ_BLOCK_MS + 2_000 });
  // Unreachable at start: the replica starts anyway (from its upstreams) and catches up when Redis is back.
  await Promise.all([connection, reader].map((redis) => redis.connect().catch(() => {})));
  const snapshots = createRedisSharedSnapshots({ settings, connection, subscriber });
  const events = await createRedisEventJournal({ settings, connection, reader, maxEntries: options.eventsLogSize, logger: options.logger });
  return {
    snapshots: { shared: snapshots, lease: snapshots },
    events,
    async close() {
      snapshots.close();
      events.close();
      // The blocking read has nothing worth waiting for.
      reader.disconnect(false);
      await Promise.all([closeRedisConnection(connection), closeRedisConnection(subscriber)]);
    },
  };
}
