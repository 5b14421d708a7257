/**
 * The live events' journal in Redis, shared by every replica:
 *
 * - `<prefix>events`: a stream capped at EVENTS_LOG_SIZE entries (XADD MAXLEN), entry id `<event id>-0`;
 * - `<prefix>events:last-id`: the last id given. One Lua script numbers and appends a batch, so ids are
 *   unique and consecutive across replicas. When Redis comes back empty the ids go on from the time in
 *   µs (`Date.now() * 1000`), above every id given before.
 *
 * Every replica reads the stream (XREAD BLOCK on a connection of its own) from the last id it has, so
 * an event appended by the replica that diffed a change reaches the subscribers of all of them in
 * order, and after an outage a replica reads what it missed (what the cap still holds).
 */
import type { Redis } from 'ioredis';
import type { ChannelEvent, EventJournal, UnnumberedEvent } from '../channel/supporter-events.js';
import { prefixedKey, type RedisSettings } from './connection.js';

/** KEYS: the counter, the stream; ARGV: id floor, max length, then one JSON text per event. Returns the last id. */
const APPEND = `
local last = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
for index = 3, #ARGV do
  last = last + 1
  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], string.format('%.0f', last) .. '-0', 'event', ARGV[index])
end
redis.call('SET', KEYS[1], string.format('%.0f', last))
return last
`;

/** Events per script call: a refresh that changed thousands of supporters is appended in slices. */
const APPEND_BATCH = 500;
/** How long one XREAD waits for new entries before asking again (its command deadline is longer). */
export const READ_BLOCK_MS = 1_000;
/** Pause before reading again after a failed read (Redis unreachable). */
const RETRY_READ_MS = 250;
/** Entries per XREAD. */
const READ_COUNT = 500;

type Logger = Pick<Console, 'warn' | 'error'>;

export interface RedisEventJournalOptions {
  settings: Pick<RedisSettings, 'prefix'>;
  /** Commands (the appends and the first read). */
  connection: Redis;
  /** A connection of its own for the blocking reads, with a command deadline above READ_BLOCK_MS. */
  reader: Redis;
  /** Events the stream keeps (EVENTS_LOG_SIZE). */
  maxEntries: number;
  now?: () => number;
  logger: Logger;
}

type StreamEntries = Array<[id: string, fields: string[]]>;

function isChannelEvent(value: unknown): value is ChannelEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { type, at } = value as Record<string, unknown>;
  return (type === 'supporter' || type === 'stats' || type === 'goal.reached') && typeof at === 'string';
}

/** The entries as events (id from the entry id); an unreadable entry is skipped with a warning. */
function toEvents(entries: StreamEntries, logger: Logger): ChannelEvent[] {
  const events: ChannelEvent[] = [];
  for (const [entryId, fields] of entries) {
    const id = entryId.slice(0, entryId.indexOf('-'));
    const text = fields[fields.indexOf('event') + 1];
    let parsed: unknown;
    try {
      parsed = text === undefined ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isChannelEvent(parsed)) events.push({ ...parsed, id });
    else logger.warn(`event journal: skipping the unreadable entry ${entryId}`);
  }
  return events;
}

/**
 * Reads where the shared journal stands (the newest events and the last id) and returns the journal.
 * Redis unreachable: it starts from now, empty, and reads the stream when Redis is back.
 */
export async function createRedisEventJournal(options: RedisEventJournalOptions): Promise<EventJournal & { close(): void }> {
  const { settings, connection, reader, maxEntries, logger } = options;
  const now = options.now ?? Date.now;
  const counterKey = prefixedKey(settings, 'events:last-id');
  const streamKey = prefixedKey(settings, 'events');

  let lastId = now() * 1000;
  let recent: ChannelEvent[] = [];
  try {
    const [counter, newest] = await Promise.all([
      connection.get(counterKey),
      connection.xrevrange(streamKey, '+', '-', 'COUNT', maxEntries) as Promise<StreamEntries>,
    ]);
    recent = toEvents(newest.reverse(), logger);
    if (counter !== null) lastId = Number(counter);
  } catch (error) {
    logger.warn(`event journal: Redis is unreachable, starting from now: ${error instanceof Error ? error.message : String(error)}`);
  }

  let deliver: ((event: ChannelEvent) => void) | undefined;
  let readFrom = `${lastId}-0`;
  let reading: Promise<void> | undefined;
  const readLoop = async (): Promise<void> => {
    while (deliver !== undefined) {
      let answer: Array<[key: string, entries: StreamEntries]> | null;
      try {
        answer = (await reader.xread('COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', streamKey, readFrom));
      } catch {
        // Unreachable (commands fail at once without an offline queue): ask again shortly.
        await new Promise((resolve) => setTimeout(resolve, RETRY_READ_MS));
        continue;
      }
      const entries = answer?.[0]?.[1] ?? [];
      const last = entries.at(-1);
      if (last !== undefined) readFrom = last[0];
      for (const event of toEvents(entries, logger)) deliver?.(event);
    }
  };

  return {
    start: { lastId, recent },
    append(events: readonly UnnumberedEvent[]) {
      for (let from = 0; from < events.length; from += APPEND_BATCH) {
        const batch = events.slice(from, from + APPEND_BATCH).map((event) => JSON.stringify(event));
        connection.eval(APPEND, 2, counterKey, streamKey, String(now() * 1000), String(maxEntries), ...batch).catch((error: unknown) => {
          logger.error(`event journal: ${batch.length} events lost, Redis is unreachable: ${error instanceof Error ? error.message : String(error)}`);
        });
      }
    },
    open(listener) {
      deliver = listener;
      reading ??= readLoop().finally(() => {
        reading = undefined;
      });
      return () => {
        deliver = undefined;
      };
    },
    close() {
      deliver = undefined;
    },
  };
}
