/**
 * Two replicas of the app (two createChannelApp, each with its own DATA_DIR) on one PostgreSQL
 * server, reading one upstream sandbox: a change both of them see is recorded once, so its event is
 * in the outbox once, and each delivery is sent by one of them (FOR UPDATE SKIP LOCKED and a lease):
 * the receiver gets every event exactly once, and both replicas take a share.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyChannelWebhook } from '@channel-graph/client/webhooks';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import type { Destination } from '../../src/notifications/destinations.js';
import { NOTIFICATION_FIELDS } from '../../src/notifications/events.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, silentLogger, testConfig } from '../http/harness.js';
import { eventually } from '../support/eventually.js';
import { startNotificationReceiver, webhookSecret, type NotificationReceiver } from '../support/notification-receiver.js';
import { POSTGRES, startPostgresServer, type RunningPostgres } from '../support/postgres-server.js';
import { describeWithBinary } from '../support/system-binary.js';

const SECRET = webhookSecret();
const PATRONS = 60;

describeWithBinary(POSTGRES, 'notifications of two replicas on one PostgreSQL', (path) => {
  let server: RunningPostgres;
  let sandbox: RunningSandbox;
  const open: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    server = await startPostgresServer(path);
    sandbox = await startSandbox({ patrons: PATRONS, accessTokenTtlSeconds: 3600 });
  }, 120_000);
  afterAll(async () => {
    for (const each of open.splice(0).reverse()) await each.close();
    await sandbox?.close();
    await server?.remove();
  });

  async function replica(databaseUrl: string, destination: Destination): Promise<ChannelApp & { history: NonNullable<ChannelApp['history']> }> {
    const dataDir = await makeDataDir();
    const app = await createChannelApp(
      testConfig(dataDir.path, liveUpstream(sandbox), {
        history: true,
        databaseUrl,
        notifications: { destinations: [destination], delivery: { attemptTimeoutMs: 5_000, firstRetryDelayMs: 50, maxRetryDelayMs: 200, retryForMs: 60_000 } },
        notificationsAllowLoopback: true,
      }),
      { logger: silentLogger },
    );
    open.push({
      async close() {
        await app.close();
        await dataDir.remove();
      },
    });
    const { history } = app;
    if (history === undefined) throw new Error('the app has no history');
    await eventually('the history database to open', () => history.health().state === 'open', { timeoutMs: 30_000 });
    return Object.assign(app, { history });
  }

  const settle = async (app: ChannelApp & { history: NonNullable<ChannelApp['history']> }): Promise<void> => {
    await app.store.refresh('membership');
    await eventually('the recording', async () => {
      await app.history.recorder.settled();
      return app.history.recorder.backlog.length === 0;
    });
  };

  const deliveredBy = async (app: ChannelApp): Promise<number> => Number(/channel_notifications_delivered_total\{destination="crm"\} (\d+)/.exec(await app.metrics())?.[1] ?? Number.NaN);

  it('each event is recorded once and delivered once, by one replica or the other', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('CREATE DATABASE notifications_replicas');
    await client.end();
    const databaseUrl = server.url.replace(/\/postgres$/, '/notifications_replicas');
    // Each answer takes a while: one replica alone (2 at a time) would need seconds for them all, so
    // the other finds due deliveries at its next look at the outbox.
    const target: NotificationReceiver = await startNotificationReceiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { status: 204 };
    });
    open.push(target);
    const destination: Destination = { name: 'crm', type: 'webhook', url: `${target.url}/hooks`, secret: SECRET, events: new Set(['supporter.left']), fields: new Set(NOTIFICATION_FIELDS), concurrency: 2 };
    const first = await replica(databaseUrl, destination);
    const second = await replica(databaseUrl, destination);
    await settle(first);
    await settle(second);

    // Every active patron leaves; both replicas refresh and record what they see.
    const active = sandbox.datasets.membership.slice(0, PATRONS).flatMap((member, index) => (member.patronStatus === 'active_patron' ? [index] : []));
    expect(active.length).toBeGreaterThanOrEqual(20);
    for (const index of active) sandbox.datasets.membership.override(index, { patronStatus: 'former_patron' });
    await Promise.all([settle(first), settle(second)]);

    const db = first.history.database.get().db;
    const events = await db.selectFrom('notification_event').select(['id', 'kind']).execute();
    expect(events).toHaveLength(active.length);
    expect(events.every((event) => event.kind === 'supporter.left')).toBe(true);

    await eventually('every event at the receiver', () => target.received.length >= events.length, { timeoutMs: 60_000, detail: () => `${target.received.length} of ${events.length}` });
    await eventually('every delivery recorded', async () => (await db.selectFrom('notification_delivery').select('state').where('state', '!=', 'delivered').execute()).length === 0);
    const ids = target.received.map((request) => verifyChannelWebhook(request.raw, request.headers, SECRET).id);
    expect(ids).toHaveLength(events.length);
    expect(new Set(ids)).toEqual(new Set(events.map((event) => event.id)));
    const [byFirst, bySecond] = [await deliveredBy(first), await deliveredBy(second)];
    expect(byFirst + bySecond).toBe(events.length);
    expect(byFirst, 'deliveries by the first replica').toBeGreaterThan(0);
    expect(bySecond, 'deliveries by the second replica').toBeGreaterThan(0);
  }, 180_000);
});
