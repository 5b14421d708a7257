/**
 * The delivery worker: takes due deliveries from the outbox, destination by destination, and sends
 * them — at most `concurrency` in flight per destination, none to a destination that asked for a
 * pause (its rate limit, Retry-After) — then records each outcome: delivered, to be retried (retry.ts),
 * or dead. It claims up to twice a destination's concurrency at once (one statement for many
 * deliveries), and a claimed delivery is leased to this process for two attempts' deadlines and a
 * margin — one to wait for a free slot, one to be sent — so that one replica sends it; if the process
 * dies, the lease runs out and it is sent again, with the same `webhook-id` (at least once). It looks
 * for work when told (`wake()`: an event was recorded here), after each delivery, and every
 * `pollIntervalMs` (events recorded by another replica).
 *
 * `close(deadline)` drains: it goes on sending what is due until nothing is, or until the deadline;
 * then the attempts in flight are stopped and their deliveries released, uncounted, for the next start.
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { attemptDelivery, createSender, type AttemptOutcome, type Sender } from './attempt.js';
import type { Destination, NotificationsConfig } from './destinations.js';
import type { NotificationEvent } from './events.js';
import { nextRetry } from './retry.js';

/** A delivery taken from the outbox by this process. */
export interface ClaimedDelivery {
  /** The outbox row. */
  id: number;
  destination: string;
  event: NotificationEvent;
  /** Attempts made before this one. */
  attempts: number;
  /** When the event was recorded (the retry window starts there). */
  recordedAtMs: number;
}

/** What one attempt left: the answer's status (null: none) and the error (null when delivered). */
export interface AttemptRecord {
  atMs: number;
  status: number | null;
  error: string | null;
}

/** The outbox as the worker uses it (outbox-store.ts). */
export interface OutboxStore {
  /** At most `limit` due deliveries of `destination`, leased to this process for `leaseMs`. */
  claim(destination: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  delivered(id: number, attempt: AttemptRecord): Promise<void>;
  retry(id: number, attempt: AttemptRecord, nextAttemptAtMs: number): Promise<void>;
  dead(id: number, attempt: AttemptRecord): Promise<void>;
  /** Back to due at once, the attempt not counted (a shutdown stopped it). */
  release(ids: readonly number[]): Promise<void>;
  /** Every pending delivery of `destination` due now (it answers again: its backlog need not wait out its backoff). */
  dueNow(destination: string): Promise<void>;
}

/** Told of every outcome (metrics). */
export interface DeliveryObserver {
  delivered(destination: string): void;
  retried(destination: string): void;
  dead(destination: string): void;
}

type WorkerLogger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface DeliveryWorkerOptions {
  store: OutboxStore;
  config: NotificationsConfig;
  /** The safe agent (safe-agent.ts). */
  dispatcher: Dispatcher;
  logger: WorkerLogger;
  observer?: DeliveryObserver;
  /** How often the outbox is looked at without being told; default 1 s. */
  pollIntervalMs?: number;
  now?: () => number;
  /** Jitter's source; default Math.random. */
  random?: () => number;
}

export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** The longest a receiver's rate limit or Retry-After holds a destination (a larger one is a receiver's mistake). */
export const MAX_HOLD_MS = 3_600_000;
/** A lease outlasts its attempt by this much: the outcome's write still belongs to it. */
export const LEASE_MARGIN_MS = 5_000;

interface Lane {
  sender: Sender;
  concurrency: number;
  inFlight: Set<Promise<void>>;
  /** Claimed and leased, waiting for a free slot. */
  queue: ClaimedDelivery[];
  heldUntilMs: number;
  /** The claim under way, if any (one at a time per destination). */
  claiming: Promise<number> | undefined;
  /** Its deliveries have been failing since the last success (logged once, not per event). */
  failing: boolean;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class DeliveryWorker {
  readonly #options: DeliveryWorkerOptions;
  readonly #lanes = new Map<string, Lane>();
  readonly #now: () => number;
  readonly #stop = new AbortController();
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closing: Promise<boolean> | undefined;
  #storeFailing = false;

  constructor(options: DeliveryWorkerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#leaseMs = 2 * options.config.delivery.attemptTimeoutMs + LEASE_MARGIN_MS;
    let attemptsAtOnce = 0;
    for (const destination of options.config.destinations) {
      attemptsAtOnce += destination.concurrency;
      this.#lanes.set(destination.name, { sender: createSender(destination), concurrency: destination.concurrency, inFlight: new Set(), queue: [], heldUntilMs: 0, claiming: undefined, failing: false });
    }
    // Every attempt in flight listens to the stop signal (its deadline's caller signal).
    setMaxListeners(attemptsAtOnce + 1, this.#stop.signal);
  }

  /** Starts looking at the outbox (now, then every poll interval). */
  start(): void {
    if (this.#timer !== undefined || this.#closing !== undefined) return;
    this.#timer = setInterval(() => this.wake(), this.#options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    this.wake();
  }

  /** Looks for due deliveries now (an event was just recorded). */
  wake(): void {
    if (this.#stop.signal.aborted) return;
    for (const lane of this.#lanes.values()) void this.#fill(lane);
  }

  /** Deliveries in flight now, over every destination. */
  get inFlight(): number {
    let count = 0;
    for (const lane of this.#lanes.values()) count += lane.inFlight.size;
    return count;
  }

  /**
   * Stops polling and sends what is due until nothing is or `deadlineMs` (from now) has passed;
   * then stops the attempts in flight and releases their deliveries. Resolves true when it drained
   * everything that was due. Every call returns the same promise.
   */
  close(deadlineMs: number): Promise<boolean> {
    this.#closing ??= this.#drain(this.#now() + deadlineMs);
    return this.#closing;
  }

  async #drain(deadlineAtMs: number): Promise<boolean> {
    clearInterval(this.#timer);
    let deadlineTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      deadlineTimer = setTimeout(() => resolve('deadline'), Math.max(0, deadlineAtMs - this.#now()));
    });
    try {
      for (;;) {
        const claimed = await Promise.race<number[] | 'deadline'>([Promise.all([...this.#lanes.values()].map((lane) => this.#fill(lane))), deadline]);
        if (claimed === 'deadline') break;
        const inFlight = [...this.#lanes.values()].flatMap((lane) => [...lane.inFlight]);
        if (inFlight.length === 0 && claimed.every((count) => count === 0) && [...this.#lanes.values()].every((lane) => lane.queue.length === 0)) return true;
        if ((await Promise.race([Promise.race(inFlight.length === 0 ? [Promise.resolve()] : inFlight), deadline])) === 'deadline') break;
      }
      this.#stop.abort();
      // Each stopped attempt releases its delivery, and what waited for a slot is released; wait for
      // those writes (they do not wait for a receiver).
      await Promise.all([...this.#lanes.values()].flatMap((lane) => [...lane.inFlight, ...(lane.claiming === undefined ? [] : [lane.claiming]), this.#releaseQueue(lane)]));
      return false;
    } finally {
      this.#stop.abort();
      clearTimeout(deadlineTimer);
    }
  }

  /** Starts what waits for a slot; claims more once nothing waits; resolves with the number claimed. */
  #fill(lane: Lane): Promise<number> {
    this.#startQueued(lane);
    if (lane.claiming !== undefined) return lane.claiming;
    if (this.#stop.signal.aborted || lane.queue.length > 0 || this.#now() < lane.heldUntilMs) return Promise.resolve(0);
    const claiming = this.#options.store.claim(lane.sender.destination.name, 2 * lane.concurrency - lane.inFlight.size, this.#leaseMs).then(
      (deliveries) => {
        this.#storeRecovered();
        lane.queue.push(...deliveries);
        this.#startQueued(lane);
        return deliveries.length;
      },
      (error: unknown) => {
        this.#storeFailed('could not read the outbox', error);
        return 0;
      },
    );
    lane.claiming = claiming.finally(() => {
      lane.claiming = undefined;
    });
    return lane.claiming;
  }

  #startQueued(lane: Lane): void {
    while (lane.inFlight.size < lane.concurrency && !this.#stop.signal.aborted && this.#now() >= lane.heldUntilMs) {
      const next = lane.queue.shift();
      if (next === undefined) return;
      this.#deliver(lane, next);
    }
  }

  /** Gives back what waits for a slot (a hold, a stop): another worker may take it at once. */
  async #releaseQueue(lane: Lane): Promise<void> {
    const queued = lane.queue.splice(0);
    if (queued.length === 0) return;
    await this.#options.store.release(queued.map((delivery) => delivery.id)).catch((error: unknown) => this.#storeFailed('could not release deliveries (they are sent once their lease ends)', error));
  }

  #deliver(lane: Lane, delivery: ClaimedDelivery): void {
    const run = (async () => {
      const outcome = await attemptDelivery(lane.sender, delivery.event, {
        dispatcher: this.#options.dispatcher,
        timeoutMs: this.#options.config.delivery.attemptTimeoutMs,
        signal: this.#stop.signal,
        now: this.#now,
      });
      if (outcome.holdDestinationMs !== undefined) {
        lane.heldUntilMs = Math.max(lane.heldUntilMs, this.#now() + Math.min(outcome.holdDestinationMs, MAX_HOLD_MS));
        // Held longer than their lease could last: what waits is given back.
        void this.#releaseQueue(lane);
      }
      if (!outcome.delivered && this.#stop.signal.aborted) {
        await this.#options.store.release([delivery.id]);
        return;
      }
      await this.#record(lane.sender.destination, delivery, outcome);
    })().catch((error: unknown) => this.#storeFailed('could not record a delivery (it is sent again once its lease ends)', error));
    lane.inFlight.add(run);
    void run.finally(() => {
      lane.inFlight.delete(run);
      void this.#fill(lane);
    });
  }

  async #record(destination: Destination, delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const { store, observer, logger } = this.#options;
    const lane = this.#lanes.get(destination.name) as Lane;
    const atMs = this.#now();
    if (outcome.delivered) {
      await store.delivered(delivery.id, { atMs, status: outcome.status, error: null });
      this.#storeRecovered();
      observer?.delivered(destination.name);
      if (lane.failing) {
        lane.failing = false;
        logger.info({ destination: destination.name }, `notifications to ${destination.name} are delivered again; its backlog is sent now`);
        await store.dueNow(destination.name);
        void this.#fill(lane);
      }
      return;
    }
    const attempt = { atMs, status: outcome.status, error: outcome.error };
    const attempts = delivery.attempts + 1;
    const decision = nextRetry({ attempts, recordedAtMs: delivery.recordedAtMs, nowMs: atMs, retryAfterMs: outcome.retryAfterMs }, this.#options.config.delivery, this.#options.random);
    if (!lane.failing) {
      lane.failing = true;
      logger.warn({ destination: destination.name, status: outcome.status, error: outcome.error }, `notifications to ${destination.name} are failing (${outcome.error}); retried with backoff`);
    }
    if (decision.retry) {
      await store.retry(delivery.id, attempt, decision.atMs);
      observer?.retried(destination.name);
      return;
    }
    await store.dead(delivery.id, attempt);
    observer?.dead(destination.name);
    logger.warn(
      { destination: destination.name, event: delivery.event.id, kind: delivery.event.body.type, attempts, status: outcome.status, error: outcome.error },
      `notification ${delivery.event.id} to ${destination.name} is a dead letter after ${attempts} attempts (replay: docs/notifications.md#dead-letters)`,
    );
  }

  #storeFailed(what: string, error: unknown): void {
    if (this.#storeFailing) return;
    this.#storeFailing = true;
    this.#options.logger.error({ error: describe(error) }, `notifications: ${what}: ${describe(error)}`);
  }

  #storeRecovered(): void {
    if (!this.#storeFailing) return;
    this.#storeFailing = false;
    this.#options.logger.info('notifications: the outbox is reachable again');
  }
}
