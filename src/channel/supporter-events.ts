import type { Platform, StatsSnapshot, Supporter, SupportersSnapshot } from './models.js';
import type { SnapshotStore, SnapshotWrite, SourceName } from './snapshot-store.js';

/**
 * Live events: every snapshot change this process writes (webhook, refresh) is diffed against the
 * snapshot it replaced, and each difference becomes one event. A journal gives the events their
 * increasing ids and delivers them, in order, to the log of every process that shares it (one
 * process: at once; several replicas: through Redis, so that a change diffed on one replica reaches
 * subscribers on all and ids are unique across them). The log keeps the last events, bounded in
 * entries; subscribers (GraphQL subscriptions, GET /events) are called synchronously, in order; a
 * client that reconnects replays what it missed from the log.
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

/** A goal of the goals file was reached (announced once; see src/history/goals.ts). */
export interface GoalReachedEvent {
  type: 'goal.reached';
  id: string;
  goal: { id: string; title: string; measure: 'members' | 'monthlyCents'; platform: Platform | null; target: number };
  /** The figure that reached the target. */
  value: number;
  at: string;
}

export type ChannelEvent = SupporterChangeEvent | StatsChangeEvent | GoalReachedEvent;

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

/** An event before the journal gives it its id. */
export type UnnumberedEvent = Omit<SupporterChangeEvent, 'id'> | Omit<StatsChangeEvent, 'id'> | Omit<GoalReachedEvent, 'id'>;

/**
 * Where events get their ids and from where they are delivered. Ids are decimal integers, each one
 * more than the previous (a jump tells the log that it missed some).
 */
export interface EventJournal {
  /** The id events continue from, and the newest events already in the journal (oldest first). */
  readonly start: { lastId: number; recent: readonly ChannelEvent[] };
  /** Numbers `events` and delivers them (to every process sharing the journal), in order. */
  append(events: readonly UnnumberedEvent[]): void;
  /** Calls `deliver` with every event appended from now on, in id order, until the returned function is called. */
  open(deliver: (event: ChannelEvent) => void): () => void;
}

/**
 * The journal of one process: ids start at the time it was created, in microseconds
 * (`Date.now() * 1000`), then +1 per event: they increase within a run and across restarts (unless a
 * run averaged more than 1,000 events per millisecond), so an id from a previous run is older than the
 * log and gets a reset rather than a wrong replay. Delivery is synchronous.
 */
export function createLocalEventJournal(now: () => number = Date.now): EventJournal {
  let lastId = now() * 1000;
  let deliver: ((event: ChannelEvent) => void) | undefined;
  return {
    start: { lastId, recent: [] },
    append(events) {
      for (const event of events) {
        lastId += 1;
        deliver?.({ ...event, id: String(lastId) });
      }
    },
    open(listener) {
      deliver = listener;
      return () => {
        deliver = undefined;
      };
    },
  };
}

/** What the log needs of the snapshot store. */
export type EventSourceStore = Pick<SnapshotStore, 'onChange'>;

export interface ChannelEventLogOptions {
  store: EventSourceStore;
  /** Where ids come from and events are delivered from; default a journal of this process alone. */
  journal?: EventJournal;
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

/** The event log of one process: the last events of its journal, for replay, and their subscribers. */
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
  readonly #journal: EventJournal;
  /** Id of the last event received (the journal's start when there is none yet). */
  #lastId: number;
  #unsubscribe: (() => void) | undefined;
  #closeJournal: (() => void) | undefined;

  constructor(options: ChannelEventLogOptions) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_EVENTS_LOG_SIZE;
    if (!Number.isSafeInteger(this.#maxEntries) || this.#maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.#entries = new Array<ChannelEvent | undefined>(this.#maxEntries);
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? console;
    this.#journal = options.journal ?? createLocalEventJournal(this.#now);
    const { lastId, recent } = this.#journal.start;
    this.#lastId = recent[0] === undefined ? lastId : Number(recent[0].id) - 1;
    for (const event of recent) this.#receive(event);
    if (lastId > this.#lastId) {
      // The journal numbered events it no longer holds: none before `lastId` can be replayed.
      this.#size = 0;
      this.#lastId = lastId;
    }
    this.#closeJournal = this.#journal.open((event) => this.#receive(event));
    this.#unsubscribe = options.store.onChange((source, written) => {
      if (written !== undefined) this.#observe(source, written);
    });
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

  /** Appends events that do not come from a snapshot change (a goal reached), to every process sharing the journal. */
  announce(events: readonly UnnumberedEvent[]): void {
    if (events.length > 0 && this.#unsubscribe !== undefined) this.#journal.append(events);
  }

  /** Stops observing the store, tells every subscriber (`onClose`) and drops them. */
  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#closeJournal?.();
    this.#closeJournal = undefined;
    const closing = [...this.#listeners.values()];
    this.#listeners.clear();
    for (const onClose of closing) onClose?.();
  }

  /** Diffs a change this process wrote; another process's changes are diffed by the one that wrote them. */
  #observe(source: SourceName, { previous, current }: SnapshotWrite): void {
    // The first snapshot of a source is where observation starts, not a change.
    if (previous === null) return;
    const at = new Date(this.#now()).toISOString();
    if (source === 'stats') {
      const [before, after] = [previous as StatsSnapshot, current as StatsSnapshot];
      if (statsChanged(before, after)) this.#journal.append([{ type: 'stats', stats: after, at }]);
      return;
    }
    const differences = diffSupporters(previous as SupportersSnapshot, current as SupportersSnapshot);
    if (differences.length > 0) this.#journal.append(differences.map((difference) => ({ type: 'supporter', ...difference, at })));
  }

  #receive(event: ChannelEvent): void {
    const id = Number(event.id);
    // Ids older than the newest are repeats (a journal re-reading after a reconnect); a jump forward
    // means events this process never got: what is before it cannot be replayed any more.
    if (id <= this.#lastId) return;
    if (id !== this.#lastId + 1) this.#size = 0;
    this.#lastId = id;
    this.#entries[id % this.#maxEntries] = event;
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
