/**
 * The durable outbox and its delivery worker over a real recorder and a real database, on PGlite and
 * on PostgreSQL, with real receivers on 127.0.0.1: an event enters the outbox in the transaction of
 * the change it records; a receiver that fails 5 times, one that answers 429 with Retry-After, one
 * that never answers and one that verifies every signature with the standardwebhooks package; dead
 * letters and their replay; Discord's rate limit; the drain of a shutdown; one worker per delivery.
 */
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import type { Supporter, SupportersSnapshot, Tier } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import type { Goal } from '../../src/history/goals.js';
import { openDatabase } from '../../src/db/database.js';
import { createChannelHistory, type ChannelHistory } from '../../src/history/history-service.js';
import { DEFAULT_DISCORD_TEMPLATES } from '../../src/notifications/discord.js';
import type { DeliverySettings, Destination } from '../../src/notifications/destinations.js';
import { NOTIFICATION_FIELDS, type NotificationKind } from '../../src/notifications/events.js';
import { createNotifications, type Notifications } from '../../src/notifications/notifications.js';
import { createSafeAgent } from '../../src/notifications/safe-agent.js';
import { NotificationOutbox } from '../../src/notifications/outbox.js';
import { DeliveryWorker } from '../../src/notifications/worker.js';
import { OpenApiResponseValidator } from '../http/openapi-validator.js';
import { describeOnDatabases } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startNotificationReceiver, webhookSecret, type NotificationReceiver, type ReceiverAnswer, type ReceivedNotification } from '../support/notification-receiver.js';

const silent = { info() {}, warn() {}, error() {} };
const SECRET = webhookSecret();
const TIERS: Tier[] = [
  { id: 't5', platform: 'membership', title: 'Fan', amountCents: 500 },
  { id: 't10', platform: 'membership', title: 'Super fan', amountCents: 1000 },
];
const patron = (id: string, tierId = 't5', amountCents = 500): Supporter => ({ id, platform: 'membership', name: `P${id}`, tierId, amountCents, since: '2024-01-01T00:00:00.000Z' });
const ALL_KINDS = new Set<NotificationKind>(['supporter.joined', 'supporter.left', 'supporter.upgraded', 'supporter.downgraded', 'supporter.tier_changed', 'goal.reached']);
/** Short waits; an attempt's deadline long enough for a loaded machine (the tests of deadlines set theirs). */
const FAST: DeliverySettings = { attemptTimeoutMs: 5_000, firstRetryDelayMs: 20, maxRetryDelayMs: 200, retryForMs: 30_000 };

const webhook = (name: string, receiver: NotificationReceiver, overrides: Partial<Destination> = {}): Destination =>
  ({ name, type: 'webhook', url: `${receiver.url}/${name}`, secret: SECRET, events: ALL_KINDS, fields: new Set(NOTIFICATION_FIELDS), concurrency: 4, ...overrides }) as Destination;

interface Harness {
  history: ChannelHistory;
  notifications: Notifications;
  counts: Record<'delivered' | 'retried' | 'dead', number>;
  /** Sets the membership platform's patrons, refreshes it and waits for the recording. */
  refresh(patrons: Supporter[]): Promise<void>;
  deliveryRows(): Promise<Array<{ event_id: string; destination: string; state: string; attempts: number; lease_until: Date | null; last_error: string | null }>>;
  close(): Promise<void>;
}

/** Whose webhook-ids a receiver got, in order. */
const idsOf = (receiver: NotificationReceiver): string[] => receiver.received.map((request) => request.headers['webhook-id'] as string);
const bodyOf = (request: ReceivedNotification): { type: string; data: Record<string, unknown> } => JSON.parse(request.raw.toString()) as { type: string; data: Record<string, unknown> };

describeOnDatabases('the notifications outbox', (backend) => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const each of open.splice(0).reverse()) await each.close();
  });

  async function receiver(answer?: (index: number, request: ReceivedNotification) => ReceiverAnswer | Promise<ReceiverAnswer>): Promise<NotificationReceiver> {
    const started = await startNotificationReceiver(answer === undefined ? undefined : (request, index) => answer(index, request));
    open.push(started);
    return started;
  }

  async function harness(options: { destinations: Destination[]; delivery?: Partial<DeliverySettings>; goals?: Goal[]; initial?: Supporter[]; database?: Awaited<ReturnType<typeof backend.fresh>>; logger?: typeof silent }): Promise<Harness> {
    let patrons = options.initial ?? [patron('1')];
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const membership: UpstreamSource<SupportersSnapshot> = { name: 'membership', fetch: async () => ({ platform: 'membership', supporters: [...patrons], tiers: TIERS, fetchedAt: new Date(clock).toISOString() }) };
    const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: async () => ({ platform: 'video', supporters: [], tiers: [], fetchedAt: new Date(clock).toISOString() }) };
    const stats: UpstreamSource<{ subscribers: number; fetchedAt: string }> = { name: 'stats', fetch: async () => ({ subscribers: 1, fetchedAt: new Date(clock).toISOString() }) };
    const store = new SnapshotStore({ sources: { membership, video, stats }, refreshIntervalMs: 0, logger: silent });
    const database = options.database ?? (await backend.fresh());
    const history = createChannelHistory({ store, events: { announce() {} }, databaseUrl: database.url, dataDir: database.dataDir, goals: options.goals, logger: silent });
    const counts = { delivered: 0, retried: 0, dead: 0 };
    const notifications = createNotifications({
      config: { destinations: options.destinations, delivery: { ...FAST, ...options.delivery } },
      allowLoopback: true,
      history,
      logger: options.logger ?? silent,
      observer: { delivered: () => (counts.delivered += 1), retried: () => (counts.retried += 1), dead: () => (counts.dead += 1) },
      pollIntervalMs: 50,
    });
    await store.start();
    await history.database.opened();
    await eventually('the first snapshots to be recorded', async () => {
      await history.recorder.settled();
      return history.recorder.backlog.length === 0;
    });
    let closed = false;
    const h: Harness = {
      history,
      notifications,
      counts,
      async refresh(next) {
        patrons = next;
        clock += 300_000;
        await store.refresh('membership');
        await history.recorder.settled();
      },
      deliveryRows: () => history.database.get().db.selectFrom('notification_delivery').select(['event_id', 'destination', 'state', 'attempts', 'lease_until', 'last_error']).orderBy('id').execute(),
      async close() {
        if (closed) return;
        closed = true;
        await history.recorder.close();
        await notifications.close(1_000);
        await store.close();
        await history.close();
      },
    };
    open.push(h);
    return h;
  }

  it('an event enters the outbox in the transaction of the change it records, or neither is stored', async () => {
    const target = await receiver(() => ({ status: 503 }));
    const h = await harness({ destinations: [webhook('crm', target, { events: new Set(['supporter.joined']) })], delivery: { firstRetryDelayMs: 60_000, maxRetryDelayMs: 60_000 } });
    // A later hook that fails: the whole recording rolls back, its event with it.
    const failing = h.history.addRecordingHook(async () => {
      throw new Error('the recording fails after the outbox hook');
    });
    await h.refresh([patron('1'), patron('2')]);
    const db = h.history.database.get().db;
    const count = async (table: 'supporter_change' | 'notification_event') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count('supporter_change')).toBe(0);
    expect(await count('notification_event')).toBe(0);
    expect(h.history.recorder.backlog).toContain('membership');
    failing();
    // Recorded once the hook is gone: the change and its event, together; a kind no destination gets has none.
    await eventually('the recording to succeed', async () => {
      await h.history.recorder.settled();
      return h.history.recorder.backlog.length === 0;
    });
    await h.refresh([patron('2', 't10', 1000)]);
    expect(await count('supporter_change')).toBe(3);
    const events = await db.selectFrom('notification_event').select(['kind', 'body']).execute();
    expect(events.map((event) => event.kind)).toEqual(['supporter.joined']);
    expect(events[0]?.body).toMatchObject({ type: 'supporter.joined', data: { supporter: { id: '2', name: 'P2', platform: 'membership', tier: { id: 't5', title: 'Fan' }, amountCents: 500 } } });
  });

  it('a receiver that fails 5 times, then succeeds, gets the event 6 times under one webhook-id', async () => {
    const target = await receiver((index) => (index < 5 ? { status: 500 } : { status: 204 }));
    const h = await harness({ destinations: [webhook('crm', target)] });
    await h.refresh([patron('1'), patron('2')]);
    await eventually('the sixth attempt', () => h.counts.delivered === 1);
    expect(target.received).toHaveLength(6);
    expect(new Set(idsOf(target)).size).toBe(1);
    expect(h.counts).toEqual({ delivered: 1, retried: 5, dead: 0 });
    expect(await h.deliveryRows()).toMatchObject([{ state: 'delivered', attempts: 6, lease_until: null, last_error: null }]);
    // The backoff grows: each wait at least half its step (20, 40, 80, 160, 200 ms).
    const gaps = target.received.slice(1).map((request, index) => request.atMs - (target.received[index] as ReceivedNotification).atMs);
    [10, 20, 40, 80, 100].forEach((least, index) => expect(gaps[index], `gap ${index + 1}`).toBeGreaterThanOrEqual(least - 5));
  });

  it('a 429 with Retry-After is tried again no sooner than it says', async () => {
    const target = await receiver((index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }));
    const h = await harness({ destinations: [webhook('crm', target)] });
    await h.refresh([patron('1'), patron('2')]);
    await eventually('the retry', () => h.counts.delivered === 1);
    const [first, second] = target.received;
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(990);
    expect(idsOf(target)[0]).toBe(idsOf(target)[1]);
  });

  it('a receiver that never answers: each attempt ends at its deadline, then the delivery is a dead letter; a replay delivers it under the same id', async () => {
    let answering = false;
    const target = await receiver(() => (answering ? { status: 200 } : 'hang'));
    const h = await harness({ destinations: [webhook('crm', target)], delivery: { attemptTimeoutMs: 300, retryForMs: 1_200 } });
    await h.refresh([patron('1'), patron('2')]);
    await eventually('the dead letter', () => h.counts.dead === 1, { timeoutMs: 15_000 });
    const [dead] = await h.deliveryRows();
    expect(dead).toMatchObject({ state: 'dead', last_error: 'no complete answer within 300 ms', lease_until: null });
    expect(dead?.attempts).toBeGreaterThanOrEqual(2);
    expect(target.received.length).toBe(dead?.attempts);
    answering = true;
    expect(await h.notifications.outbox.replayDead({ destination: 'crm' })).toBe(1);
    h.notifications.worker.wake();
    await eventually('the replayed delivery', () => h.counts.delivered === 1);
    expect(new Set(idsOf(target))).toEqual(new Set([dead?.event_id]));
    expect(await h.notifications.outbox.replayDead()).toBe(0);
  });

  it('every delivery verifies with the standardwebhooks verifier and conforms to the contract\'s webhooks, for every kind, goals included, with the destination\'s fields only', async () => {
    const verified: unknown[] = [];
    const target = await receiver((_index, request) => {
      try {
        verified.push(new Webhook(SECRET).verify(request.raw, request.headers as Record<string, string>));
        return { status: 204 };
      } catch {
        return { status: 401 };
      }
    });
    const goal: Goal = { id: 'four', title: 'Four patrons', measure: 'members', platform: null, target: 4 };
    const h = await harness({ destinations: [webhook('crm', target, { fields: new Set(['name', 'tier']) })], goals: [goal], initial: [patron('1'), patron('2', 't10', 1000), patron('4', 't5', 500)] });
    await h.refresh([patron('1', 't10', 1000), patron('2', 't5', 500), patron('3'), patron('5')]);
    await eventually('every event', () => h.counts.delivered === 6);
    expect(await h.deliveryRows()).toMatchObject(Array.from({ length: 6 }, () => ({ state: 'delivered', attempts: 1 })));
    const kinds = verified.map((event) => (event as { type: string }).type).sort();
    expect(kinds).toEqual(['goal.reached', 'supporter.downgraded', 'supporter.joined', 'supporter.joined', 'supporter.left', 'supporter.upgraded']);
    const upgraded = target.received.map(bodyOf).find((body) => body.type === 'supporter.upgraded');
    expect(upgraded?.data).toEqual({ supporter: { name: 'P1', tier: { id: 't10', title: 'Super fan' } }, previous: { tier: { id: 't5', title: 'Fan' } } });
    const reached = target.received.map(bodyOf).find((body) => body.type === 'goal.reached');
    expect(reached?.data).toEqual({ goal: { id: 'four', title: 'Four patrons', metric: 'members', platform: null, target: 4, current: 4, progress: 1 } });
    // Each as openapi/channel-api.yaml's webhooks declare it: headers and body.
    const contract = new OpenApiResponseValidator();
    for (const request of target.received) expect(contract.validateWebhook(request.headers, request.raw.toString()), bodyOf(request).type).toEqual([]);
  });

  it("what a failing destination leaves in the log and the outbox names neither its secret nor its URL's tokens, and never quotes its answer", async () => {
    const MARKER = 'answer-body-marker';
    const target = await receiver((index) =>
      index % 2 === 0
        ? { status: 500, headers: { 'content-type': 'text/plain' }, body: `${MARKER} ${SECRET} stack trace` }
        : { status: 429, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: MARKER, retry_after: 0.01, global: false }) },
    );
    const logged: string[] = [];
    const capture = (...args: unknown[]): void => void logged.push(JSON.stringify(args));
    const crm = webhook('crm', target, { url: `${target.url}/hooks/path-token-value?key=query-token-value`, events: new Set(['supporter.joined']) });
    const discord: Destination = { name: 'welcome', type: 'discord', url: `${target.url}/api/webhooks/1/discord-token-value`, events: new Set(['supporter.joined']), fields: new Set(['name']), concurrency: 1, templates: DEFAULT_DISCORD_TEMPLATES };
    const h = await harness({ destinations: [crm, discord], delivery: { retryForMs: 400 }, logger: { info: capture, warn: capture, error: capture } });
    await h.refresh([patron('1'), patron('2')]);
    await eventually('both dead letters', () => h.counts.dead === 2, { timeoutMs: 15_000 });
    const rows = await h.deliveryRows();
    expect(rows.map((row) => row.state)).toEqual(['dead', 'dead']);
    for (const row of rows) expect(row.last_error).toMatch(/^answered (429|500)$/);
    // The log says what happened: each destination failing, each dead letter.
    expect(logged.filter((line) => line.includes('dead letter'))).toHaveLength(2);
    const written = [...logged, ...rows.map((row) => JSON.stringify(row))].join('\n');
    for (const secret of [MARKER, SECRET, 'path-token-value', 'query-token-value', 'discord-token-value', 'stack trace']) expect(written).not.toContain(secret);
  });

  it('a destination that answers again gets its backlog at once, not after its backoff', async () => {
    let down = true;
    const target = await receiver(() => (down ? { status: 503 } : { status: 204 }));
    const h = await harness({ destinations: [webhook('crm', target)], delivery: { firstRetryDelayMs: 60_000, maxRetryDelayMs: 60_000, retryForMs: 3_600_000 } });
    await h.refresh([patron('1'), patron('2'), patron('3'), patron('4')]);
    await eventually('three failed attempts', () => h.counts.retried === 3, { detail: () => JSON.stringify({ counts: h.counts, received: target.received.length }) });
    down = false;
    // The next event is tried at once and taken: the three that wait a minute for their retry follow it now.
    await h.refresh([patron('1'), patron('2'), patron('3'), patron('4'), patron('5')]);
    await eventually('the backlog', () => h.counts.delivered === 4, { timeoutMs: 15_000 });
    expect(new Set(idsOf(target)).size).toBe(4);
  });

  it("a Discord destination waits out its rate limit: an empty bucket holds the next message until the reset", async () => {
    const target = await receiver((index) => (index === 0 ? { status: 204, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.2' } } : { status: 204 }));
    const discord: Destination = { name: 'welcome', type: 'discord', url: `${target.url}/api/webhooks/1/token`, events: ALL_KINDS, fields: new Set(['name']), concurrency: 1, templates: DEFAULT_DISCORD_TEMPLATES };
    const h = await harness({ destinations: [discord] });
    await h.refresh([patron('1'), patron('2'), patron('3')]);
    await eventually('both messages', () => h.counts.delivered === 2);
    const [first, second] = target.received;
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(1_150);
    expect(target.received.map((request) => (JSON.parse(request.raw.toString()) as { embeds: Array<{ title: string }> }).embeds[0]?.title)).toEqual(['🎉 Welcome, P2!', '🎉 Welcome, P3!']);
  });

  it('a shutdown drains what is due, and stops at its deadline: a delivery in flight is released, its attempt not counted', async () => {
    const fast = await receiver();
    const hung = await receiver(() => 'hang');
    const h = await harness({ destinations: [webhook('fast', fast, { events: new Set(['supporter.joined']) }), webhook('hung', hung, { events: new Set(['supporter.left']) })], delivery: { attemptTimeoutMs: 10_000 } });
    await h.history.recorder.close();
    // Events written, the worker not told: the drain must find them itself.
    await h.history.database.get().db.transaction().execute((tx) =>
      h.notifications.outbox.enqueue(tx, [
        ...Array.from({ length: 10 }, (_, index) => ({ kind: 'supporter.joined' as const, at: new Date().toISOString(), supporter: { id: `j${index}`, platform: 'membership' as const, name: null, tier: null, amountCents: 100 } })),
        { kind: 'supporter.left', at: new Date().toISOString(), supporter: { id: 'gone', platform: 'membership', name: null, tier: null, amountCents: 100 } },
      ]),
    );
    const started = performance.now();
    await h.notifications.close(3_000);
    const tookMs = performance.now() - started;
    expect(tookMs).toBeGreaterThanOrEqual(2_990);
    expect(tookMs).toBeLessThan(6_000);
    expect(fast.received).toHaveLength(10);
    expect(hung.received).toHaveLength(1);
    const rows = await h.deliveryRows();
    expect(rows.filter((row) => row.destination === 'fast').every((row) => row.state === 'delivered')).toBe(true);
    expect(rows.find((row) => row.destination === 'hung')).toMatchObject({ state: 'pending', attempts: 0, lease_until: null });
  });

  it('one worker delivers each event: two workers over the same outbox share 200 deliveries without a duplicate', async () => {
    const target = await receiver();
    const destination = webhook('crm', target, { concurrency: 6 });
    const database = await backend.fresh();
    const h = await harness({ destinations: [destination], database });
    await h.history.recorder.close();
    await h.notifications.close(0);
    const db = h.history.database.get().db;
    await db.transaction().execute((tx) =>
      h.notifications.outbox.enqueue(tx, Array.from({ length: 200 }, (_, index) => ({ kind: 'supporter.joined' as const, at: new Date().toISOString(), supporter: { id: `s${index}`, platform: 'membership' as const, name: null, tier: null, amountCents: 100 } }))),
    );
    // Two replicas: two outboxes and workers; on PostgreSQL each with connections of its own.
    const replicas = await Promise.all(
      [0, 1].map(async () => {
        const own = database.url === undefined ? undefined : await openDatabase({ url: database.url });
        const dispatcher = createSafeAgent({ allowLoopback: true, connectTimeoutMs: 1_000 });
        const outbox = new NotificationOutbox({ db: () => own?.db ?? db, destinations: [destination] });
        const worker = new DeliveryWorker({ store: outbox, config: { destinations: [destination], delivery: FAST }, dispatcher, logger: silent, pollIntervalMs: 20 });
        open.push({ close: async () => own?.close() });
        return { worker, dispatcher };
      }),
    );
    for (const { worker } of replicas) worker.start();
    await eventually('every delivery', async () => (await h.deliveryRows()).every((row) => row.state === 'delivered'), { timeoutMs: 60_000, detail: () => `received ${target.received.length}` });
    for (const { worker, dispatcher } of replicas) {
      await worker.close(0);
      await dispatcher.close();
    }
    expect(target.received).toHaveLength(200);
    expect(new Set(idsOf(target)).size).toBe(200);
  });

  it('removes delivered deliveries after 7 days and dead letters after 30, and an event with its last delivery, and vacuums the outbox', async () => {
    const target = await receiver();
    const destination = webhook('crm', target);
    const h = await harness({ destinations: [destination] });
    await h.history.recorder.close();
    await h.notifications.close(0);
    const db = h.history.database.get().db;
    const clock = { now: Date.parse('2026-03-01T00:00:00Z') };
    const outbox = new NotificationOutbox({ db: () => db, destinations: [destination], now: () => clock.now });
    const at = new Date(clock.now).toISOString();
    await db.transaction().execute((tx) =>
      outbox.enqueue(tx, ['a', 'b', 'c'].map((id) => ({ kind: 'supporter.joined' as const, at, supporter: { id, platform: 'membership' as const, name: null, tier: null, amountCents: 100 } }))),
    );
    const [first, second, third] = await outbox.claim('crm', 3, 60_000);
    await outbox.delivered(first!.id, { atMs: clock.now, status: 204, error: null });
    await outbox.dead(second!.id, { atMs: clock.now, status: 500, error: 'answered 500' });
    const events = async () => (await db.selectFrom('notification_event').select('id').orderBy('id').execute()).map((row) => row.id).sort();
    clock.now += 6 * 86_400_000;
    expect(await outbox.prune()).toBe(0);
    clock.now += 2 * 86_400_000;
    expect(await outbox.prune()).toBe(1);
    expect(await events()).toEqual([second!.event.id, third!.event.id].sort());
    clock.now += 23 * 86_400_000;
    expect(await outbox.prune()).toBe(1);
    // The pending one stays, however old: it is not sent yet.
    expect(await events()).toEqual([third!.event.id]);
    expect((await h.deliveryRows()).map((row) => row.state)).toEqual(['pending']);
    // And the outbox is vacuumed: on PGlite, which runs no autovacuum, nothing else would.
    const vacuumed = async () => (await sql<{ relname: string; last_vacuum: Date | null }>`SELECT relname, last_vacuum FROM pg_stat_user_tables WHERE relname IN ('notification_delivery', 'notification_event')`.execute(db)).rows;
    await eventually('the outbox vacuumed', async () => (await vacuumed()).filter((row) => row.last_vacuum !== null).length === 2);
  });
});
