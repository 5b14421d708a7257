/**
 * Snapshots shared by replicas in Redis (REDIS_URL), and the lease that lets one replica at a time
 * refresh a source.
 *
 * - `<prefix>snapshot:<source>`: a hash { version, json }. Every write is a compare-and-set on the
 *   version (one Lua script: check, write, publish), so concurrent webhooks and refreshes on different
 *   replicas never overwrite each other; a writer that lost the race reads again and retries.
 *   Versions are `max(previous + 1, now in µs)`: they keep increasing when Redis restarts empty.
 * - `<prefix>snapshots`: the channel that carries "source version writer" after every write; the other
 *   replicas read that source once (HMGET). Nothing else: reads are served from each replica's memory.
 * - `<prefix>lease:<source>`: SET NX PX, held by the replica that refreshes the source this interval.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RefreshLease, SharedSnapshots, StoredSnapshotText } from '../channel/shared-snapshots.js';
import { SOURCE_NAMES, type SourceName } from '../channel/source-names.js';
import { prefixedKey, type RedisSettings } from './connection.js';

/** KEYS[1] the hash; ARGV: expected version (0: none), version floor, json, channel, source, writer. */
const COMPARE_AND_SET = `
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return -1 end
local version = math.max(current + 1, tonumber(ARGV[2]))
local text = string.format('%.0f', version)
redis.call('HSET', KEYS[1], 'version', text, 'json', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5] .. ' ' .. text .. ' ' .. ARGV[6])
return version
`;

/** A write that keeps losing the compare-and-set this often gives up (the caller answers 503, the platform retries). */
const MAX_WRITE_ATTEMPTS = 16;

export class SharedSnapshotConflictError extends Error {
  override readonly name = 'SharedSnapshotConflictError';
}

export interface RedisSharedSnapshotsOptions {
  settings: Pick<RedisSettings, 'prefix'>;
  /** Commands (reads, writes, the lease). */
  connection: Redis;
  /** A connection of its own for SUBSCRIBE. */
  subscriber: Redis;
  /** Clock of the version floor; default Date.now. */
  now?: () => number;
}

export interface RedisSharedSnapshots extends SharedSnapshots, RefreshLease {
  /** Stops listening (the connections are closed by their owner). */
  close(): void;
}

function isSourceName(value: string): value is SourceName {
  return (SOURCE_NAMES as readonly string[]).includes(value);
}

export function createRedisSharedSnapshots(options: RedisSharedSnapshotsOptions): RedisSharedSnapshots {
  const { settings, connection, subscriber } = options;
  const now = options.now ?? Date.now;
  /** Tells this process's notifications from the others'. */
  const writer = randomUUID();
  const channel = prefixedKey(settings, 'snapshots');
  const snapshotKey = (source: SourceName): string => prefixedKey(settings, `snapshot:${source}`);
  const listeners = new Set<(source: SourceName) => void>();
  const notify = (source: SourceName): void => {
    for (const listener of listeners) listener(source);
  };

  const onMessage = (from: string, message: string): void => {
    if (from !== channel) return;
    const [source, , by] = message.split(' ');
    if (source !== undefined && isSourceName(source) && by !== writer) notify(source);
  };
  const notifyAll = (): void => {
    for (const source of SOURCE_NAMES) notify(source);
  };
  // Changes written while either connection was down were not heard: every source is read again when
  // the subscriber is (re)subscribed and when the command connection is back, whichever comes last.
  // On the subscriber, SUBSCRIBE is sent on every `ready` (a no-op for a channel ioredis resubscribes by
  // itself) and the read waits for its answer: a change published between a read and the subscription
  // would otherwise be missed. A read that fails because the command connection is not back yet is
  // repeated by that connection's own `ready`.
  const onSubscriberReady = (): void => {
    subscriber.subscribe(channel).then(notifyAll, () => {
      // The connection dropped before SUBSCRIBE was answered: the next `ready` tries again.
    });
  };
  const onConnectionReady = (): void => notifyAll();
  subscriber.on('message', onMessage);
  subscriber.on('ready', onSubscriberReady);
  connection.on('ready', onConnectionReady);
  if (subscriber.status === 'ready') onSubscriberReady();
  else if (subscriber.status === 'wait') subscriber.connect().catch(() => {});

  const load = async (source: SourceName): Promise<StoredSnapshotText | null> => {
    const [version = null, json = null] = await connection.hmget(snapshotKey(source), 'version', 'json');
    if (version === null || json === null) return null;
    return { version: Number(version), json };
  };

  return {
    load,
    async update(source, compute) {
      for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt += 1) {
        const stored = await load(source);
        const json = compute(stored);
        if (json === null) return null;
        const floor = String(now() * 1000);
        const version = Number(await connection.eval(COMPARE_AND_SET, 1, snapshotKey(source), String(stored?.version ?? 0), floor, json, channel, source, writer));
        if (version >= 0) return { previous: stored, version };
      }
      throw new SharedSnapshotConflictError(`the shared ${source} snapshot changed under ${MAX_WRITE_ATTEMPTS} write attempts in a row`);
    },
    onRemoteChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async acquire(source, ttlMs) {
      return (await connection.set(prefixedKey(settings, `lease:${source}`), writer, 'PX', ttlMs, 'NX')) === 'OK';
    },
    close() {
      subscriber.off('message', onMessage);
      subscriber.off('ready', onSubscriberReady);
      connection.off('ready', onConnectionReady);
      listeners.clear();
    },
  };
}
