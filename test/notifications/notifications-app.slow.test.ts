/**
 * The notifications through the whole app (createChannelApp over the sandbox), on PGlite and on
 * PostgreSQL: a supporter change reaches a webhook receiver; the deliveries view in REST (validated
 * against openapi/channel-api.yaml) and in the graph (through @channel-graph/client's typed
 * operation); /metrics counts pending, delivered, retried and dead per destination; the operator's
 * replay sends the dead letters again under their own ids.
 */
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { NotificationDeliveriesDocument, request as graphRequest } from '@channel-graph/client/graphql';
import { verifyChannelWebhook } from '@channel-graph/client/webhooks';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import type { Destination } from '../../src/notifications/destinations.js';
import { NOTIFICATION_FIELDS } from '../../src/notifications/events.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { makeDataDir, request, silentLogger, testConfig, validator } from '../http/harness.js';
import { describeOnDatabases } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startNotificationReceiver, webhookSecret, type NotificationReceiver } from '../support/notification-receiver.js';

const SECRET = webhookSecret();
const REPLAY_TOKEN = 'replay-token-Pq7';

describeOnDatabases('notifications through the app', (backend) => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const each of open.splice(0).reverse()) await each.close();
  });

  const destination = (name: string, receiver: NotificationReceiver): Destination => ({
    name,
    type: 'webhook',
    url: `${receiver.url}/${name}`,
    secret: SECRET,
    events: new Set(['supporter.joined', 'supporter.left', 'supporter.upgraded', 'supporter.downgraded', 'supporter.tier_changed']),
    fields: new Set(NOTIFICATION_FIELDS),
    concurrency: 4,
  });

  type RunningApp = ChannelApp & { sandbox: RunningSandbox; history: NonNullable<ChannelApp['history']>; notifications: NonNullable<ChannelApp['notifications']> };

  async function start(destinations: Destination[]): Promise<RunningApp> {
    const dataDir = await makeDataDir();
    const database = await backend.fresh();
    if (database.dataDir !== undefined) {
      await mkdir(join(dataDir.path, 'sandbox'), { recursive: true });
      await cp(database.dataDir, join(dataDir.path, 'sandbox', 'database'), { recursive: true });
    }
    const app = await createChannelApp(
      testConfig(dataDir.path, { mode: 'sandbox' }, {
        history: true,
        ...(database.url === undefined ? {} : { databaseUrl: database.url }),
        notifications: { destinations, delivery: { attemptTimeoutMs: 5_000, firstRetryDelayMs: 50, maxRetryDelayMs: 200, retryForMs: 1_500 } },
        notificationsAllowLoopback: true,
        notificationsReplayToken: REPLAY_TOKEN,
      }),
      { logger: silentLogger, sandbox: { patrons: 30 } },
    );
    open.push({
      async close() {
        await app.close();
        await dataDir.remove();
      },
    });
    const { history, notifications, sandbox } = app;
    if (history === undefined || notifications === undefined || sandbox === undefined) throw new Error('the app has no history, notifications or sandbox');
    await eventually('the history database to open', () => history.health().state === 'open', { timeoutMs: 30_000 });
    await eventually('the first snapshots to be recorded', async () => {
      await history.recorder.settled();
      return history.recorder.backlog.length === 0 && app.store.current('membership') !== null;
    });
    return Object.assign(app, { history, notifications, sandbox });
  }

  /** Two patrons leave and one moves to the top tier; the membership source is refreshed and recorded. */
  async function changeSupporters(app: RunningApp): Promise<void> {
    app.sandbox.datasets.membership.override(0, { patronStatus: 'former_patron' });
    app.sandbox.datasets.membership.override(1, { patronStatus: 'former_patron' });
    app.sandbox.datasets.membership.override(2, { entitledTierIds: ['8100004'], currentlyEntitledAmountCents: 2500, patronStatus: 'active_patron' });
    await app.store.refresh('membership');
    await app.history.recorder.settled();
  }

  it('sends each recorded change, shows the deliveries in REST and in the graph, counts them in /metrics, and replays the dead letters', async () => {
    let brokenAnswers = 500;
    const crm = await startNotificationReceiver();
    const broken = await startNotificationReceiver(() => ({ status: brokenAnswers }));
    open.push(crm, broken);
    const app = await start([destination('crm', crm), destination('broken', broken)]);
    await changeSupporters(app);
    const changes = await app.history.database.get().db.selectFrom('supporter_change').select('kind').execute();
    expect(changes.length).toBeGreaterThanOrEqual(3);
    await eventually('every change at the receiver', () => crm.received.length === changes.length);
    const ids = crm.received.map((request) => verifyChannelWebhook(request.raw, request.headers, SECRET).id);
    expect(new Set(ids).size).toBe(changes.length);
    const kinds = crm.received.map((request) => verifyChannelWebhook(request.raw, request.headers, SECRET).event.type).sort();
    expect(kinds).toEqual(changes.map((change) => `supporter.${change.kind}`).sort());
    // Every field a webhook may carry, as the contract's webhooks declare them.
    for (const received of crm.received) expect(validator.validateWebhook(received.headers, received.raw.toString())).toEqual([]);

    await eventually('the broken destination\'s dead letters', async () => (await app.notifications.outbox.counts()).some((row) => row.destination === 'broken' && row.state === 'dead' && row.count === changes.length));

    // REST: newest first, one a page, the Link header leading to the next; every answer checked against the contract.
    const seen: string[] = [];
    let next: string | undefined = '/notifications/deliveries?destination=crm&limit=1';
    while (next !== undefined) {
      const page = await request(app.url, 'GET', next);
      expect(page.status).toBe(200);
      const body = page.json<{ deliveries: Array<{ event_id: string; state: string; attempts: number; last_status: number | null }> }>();
      for (const delivery of body.deliveries) expect(delivery).toMatchObject({ state: 'delivered', attempts: 1, last_status: 204 });
      seen.push(...body.deliveries.map((delivery) => delivery.event_id));
      const link = page.headers.get('link');
      next = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    }
    expect(seen.sort()).toEqual([...ids].sort());
    const dead = await request(app.url, 'GET', '/notifications/deliveries?state=dead');
    expect(dead.json<{ deliveries: Array<{ destination: string; last_error: string; next_attempt_at: null }> }>().deliveries).toEqual(
      Array.from({ length: changes.length }, () => expect.objectContaining({ destination: 'broken', last_error: 'answered 500', next_attempt_at: null })),
    );
    expect((await request(app.url, 'GET', '/notifications/deliveries?cursor=not-a-cursor')).status).toBe(400);

    // The graph, through the client's typed operation.
    const graph = await graphRequest(`${app.url}/graphql`, NotificationDeliveriesDocument, { state: 'DEAD', first: 100 });
    expect(graph.notificationDeliveries?.edges.map((edge) => edge.node)).toEqual(
      Array.from({ length: changes.length }, () => expect.objectContaining({ destination: 'broken', state: 'DEAD', lastStatus: 500, lastError: 'answered 500', nextAttemptAt: null })),
    );
    expect(graph.notificationDeliveries?.pageInfo.hasNextPage).toBe(false);

    const metrics = await app.metrics();
    expect(metrics).toContain(`channel_notifications_pending{destination="crm"} 0`);
    expect(metrics).toContain(`channel_notifications_dead{destination="broken"} ${changes.length}`);
    expect(metrics).toContain(`channel_notifications_dead{destination="crm"} 0`);
    expect(metrics).toContain(`channel_notifications_delivered_total{destination="crm"} ${changes.length}`);
    expect(metrics).toContain(`channel_notifications_dead_letters_total{destination="broken"} ${changes.length}`);
    // Each failed attempt is counted once: retried, or the last one, dead (under load, a first attempt may come after the window).
    const retried = Number(/channel_notifications_retried_total\{destination="broken"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    expect(retried + changes.length).toBe(broken.received.length);

    // The operator's replay: refused without the token, then every dead letter sent again under its own id.
    brokenAnswers = 204;
    const failedIds = new Set(broken.received.map((request) => request.headers['webhook-id']));
    expect((await request(app.url, 'POST', '/notifications/replay', { body: '{}' })).status).toBe(401);
    const replay = await request(app.url, 'POST', '/notifications/replay', { headers: { authorization: `Bearer ${REPLAY_TOKEN}`, 'content-type': 'application/json' }, body: '{"destination":"broken"}' });
    expect(replay.json()).toEqual({ replayed: changes.length });
    await eventually('the replayed deliveries', async () => (await app.notifications.outbox.counts()).every((row) => row.count === 0));
    const delivered = broken.received.slice(-changes.length);
    expect(new Set(delivered.map((request) => request.headers['webhook-id']))).toEqual(failedIds);
    expect(await app.metrics()).toContain(`channel_notifications_dead{destination="broken"} 0`);
  }, 120_000);
});
