import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Platform } from '../channel/models.js';
import { RESET, type ChannelEvent, type ChannelEventLog, type SupporterChange } from '../channel/supporter-events.js';
import type { ChannelApiComponents as components } from '@channel-graph/client/rest';
import { problem, sendProblem } from '../lib/problem.js';
import { toStatsBody } from './representation.js';

/**
 * GET /events: the event log as server-sent events (WHATWG HTML §9.2), for overlays that use
 * EventSource. `supporter` and `stats` events carry the REST representations plus the change; a
 * client that reconnects with `Last-Event-ID` (or `?lastEventId=`) gets what it missed from the log,
 * or a `reset` event when that is no longer there. The number of open streams is bounded.
 */
export interface EventStreamOptions {
  events: Pick<ChannelEventLog, 'subscribe' | 'since' | 'lastEventId'>;
  /** Streams open at once (EVENTS_MAX_STREAMS); one more is answered 503. Default 1,000. */
  maxStreams?: number;
  /** Interval of the heartbeat comment that keeps proxies from closing an idle stream; default 15 s. */
  heartbeatMs?: number;
  /** Bytes a client may leave unread before its stream is cut; default 1 MiB. */
  maxBufferedBytes?: number;
  /** Headers of every answer (CORS). */
  headers?: Record<string, string>;
}

export const DEFAULT_EVENTS_MAX_STREAMS = 1000;
const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_BUFFERED_BYTES = 2 ** 20;
/** How long an EventSource waits before reconnecting (the `retry:` field), in ms. */
const RECONNECT_MS = 2000;
/** Seconds a client refused for lack of streams is told to wait. */
const RETRY_AFTER_SECONDS = 5;

type SupporterEventBody = components['schemas']['SupporterEvent'];
type ResetEventBody = components['schemas']['ResetEvent'];
type GoalReachedEventBody = components['schemas']['GoalReachedEvent'];

const PLATFORMS: readonly Platform[] = ['membership', 'video'];
const CHANGES: readonly SupporterChange[] = ['joined', 'left', 'updated'];
const TYPES: ReadonlyArray<ChannelEvent['type']> = ['supporter', 'stats', 'goal.reached'];

/** A query parameter that is invalid: 400. */
export class EventStreamQueryError extends Error {
  override readonly name = 'EventStreamQueryError';
}

/** Which events a stream carries. */
interface Selection {
  types: ReadonlySet<ChannelEvent['type']>;
  platforms: ReadonlySet<Platform>;
  changes: ReadonlySet<SupporterChange>;
}

/** A comma-separated list parameter given at most once; every item one of `allowed`. Absent → all of them. */
function readList<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): ReadonlySet<T> {
  const values = query.getAll(name);
  if (values.length === 0) return new Set(allowed);
  if (values.length > 1) throw new EventStreamQueryError(`query parameter "${name}" must be given at most once`);
  const items = (values[0] ?? '').split(',');
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new EventStreamQueryError(`query parameter "${name}" is a comma-separated list of ${allowed.map((value) => `"${value}"`).join(', ')}, got "${item}"`);
    }
  }
  return new Set(items as T[]);
}

function readSelection(query: URLSearchParams): Selection {
  return { types: readList(query, 'types', TYPES), platforms: readList(query, 'platform', PLATFORMS), changes: readList(query, 'changes', CHANGES) };
}

function selects(selection: Selection, event: ChannelEvent): boolean {
  if (!selection.types.has(event.type)) return false;
  return event.type !== 'supporter' || (selection.platforms.has(event.supporter.platform) && selection.changes.has(event.change));
}

/** The `data` of a supporter event: the supporter as the REST lists show it, plus the change. */
export function toSupporterEventBody(event: Extract<ChannelEvent, { type: 'supporter' }>): SupporterEventBody {
  const { supporter } = event;
  return {
    id: supporter.id,
    name: supporter.name,
    platform: supporter.platform,
    level: { level_id: supporter.tierId, amount_cents: supporter.amountCents, created_at: supporter.since },
    change: event.change,
    previousAmountCents: event.previousAmountCents,
    at: event.at,
  };
}

/** One event in the text/event-stream format; `data` is one line of JSON (JSON.stringify escapes newlines). */
function formatFrame(event: ChannelEvent): string {
  const data: SupporterEventBody | GoalReachedEventBody | ReturnType<typeof toStatsBody> =
    event.type === 'supporter' ? toSupporterEventBody(event) : event.type === 'stats' ? toStatsBody(event.stats, false) : { goal: event.goal, value: event.value, at: event.at };
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The frame of an event, serialised once for every stream that carries it (a thousand overlays
 * share one buffer, not a thousand JSON.stringify calls). Events are immutable, so a frame never
 * goes stale; the WeakMap lets it go with its event when the log drops it.
 */
const frames = new WeakMap<ChannelEvent, Buffer>();
function frame(event: ChannelEvent): Buffer {
  let bytes = frames.get(event);
  if (bytes === undefined) {
    // Encoded once too: a string would be encoded again for every stream it is written to.
    bytes = Buffer.from(formatFrame(event));
    frames.set(event, bytes);
  }
  return bytes;
}

function resetFrame(lastEventId: string): string {
  const body: ResetEventBody = { message: 'Events were missed and are no longer in the log: read the lists again (/membership/pledges, /video/members, /video/stats).' };
  return `id: ${lastEventId}\nevent: reset\ndata: ${JSON.stringify(body)}\n\n`;
}

/** Last-Event-ID (what EventSource sends on reconnection) or `?lastEventId=` (a first connection that resumes). */
function readLastEventId(request: IncomingMessage, query: URLSearchParams): string | undefined {
  const header = request.headers['last-event-id'];
  const fromQuery = query.getAll('lastEventId');
  if (fromQuery.length > 1) throw new EventStreamQueryError('query parameter "lastEventId" must be given at most once');
  const id = typeof header === 'string' && header !== '' ? header : fromQuery[0];
  if (id !== undefined && !/^\d{1,16}$/.test(id)) throw new EventStreamQueryError(`an event id is a decimal integer of at most 16 digits, got ${JSON.stringify(id.slice(0, 40))}`);
  return id;
}

export interface EventStreamHandler {
  /** Answers GET /events (the caller has checked the path and the method). */
  handle(request: IncomingMessage, response: ServerResponse, query: URLSearchParams): void;
  /** Streams open now. */
  readonly openStreams: number;
  /** Ends every open stream cleanly (the response is ended, not the connection cut); refuses new ones. */
  close(): void;
}

export function createEventStreamHandler(options: EventStreamOptions): EventStreamHandler {
  const { events } = options;
  const maxStreams = options.maxStreams ?? DEFAULT_EVENTS_MAX_STREAMS;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const headers = options.headers ?? {};
  const open = new Set<() => void>();
  let closed = false;

  function handle(request: IncomingMessage, response: ServerResponse, query: URLSearchParams): void {
    let selection: Selection;
    let lastEventId: string | undefined;
    try {
      selection = readSelection(query);
      lastEventId = readLastEventId(request, query);
    } catch (error) {
      if (!(error instanceof EventStreamQueryError)) throw error;
      sendProblem(response, problem(400, error.message, '/events'), headers);
      return;
    }
    if (closed || open.size >= maxStreams) {
      const detail = closed ? 'the server is shutting down' : `${maxStreams} event streams are open, the most this server keeps; try again later`;
      sendProblem(response, problem(503, detail, '/events'), { ...headers, 'retry-after': String(RETRY_AFTER_SECONDS) });
      return;
    }
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies that buffer (nginx) pass the stream through as it is written.
      'x-accel-buffering': 'no',
    });
    const write = (text: string | Buffer): void => {
      response.write(text);
      // A client that stops reading is cut off rather than buffered for without bound.
      if (response.writableLength > maxBufferedBytes) response.destroy();
    };
    write(`retry: ${RECONNECT_MS}\n: ${events.lastEventId}\n\n`);
    // Subscribed before the replay is read: no event falls between the two (both run synchronously).
    const unsubscribe = events.subscribe(
      (event) => {
        if (selects(selection, event)) write(frame(event));
      },
      () => end(),
    );
    if (lastEventId !== undefined) {
      const missed = events.since(lastEventId);
      if (missed === RESET) write(resetFrame(events.lastEventId));
      else for (const event of missed) if (selects(selection, event)) write(frame(event));
    }
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    function end(): void {
      if (!open.delete(end)) return;
      clearInterval(heartbeat);
      unsubscribe();
      response.end();
    }
    open.add(end);
    response.on('close', end);
  }

  return {
    handle,
    get openStreams() {
      return open.size;
    },
    close() {
      closed = true;
      for (const end of [...open]) end();
    },
  };
}
