/**
 * `@channel-graph/client/events`: a typed reader of GET /events (server-sent events) for downstream apps, over fetch (browsers and
 * Node alike):
 *
 *   for await (const event of streamChannelEvents('http://localhost:4000', { changes: ['joined'] })) {
 *     if (event.event === 'supporter') greet(event.data.name);   // data: SupporterEvent
 *   }
 *
 * It does not reconnect by itself: after the stream ends, call it again with `lastEventId` set to
 * the last `id` received, and the server replays what was missed (or sends `reset`).
 */
import type { components } from '../../../generated/openapi/channel-api.js';

export type SupporterEvent = components['schemas']['SupporterEvent'];
export type ResetEvent = components['schemas']['ResetEvent'];
type StatsResponse = components['schemas']['StatsResponse'];

/** One event of the stream: its SSE id, its type and its JSON data, typed by the type. */
export type ChannelStreamEvent =
  | { id: string; event: 'supporter'; data: SupporterEvent }
  | { id: string; event: 'stats'; data: StatsResponse }
  | { id: string; event: 'reset'; data: ResetEvent };

export interface StreamChannelEventsOptions {
  /** Resume after this event id (the missed events come first). */
  lastEventId?: string;
  /** Only these event types (default supporter and stats; `reset` always comes). */
  types?: ReadonlyArray<'supporter' | 'stats'>;
  /** Only supporter events of these platforms. */
  platform?: ReadonlyArray<SupporterEvent['platform']>;
  /** Only these kinds of supporter change. */
  changes?: ReadonlyArray<SupporterEvent['change']>;
  /** Ends the stream (the iteration finishes). */
  signal?: AbortSignal;
  /** Largest event accepted, in characters (default 1 MiB): a larger one ends the stream with an error. */
  maxEventChars?: number;
  fetch?: typeof fetch;
}

/** GET /events answered something else than an event stream. */
export class EventStreamError extends Error {
  override readonly name = 'EventStreamError';
  constructor(
    message: string,
    /** The HTTP status (0 when the stream itself was malformed). */
    readonly status: number,
    /** The response body (an RFC 9457 problem for the API's refusals). */
    readonly body: string,
  ) {
    super(message);
  }
}

const KNOWN_EVENTS = new Set(['supporter', 'stats', 'reset']);

function eventsUrl(baseUrl: string, options: StreamChannelEventsOptions): string {
  const url = new URL('/events', baseUrl);
  if (options.lastEventId !== undefined) url.searchParams.set('lastEventId', options.lastEventId);
  for (const name of ['types', 'platform', 'changes'] as const) {
    const list = options[name];
    if (list !== undefined) url.searchParams.set(name, list.join(','));
  }
  return url.toString();
}

/** The events of GET /events, parsed as the event-stream format says (comments and unknown events skipped). */
export async function* streamChannelEvents(baseUrl: string, options: StreamChannelEventsOptions = {}): AsyncGenerator<ChannelStreamEvent, void, undefined> {
  const maxEventChars = options.maxEventChars ?? 2 ** 20;
  const response = await (options.fetch ?? fetch)(eventsUrl(baseUrl, options), {
    headers: { accept: 'text/event-stream' },
    ...(options.signal && { signal: options.signal }),
  });
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || response.body === null) {
    const body = await response.text();
    throw new EventStreamError(`GET /events answered ${response.status}`, response.status, body);
  }
  const decoder = new TextDecoderStream();
  const reader = response.body.pipeThrough(decoder).getReader();
  let buffer = '';
  let id = '';
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const chunk = await reader.read().catch((error: unknown) => {
        if (options.signal?.aborted) return { done: true as const, value: undefined };
        throw error;
      });
      if (chunk.done) return;
      buffer += chunk.value;
      if (buffer.length > maxEventChars) throw new EventStreamError(`an event of more than ${maxEventChars} characters`, 0, '');
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0 && KNOWN_EVENTS.has(event)) {
            yield { id, event, data: JSON.parse(data.join('\n')) as unknown } as ChannelStreamEvent;
          }
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
