/**
 * The outbox in the database (db/migrations/0002_notification_outbox.sql): `enqueue` writes an
 * event and one delivery per destination that gets its kind, inside the transaction of the change
 * it records (the recorder's hook), so that an event exists exactly when its change does. The worker
 * takes due deliveries with FOR UPDATE SKIP LOCKED and a lease (one replica sends each), and records
 * each outcome here. Delivered deliveries are removed after RETENTION.delivered, dead letters after
 * RETENTION.dead; an event goes with its last delivery.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../db/database.js';
import type { Destination } from './destinations.js';
import { notificationBody, type ChannelNotification, type NotificationInput, type NotificationKind } from './events.js';
import type { AttemptRecord, ClaimedDelivery, OutboxStore } from './worker.js';

export type DeliveryState = 'pending' | 'delivered' | 'dead';

/** One delivery as the deliveries view shows it (REST and GraphQL): no body, no URL. */
export interface DeliveryView {
  id: number;
  eventId: string;
  kind: NotificationKind;
  destination: string;
  state: DeliveryState;
  attempts: number;
  recordedAt: Date;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export interface DeliveryQuery {
  destination?: string | undefined;
  state?: DeliveryState | undefined;
  /** At most MAX_DELIVERIES_PAGE + 1. */
  limit: number;
  /** Deliveries older than this one (its id), for the next page. */
  before?: number | undefined;
}

export const MAX_DELIVERIES_PAGE = 100;

/** How long finished deliveries are kept (for the view, and for an operator to replay a dead letter). */
export const RETENTION = { deliveredMs: 7 * 24 * 3_600_000, deadMs: 30 * 24 * 3_600_000 } as const;
/** Rows removed per statement: a long backlog is removed in short transactions. */
const PRUNE_BATCH = 5_000;
/** Rows per INSERT (PostgreSQL takes at most 65,535 parameters in a statement). */
const ROWS_PER_INSERT = 1_000;

/** A new event id: `evt_` and 32 hexadecimal digits (the `webhook-id`). */
export function newEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

type Database = Kysely<Tables> | Transaction<Tables>;

export interface NotificationOutboxOptions {
  /** The open database; throws while it is not (HistoryDatabase.get). */
  db: () => Kysely<Tables>;
  destinations: readonly Destination[];
  now?: () => number;
}

export class NotificationOutbox implements OutboxStore {
  readonly #db: () => Kysely<Tables>;
  readonly #now: () => number;
  /** The destinations of each kind. */
  readonly #subscribers = new Map<NotificationKind, string[]>();
  /** Deliveries taken, waiting for their write (see delivered()). */
  readonly #delivered: Array<{ id: number; attempt: AttemptRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  #writingDelivered = false;

  constructor(options: NotificationOutboxOptions) {
    this.#db = options.db;
    this.#now = options.now ?? Date.now;
    for (const destination of options.destinations) {
      for (const kind of destination.events) this.#subscribers.set(kind, [...(this.#subscribers.get(kind) ?? []), destination.name]);
    }
  }

  /** Whether any destination gets events of `kind`. */
  wants(kind: NotificationKind): boolean {
    return this.#subscribers.has(kind);
  }

  /**
   * Writes the events that some destination gets, and their deliveries, in `tx` (the transaction of
   * the change they record); resolves with the number of deliveries written.
   */
  async enqueue(tx: Database, inputs: readonly NotificationInput[]): Promise<number> {
    const events = inputs.filter((input) => this.wants(input.kind)).map((input) => ({ id: newEventId(), kind: input.kind, body: notificationBody(input), recordedAt: new Date(input.at) }));
    if (events.length === 0) return 0;
    const now = new Date(this.#now());
    const deliveries = events.flatMap((event) =>
      (this.#subscribers.get(event.kind) ?? []).map((destination) => ({ event_id: event.id, destination, next_attempt_at: now, retry_since: event.recordedAt, created_at: now })),
    );
    for (let start = 0; start < events.length; start += ROWS_PER_INSERT) {
      const part = events.slice(start, start + ROWS_PER_INSERT);
      await tx.insertInto('notification_event').values(part.map((event) => ({ id: event.id, kind: event.kind, body: JSON.stringify(event.body), recorded_at: event.recordedAt }))).execute();
    }
    for (let start = 0; start < deliveries.length; start += ROWS_PER_INSERT) await tx.insertInto('notification_delivery').values(deliveries.slice(start, start + ROWS_PER_INSERT)).execute();
    return deliveries.length;
  }

  async claim(destination: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const nowMs = this.#now();
    const now = new Date(nowMs);
    // The due rows are chosen once, in a CTE (a subquery under the UPDATE could be run again and
    // take more than `limit`); the ones another worker holds locked right now are skipped.
    const rows = await this.#db()
      .with('due', (db) =>
        db
          .selectFrom('notification_delivery')
          .select('id')
          .where('destination', '=', destination)
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .where((where) => where.or([where('lease_until', 'is', null), where('lease_until', '<=', now)]))
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .updateTable('notification_delivery as d')
      .from(['due', 'notification_event as e'])
      .set({ lease_until: new Date(nowMs + leaseMs) })
      .whereRef('d.id', '=', 'due.id')
      .whereRef('e.id', '=', 'd.event_id')
      .returning(['d.id', 'd.event_id', 'd.attempts', 'd.retry_since', 'e.body'])
      .execute();
    return rows
      .sort((a, b) => a.id - b.id)
      .map((row) => ({
        id: row.id,
        destination,
        event: { id: row.event_id, body: (typeof row.body === 'string' ? JSON.parse(row.body) : row.body) as ChannelNotification },
        attempts: row.attempts,
        recordedAtMs: row.retry_since.getTime(),
      }));
  }

  /**
   * Written in groups: while one UPDATE is under way, the deliveries taken meanwhile wait for the next,
   * which writes them all (under load, one statement for many deliveries rather than one each).
   */
  delivered(id: number, attempt: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#delivered.push({ id, attempt, resolve, reject });
      if (!this.#writingDelivered) void this.#writeDelivered();
    });
  }

  async #writeDelivered(): Promise<void> {
    this.#writingDelivered = true;
    try {
      for (let batch = this.#delivered.splice(0, ROWS_PER_INSERT); batch.length > 0; batch = this.#delivered.splice(0, ROWS_PER_INSERT)) {
        try {
          const rows = batch.map(({ id, attempt }) => sql`(${id}::bigint, ${new Date(attempt.atMs)}::timestamptz, ${attempt.status}::integer)`);
          await sql`
            UPDATE notification_delivery AS d
            SET state = 'delivered', attempts = d.attempts + 1, lease_until = NULL, last_attempt_at = v.at, last_status = v.status, last_error = NULL, delivered_at = v.at
            FROM (VALUES ${sql.join(rows)}) AS v (id, at, status)
            WHERE d.id = v.id AND d.state = 'pending'`.execute(this.#db());
          for (const { resolve } of batch) resolve();
        } catch (error) {
          for (const { reject } of batch) reject(error);
        }
      }
    } finally {
      this.#writingDelivered = false;
    }
  }

  async retry(id: number, attempt: AttemptRecord, nextAttemptAtMs: number): Promise<void> {
    await this.#finish(id, attempt, { next_attempt_at: new Date(nextAttemptAtMs) });
  }

  async dead(id: number, attempt: AttemptRecord): Promise<void> {
    await this.#finish(id, attempt, { state: 'dead' });
  }

  async #finish(id: number, attempt: AttemptRecord, change: { state?: DeliveryState; next_attempt_at?: Date }): Promise<void> {
    await this.#db()
      .updateTable('notification_delivery')
      .set({ ...change, attempts: sql`attempts + 1`, lease_until: null, last_attempt_at: new Date(attempt.atMs), last_status: attempt.status, last_error: attempt.error })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .execute();
  }

  async release(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#db().updateTable('notification_delivery').set({ lease_until: null }).where('id', 'in', [...ids]).where('state', '=', 'pending').execute();
  }

  async dueNow(destination: string): Promise<void> {
    const now = new Date(this.#now());
    await this.#db().updateTable('notification_delivery').set({ next_attempt_at: now }).where('destination', '=', destination).where('state', '=', 'pending').where('next_attempt_at', '>', now).execute();
  }

  /** Pending and dead deliveries per destination (the metrics' gauges). */
  async counts(): Promise<Array<{ destination: string; state: 'pending' | 'dead'; count: number }>> {
    const rows = await this.#db()
      .selectFrom('notification_delivery')
      .select(['destination', 'state', (eb) => eb.fn.countAll<number>().as('count')])
      .where('state', 'in', ['pending', 'dead'])
      .groupBy(['destination', 'state'])
      .execute();
    return rows.map((row) => ({ destination: row.destination, state: row.state as 'pending' | 'dead', count: Number(row.count) }));
  }

  /** The newest deliveries first, filtered by destination and state. */
  async recent(query: DeliveryQuery): Promise<DeliveryView[]> {
    let select = this.#db()
      .selectFrom('notification_delivery as d')
      .innerJoin('notification_event as e', 'e.id', 'd.event_id')
      .select(['d.id', 'd.event_id', 'e.kind', 'd.destination', 'd.state', 'd.attempts', 'e.recorded_at', 'd.last_attempt_at', 'd.last_status', 'd.last_error', 'd.next_attempt_at', 'd.delivered_at'])
      .orderBy('d.id', 'desc')
      // One more than a page: whether a next page follows.
      .limit(Math.min(query.limit, MAX_DELIVERIES_PAGE + 1));
    if (query.destination !== undefined) select = select.where('d.destination', '=', query.destination);
    if (query.state !== undefined) select = select.where('d.state', '=', query.state);
    if (query.before !== undefined) select = select.where('d.id', '<', query.before);
    const rows = await select.execute();
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      kind: row.kind as NotificationKind,
      destination: row.destination,
      state: row.state,
      attempts: row.attempts,
      recordedAt: row.recorded_at,
      lastAttemptAt: row.last_attempt_at,
      lastStatus: row.last_status,
      lastError: row.last_error,
      nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
      deliveredAt: row.delivered_at,
    }));
  }

  /**
   * Puts dead letters back to pending, due now, with a new retry window (the operator's replay);
   * resolves with how many. Each keeps its event id, so a receiver that got one drops it.
   */
  async replayDead(filter: { destination?: string | undefined; eventId?: string | undefined } = {}): Promise<number> {
    const now = new Date(this.#now());
    let update = this.#db().updateTable('notification_delivery').set({ state: 'pending', attempts: 0, next_attempt_at: now, retry_since: now, lease_until: null }).where('state', '=', 'dead');
    if (filter.destination !== undefined) update = update.where('destination', '=', filter.destination);
    if (filter.eventId !== undefined) update = update.where('event_id', '=', filter.eventId);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Removes delivered deliveries and dead letters past their retention, and events left without a delivery, then vacuums the outbox; resolves with the deliveries removed. */
  async prune(): Promise<number> {
    const nowMs = this.#now();
    const db = this.#db();
    let removed = 0;
    for (const [state, olderThan, column] of [
      ['delivered', new Date(nowMs - RETENTION.deliveredMs), 'delivered_at'],
      ['dead', new Date(nowMs - RETENTION.deadMs), 'last_attempt_at'],
    ] as const) {
      for (;;) {
        const batch = await db
          .deleteFrom('notification_delivery')
          .where('id', 'in', (query) => query.selectFrom('notification_delivery').select('id').where('state', '=', state).where(column, '<', olderThan).limit(PRUNE_BATCH))
          .executeTakeFirst();
        const count = Number(batch.numDeletedRows);
        removed += count;
        if (count < PRUNE_BATCH) break;
      }
    }
    if (removed > 0) {
      await db
        .deleteFrom('notification_event')
        .where((eb) => eb.not(eb.exists(eb.selectFrom('notification_delivery').select(sql`1`.as('one')).whereRef('notification_delivery.event_id', '=', 'notification_event.id'))))
        .execute();
    }
    // Every delivery leaves dead row versions behind (its lease, its outcome, its removal). PGlite
    // runs no autovacuum (one process, no background workers): without this its outbox would keep
    // every one of them, on disk, and have no planner statistics. On PostgreSQL autovacuum does the
    // same; this costs it little. Not in a transaction (VACUUM cannot run in one).
    await sql`VACUUM (ANALYZE) notification_delivery, notification_event`.execute(db);
    return removed;
  }
}
