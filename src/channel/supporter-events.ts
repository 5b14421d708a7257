import type { StatsSnapshot, Supporter, SupportersSnapshot } from './models.js';
import type { Served, SnapshotStore, SourceName, SourceSnapshots } from './snapshot-store.js';

/**
 * Live events: every snapshot change the store reports (webhook, refresh) is diffed against the
 * previous snapshot of that source, and each difference becomes one event with an increasing id,
 * appended to a log bounded in entries. Subscribers (GraphQL subscriptions, GET /events) are called
 * synchronously, in order; a client that reconnects replays what it missed from the log.
 */

/** What happened to a supporter between two snapshots. */
export type SupporterChange = 'joined' | 'left' | 'updated';

export interface SupporterChangeEvent {
  type: 'supporter';
  /** Increasing, unique per process and increasing across restarts (see ChannelEventLog). */
  id: string;
  change: SupporterChange;
  /** The supporter after the change; for `left`, as last seen. */
  supporter: Supporter;
  /** The monthly amount before the change, in cents; null for `joined`. */
  previousAmountCents: number | null;
  /** When the change was observed (ISO-8601). */
  at: string;
}

export interface StatsChangeEvent {
  type: 'stats';
  id: string;
  stats: StatsSnapshot;
  at: string;
}

export type ChannelEvent = SupporterChangeEvent | StatsChangeEvent;

/** A difference before it is given an id and a time. */
export type SupporterDifference = Pick<SupporterChangeEvent, 'change' | 'supporter' | 'previousAmountCents'>;

/**
 * The differences between two snapshots of one platform: `joined` and `updated` (amount or tier
 * changed) in the new snapshot's order, then `left` in the old one's. Equal snapshots give none.
 */
export function diffSupporters(previous: SupportersSnapshot, next: SupportersSnapshot): SupporterDifference[] {
  if (previous.supporters === next.supporters) return [];
  const before = new Map(previous.supporters.map((supporter) => [supporter.id, supporter]));
  const differences: SupporterDifference[] = [];
  for (const supporter of next.supporters) {
    const old = before.get(supporter.id);
    if (old === undefined) {
      differences.push({ change: 'joined', supporter, previousAmountCents: null });
    } else {
      before.delete(supporter.id);
      if (old.amountCents !== supporter.amountCents || old.tierId !== supporter.tierId) {
        differences.push({ change: 'updated', supporter, previousAmountCents: old.amountCents });
      }
    }
  }
  for (const supporter of before.values()) differences.push({ change: 'left', supporter, previousAmountCents: supporter.amountCents });
  return differences;
}

/** The statistics changed when a figure did; a refresh that only moves `fetchedAt` is no change. */
export function statsChanged(previous: StatsSnapshot, next: StatsSnapshot): boolean {
  return previous.subscribers !== next.subscribers;
}

/** What the log needs of the snapshot store. */
export type EventSourceStore = Pick<SnapshotStore, 'current' | 'onChange'>;

export interface ChannelEventLogOptions {
  store: EventSourceStore;
  /** Events kept for replay (EVENTS_LOG_SIZE); default 1,000. */
  maxEntries?: number;
  /** Clock of `at` and of the id base; default Date.now. */
  now?: () => number;
  logger?: Pick<Console, 'error'>;
}

export const DEFAULT_EVENTS_LOG_SIZE = 1000;

/** `since()` cannot say what was missed: the id is older than the log (or from another run). */
export const RESET = 'reset';

export type EventListener = (event: ChannelEvent) => void;

/**
 * The event log of one process. Ids are decimal integers starting at the start time in microseconds
 * (`Date.now() * 1000`), then +1 per event: they increase within a run and across restarts (unless a
 * run averaged more than 1,000 events per millisecond), so an id from a previous run is older than
 * the log and gets a reset rather than a wrong replay.
 */
export class ChannelEventLog {
  /** A ring: the event with id N is at N % maxEntries. */
  readonly #entries: Array<ChannelEvent | undefined>;
  /** Events in the ring (at most maxEntries). */
  #size = 0;
  readonly #maxEntries: number;
  /** Each listener and what to call when the log closes. */
  readonly #listeners = new Map<EventListener, (() => void) | undefined>();
  readonly #now: () => number;
  readonly #logger: Pick<Console, 'error'>;
  readonly #previous: { [K in SourceName]: Served<SourceSnapshots[K]> | null };
  readonly #store: EventSourceStore;
  /** Id of the last event appended (the base when there is none yet). */
  #lastId: number;
  #unsubscribe: (() => void) | undefined;

  constructor(options: ChannelEventLogOptions) {
    this.#store = options.store;
    this.#maxEntries = options.maxEntries ?? DEFAULT_EVENTS_LOG_SIZE;
    if (!Number.isSafeInteger(this.#maxEntries) || this.#maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.#entries = new Array<ChannelEvent | undefined>(this.#maxEntries);
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? console;
    this.#lastId = this.#now() * 1000;
    this.#previous = { membership: this.#store.current('membership'), video: this.#store.current('video'), stats: this.#store.current('stats') };
    this.#unsubscribe = this.#store.onChange((source) => this.#observe(source));
  }

  /** The id of the newest event (or of the log's start when there is none): what a client resumes from. */
  get lastEventId(): string {
    return String(this.#lastId);
  }

  /** Subscribers currently registered (to prove that unsubscribing frees them). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Calls `listener` with every new event, in order, until the returned function is called;
   * `onClose` is called if the log closes first (the server shuts down: end the stream cleanly).
   */
  subscribe(listener: EventListener, onClose?: () => void): () => void {
    // A function subscribed twice is two subscriptions: wrap it so each has its own key.
    const own: EventListener = (event) => listener(event);
    this.#listeners.set(own, onClose);
    return () => {
      this.#listeners.delete(own);
    };
  }

  /**
   * The events after `lastEventId`, oldest first; RESET when some of them are no longer in the log
   * (or the id is not one of this log's). Throws RangeError when the id is not a decimal integer.
   */
  since(lastEventId: string): ChannelEvent[] | typeof RESET {
    if (!/^\d{1,16}$/.test(lastEventId)) throw new RangeError('an event id is a decimal integer of at most 16 digits');
    const id = Number(lastEventId);
    if (id > this.#lastId) return RESET;
    const missed = this.#lastId - id;
    if (missed > this.#size) return RESET;
    const events: ChannelEvent[] = [];
    for (let next = id + 1; next <= this.#lastId; next += 1) events.push(this.#entries[next % this.#maxEntries] as ChannelEvent);
    return events;
  }

  /** Stops observing the store, tells every subscriber (`onClose`) and drops them. */
  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    const closing = [...this.#listeners.values()];
    this.#listeners.clear();
    for (const onClose of closing) onClose?.();
  }

  #observe(source: SourceName): void {
    const at = new Date(this.#now()).toISOString();
    if (source === 'stats') {
      const [before, after] = this.#advance('stats');
      if (before && after && statsChanged(before, after)) this.#append({ type: 'stats', id: '', stats: after, at });
      return;
    }
    const [before, after] = this.#advance(source);
    // The first snapshot of a source is where observation starts, not a change.
    if (!before || !after) return;
    for (const difference of diffSupporters(before, after)) this.#append({ type: 'supporter', id: '', ...difference, at });
  }

  /** The previous and the current snapshot of `source`; the current one becomes the previous. */
  #advance<K extends SourceName>(source: K): [SourceSnapshots[K] | undefined, SourceSnapshots[K] | undefined] {
    // A mapped type indexed by a generic key is only readable: write through the key's own view.
    const previousOf = this.#previous as Record<K, Served<SourceSnapshots[K]> | null>;
    const previous = previousOf[source];
    const next = this.#store.current(source);
    previousOf[source] = next;
    return [previous?.data, next?.data];
  }

  #append(event: ChannelEvent): void {
    this.#lastId += 1;
    event.id = String(this.#lastId);
    this.#entries[this.#lastId % this.#maxEntries] = event;
    this.#size = Math.min(this.#size + 1, this.#maxEntries);
    for (const listener of this.#listeners.keys()) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error(`event log: a listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
