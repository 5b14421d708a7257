/**
 * The notifications of the service as a process (src/main.ts, built, on plain node, in sandbox mode
 * over its embedded database): configuration mistakes stop it with exit 78 and one line; SIGTERM
 * sends what is due before the process exits, and what its deadline left is sent after the restart;
 * `kill -9` with 100 events undelivered loses none: after the restart every one arrives, and a
 * duplicate carries the same webhook-id. The replay command asks the running service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyChannelWebhook } from '@channel-graph/client/webhooks';
import { builtModule, START_NODE_FLAGS } from '../support/built-module.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/npm-start.js';
import { startNotificationReceiver, webhookSecret, type NotificationReceiver, type ReceiverAnswer } from '../support/notification-receiver.js';

const SECRET = webhookSecret();
const REPLAY_TOKEN = 'replay-token-Jx5';
let cwd: string;
const running = new Set<Service>();
const receivers: NotificationReceiver[] = [];

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'channel-notifications-service-'));
});
afterEach(async () => {
  for (const service of running) service.child.kill('SIGKILL');
  await Promise.all([...running].map((service) => service.exited));
  running.clear();
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await rm(cwd, { recursive: true, force: true });
});

interface Service {
  child: ChildProcess;
  url: string;
  sandboxUrl: string;
  output(): string;
  exited: Promise<number | null>;
}

function run(entry: string, args: readonly string[], env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...START_NODE_FLAGS, builtModule(entry), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const SERVICE_ENV = {
  PORT: '0',
  SANDBOX_PORT: '0',
  SANDBOX_PATRONS: '300',
  REFRESH_INTERVAL_SECONDS: '0',
  NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
  NOTIFICATIONS_REPLAY_TOKEN: REPLAY_TOKEN,
};

async function startService(env: Record<string, string> = {}): Promise<Service> {
  const { child, output, exited } = run('src/main.ts', [], { ...SERVICE_ENV, DATA_DIR: join(cwd, 'data'), ...env });
  const service: Service = { child, output, exited, url: '', sandboxUrl: '' };
  running.add(service);
  void exited.then(() => running.delete(service));
  service.url = await eventually('the listening line', () => /channel api listening on (http:\/\/\S+)/.exec(output())?.[1], { timeoutMs: 60_000, detail: output });
  service.sandboxUrl = await eventually('the sandbox line', () => /sandbox platforms at (http:\/\/\S+) /.exec(output())?.[1], { detail: output });
  // The embedded database opens beside the first refresh: its deliveries view answers once it is open.
  await eventually('the database to open', async () => (await fetch(`${service.url}/notifications/deliveries?limit=1`).catch(() => undefined))?.status === 200, { timeoutMs: 120_000, detail: output });
  return service;
}

async function writeDestinations(receiver: NotificationReceiver, delivery: Record<string, number>, concurrency = 8, events = ['supporter.left']): Promise<void> {
  const destination = { name: 'crm', type: 'webhook', url: `${receiver.url}/hooks`, secret: SECRET, events, concurrency };
  await writeFile(join(cwd, 'notifications.json'), JSON.stringify({ destinations: [destination], delivery }));
}

async function receiver(answer: () => ReceiverAnswer | Promise<ReceiverAnswer>): Promise<NotificationReceiver> {
  const started = await startNotificationReceiver(answer);
  receivers.push(started);
  return started;
}

/** Sends one pledge webhook of `event` about each of `members` from the sandbox to the service. */
async function pledgeWebhooks(service: Service, event: 'members:pledge:create' | 'members:pledge:delete', members: readonly string[]): Promise<void> {
  for (const memberId of members) {
    const answer = await fetch(`${service.sandboxUrl}/__sandbox/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${service.url}/membership/webhook`, event, memberId }),
    });
    expect(((await answer.json()) as { status: number }).status).toBe(204);
  }
}

/** The ids of the active patrons, as the service lists them. */
async function activePatrons(service: Service): Promise<string[]> {
  return ((await (await fetch(`${service.url}/membership/pledges`)).json()) as { users: Array<{ id: string }> }).users.map((user) => user.id);
}

/** `count` active patrons leave, each by a pledge webhook. */
async function patronsLeave(service: Service, count: number): Promise<void> {
  const active = await activePatrons(service);
  expect(active.length).toBeGreaterThanOrEqual(count);
  await pledgeWebhooks(service, 'members:pledge:delete', active.slice(0, count));
}

/** The event ids of the deliveries in `state`, as the service shows them. */
async function deliveryIds(service: Service, state: 'pending' | 'delivered'): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined = `/notifications/deliveries?state=${state}&limit=100`;
  while (next !== undefined) {
    const page: Response = await fetch(`${service.url}${next}`);
    ids.push(...((await page.json()) as { deliveries: Array<{ event_id: string }> }).deliveries.map((delivery) => delivery.event_id));
    next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
  }
  return ids;
}

/** The ids a receiver answered 2xx to (verified: a forged delivery would not count). */
const acceptedIds = (received: NotificationReceiver['received'], accepted: ReadonlySet<number>): string[] =>
  received.filter((_request, index) => accepted.has(index)).map((request) => verifyChannelWebhook(request.raw, request.headers, SECRET).id);

describe('notifications.json at start', () => {
  it('a bad URL, a wrong secret format, an unknown event kind: exit 78 and one line each, no secret', async () => {
    const good = { name: 'crm', type: 'webhook', url: 'https://hooks.example.com/in/path-token-value', secret: SECRET, events: ['supporter.joined'] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'ftp://hooks.example.com/in/path-token-value' }, 'destinations[crm].url: expected an https URL (http only to a loopback host, with NOTIFICATIONS_ALLOW_LOOPBACK=true)'],
      [{ secret: 'not-a-whsec-secret-value' }, 'destinations[crm].secret: expected a Standard Webhooks secret: whsec_ followed by the base64 of 24-64 random bytes'],
      [{ events: ['supporter.renamed'] }, 'destinations[crm].events[0]: expected an event kind: one of supporter.joined, supporter.left, supporter.upgraded, supporter.downgraded, supporter.tier_changed, goal.reached'],
    ];
    for (const [change, line] of cases) {
      await writeFile(join(cwd, 'notifications.json'), JSON.stringify({ destinations: [{ ...good, ...change }] }));
      const { output, exited } = run('src/main.ts', [], { PORT: '0', SANDBOX_PORT: '0', DATA_DIR: join(cwd, 'data') });
      expect(await exited).toBe(78);
      expect(output()).toBe(`configuration error: ${join(cwd, 'notifications.json')}: ${line}\n`);
      for (const secret of [SECRET, 'path-token-value', 'not-a-whsec-secret-value']) expect(output()).not.toContain(secret);
    }
  });
});

describe('the service as a process', () => {
  it('SIGTERM sends what is due before the exit; what its deadline leaves is sent after the restart', async () => {
    let delayMs = 100;
    const accepted = new Set<number>();
    let index = 0;
    const target = await receiver(async () => {
      const mine = index++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      accepted.add(mine);
      return { status: 204 };
    });
    await writeDestinations(target, { attemptTimeoutMs: 5_000, firstRetryDelayMs: 200, maxRetryDelayMs: 1_000 }, 1);
    // A long shutdown timeout: the 20 events (about 2 s at one at a time) are all sent before the exit.
    const first = await startService({ SHUTDOWN_TIMEOUT_MS: '30000' });
    await patronsLeave(first, 20);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(new Set(acceptedIds(target.received, accepted)).size).toBe(20);
    expect(first.output()).not.toContain('notifications: the shutdown deadline came');

    // A short one, a slow receiver: the drain stops at its deadline; the rest (the one in flight released) after the restart.
    delayMs = 700;
    const second = await startService({ SHUTDOWN_TIMEOUT_MS: '2000' });
    await patronsLeave(second, 10);
    await eventually('a delivery in flight', () => target.received.length > 20);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('notifications: the shutdown deadline came before every due delivery was sent; the rest are sent after the next start');
    const beforeRestart = new Set(acceptedIds(target.received, accepted));
    expect(beforeRestart.size).toBeLessThan(30);
    delayMs = 0;
    const third = await startService({ SHUTDOWN_TIMEOUT_MS: '30000' });
    await eventually('every event', () => new Set(acceptedIds(target.received, accepted)).size === 30, { timeoutMs: 30_000 });
    expect(await deliveryIds(third, 'pending')).toEqual([]);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 240_000);

  it('kill -9 with 100 events undelivered: after the restart every one arrives, and a duplicate carries the same webhook-id', async () => {
    let answering = false;
    const accepted = new Set<number>();
    let index = 0;
    // Before the crash the receiver takes the requests and never answers: deliveries are in flight (leased) or waiting for a retry.
    const target = await receiver(() => {
      const mine = index++;
      if (!answering) return 'hang';
      accepted.add(mine);
      return { status: 204 };
    });
    await writeDestinations(target, { attemptTimeoutMs: 1_000, firstRetryDelayMs: 200, maxRetryDelayMs: 1_000, retryForMs: 3_600_000 }, 8, ['supporter.joined', 'supporter.left']);
    // A refresh every second: a state the webhooks bring back (every patron gone, as after the first
    // round) is a snapshot of another time, not one the history has recorded already.
    const first = await startService({ REFRESH_INTERVAL_SECONDS: '1' });
    // The sandbox's patrons leave and come back, round after round, until 100 events wait in the outbox
    // (each round waits for its recording: a patron's leave and return recorded together would be no change).
    const patrons = await activePatrons(first);
    let expected = 0;
    for (let round = 0; expected < 100; round += 1) {
      const members = patrons.slice(0, Math.min(patrons.length, 100 - expected));
      await pledgeWebhooks(first, round % 2 === 0 ? 'members:pledge:delete' : 'members:pledge:create', members);
      expected += members.length;
      let count = 0;
      await eventually(`${expected} events in the outbox`, async () => (count = (await deliveryIds(first, 'pending')).length) === expected, { timeoutMs: 30_000, detail: () => `${count} there` });
    }
    const pending = await deliveryIds(first, 'pending');
    expect(pending).toHaveLength(100);
    await eventually('deliveries in flight', () => target.received.length >= 8);
    first.child.kill('SIGKILL');
    await first.exited;
    const sentBeforeCrash = new Set(target.received.map((request) => request.headers['webhook-id'] as string));
    expect(sentBeforeCrash.size).toBeGreaterThan(0);

    answering = true;
    const second = await startService({ REFRESH_INTERVAL_SECONDS: '1' });
    await eventually('every event at the receiver', () => pending.every((id) => acceptedIds(target.received, accepted).includes(id)), { timeoutMs: 60_000, detail: second.output });
    // Every request before the crash is one of the 100 events, under its own id.
    for (const id of sentBeforeCrash) expect(pending).toContain(id);
    // A duplicate is the same event: same id, same body.
    const bodies = new Map<string, string>();
    for (const request of target.received) {
      const { id, event } = verifyChannelWebhook(request.raw, request.headers, SECRET);
      const body = JSON.stringify(event);
      expect(bodies.get(id) ?? body, id).toBe(body);
      bodies.set(id, body);
    }
    // The receiver's answers are recorded: none of the 100 is left pending.
    let notDelivered: string[] = [];
    await eventually('every delivery recorded as delivered', async () => {
      const delivered = new Set(await deliveryIds(second, 'delivered'));
      notDelivered = pending.filter((id) => !delivered.has(id));
      return notDelivered.length === 0;
    }, { detail: () => `not delivered: ${notDelivered.join(', ')}` });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 240_000);

  it('npm run notifications -- replay asks the running service to send its dead letters again', async () => {
    let answering = false;
    const target = await receiver(() => (answering ? { status: 204 } : { status: 500 }));
    await writeDestinations(target, { attemptTimeoutMs: 2_000, firstRetryDelayMs: 50, maxRetryDelayMs: 100, retryForMs: 500 });
    const service = await startService({ PORT: String(await freePort()) });
    await patronsLeave(service, 3);
    await eventually('three dead letters', async () => ((await (await fetch(`${service.url}/notifications/deliveries?state=dead`)).json()) as { deliveries: unknown[] }).deliveries.length === 3);
    answering = true;
    const port = new URL(service.url).port;
    const replay = run('src/notifications-main.ts', ['replay', '--destination', 'crm'], { PORT: port, NOTIFICATIONS_REPLAY_TOKEN: REPLAY_TOKEN });
    expect(await replay.exited).toBe(0);
    expect(replay.output()).toBe('3 dead letters of crm pending again: the service sends them now, under the same webhook-id\n');
    await eventually('the replayed deliveries', async () => (await deliveryIds(service, 'delivered')).length === 3);
    const usage = run('src/notifications-main.ts', ['resend'], { PORT: port, NOTIFICATIONS_REPLAY_TOKEN: REPLAY_TOKEN });
    expect(await usage.exited).toBe(64);
    const refused = run('src/notifications-main.ts', ['replay'], { PORT: port, NOTIFICATIONS_REPLAY_TOKEN: 'replay-token-wrong' });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toBe('notifications: the service refused the replay: a replay needs the header Authorization: Bearer <NOTIFICATIONS_REPLAY_TOKEN>\n');
    const unset = run('src/notifications-main.ts', ['replay'], { PORT: port });
    expect(await unset.exited).toBe(78);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const down = run('src/notifications-main.ts', ['replay'], { PORT: port, NOTIFICATIONS_REPLAY_TOKEN: REPLAY_TOKEN });
    expect(await down.exited).toBe(1);
    expect(down.output()).toMatch(/^notifications: the service at http:\/\/127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\); dead letters are replayed by the running service/);
  }, 240_000);
});
