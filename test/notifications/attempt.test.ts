import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyChannelWebhook, WebhookVerificationError } from '@channel-graph/client/webhooks';
import { attemptDelivery, createSender, MAX_ANSWER_BYTES, retryAfterMs } from '../../src/notifications/attempt.js';
import { DEFAULT_DISCORD_TEMPLATES } from '../../src/notifications/discord.js';
import type { DiscordDestination, WebhookDestination } from '../../src/notifications/destinations.js';
import { NOTIFICATION_FIELDS } from '../../src/notifications/events.js';
import { createSafeAgent } from '../../src/notifications/safe-agent.js';
import { collectGarbageContinuously } from '../support/hung-upstream.js';
import { startNotificationReceiver, webhookSecret, type NotificationReceiver, type ReceiverAnswer } from '../support/notification-receiver.js';
import { supporterEvent } from './sample-events.js';

/**
 * One delivery attempt against real receivers on 127.0.0.1: the Standard Webhooks signature as the
 * package's own verifier checks it, the deadline against a receiver that never answers, the answer's
 * body bounded, Retry-After and Discord's rate-limit headers read, no redirect followed.
 */
const SECRET = webhookSecret();
const DEADLINE_MS = 400;
let agent: Agent;
const receivers: NotificationReceiver[] = [];

beforeAll(() => {
  agent = createSafeAgent({ allowLoopback: true, connectTimeoutMs: DEADLINE_MS });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => agent.close());

async function receiver(answer?: (index: number) => ReceiverAnswer): Promise<NotificationReceiver> {
  const started = await startNotificationReceiver(answer === undefined ? undefined : (_request, index) => answer(index));
  receivers.push(started);
  return started;
}

function webhookTo(url: string, overrides: Partial<WebhookDestination> = {}): WebhookDestination {
  return { name: 'crm', type: 'webhook', url, secret: SECRET, events: new Set(['supporter.joined']), fields: new Set(NOTIFICATION_FIELDS), concurrency: 1, ...overrides };
}

function discordTo(url: string): DiscordDestination {
  return { name: 'welcome', type: 'discord', url, events: new Set(['supporter.joined']), fields: new Set(['name', 'tier', 'platform']), concurrency: 1, templates: DEFAULT_DISCORD_TEMPLATES };
}

const attempt = (destination: WebhookDestination | DiscordDestination, event = supporterEvent()) => attemptDelivery(createSender(destination), event, { dispatcher: agent, timeoutMs: DEADLINE_MS });

describe('a signed webhook', () => {
  it('carries webhook-id, webhook-timestamp and a v1 signature the standardwebhooks verifier accepts, and a JSON body of the contract', async () => {
    const target = await receiver();
    const event = supporterEvent('supporter.upgraded');
    expect(await attempt(webhookTo(`${target.url}/hooks`), event)).toEqual({ delivered: true, status: 204 });
    const [request] = target.received;
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['webhook-id']).toBe(event.id);
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(request?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    // The package's own verifier, on the raw bytes and the headers as received.
    expect(new Webhook(SECRET).verify(request!.raw, request!.headers as Record<string, string>)).toEqual(event.body);
    // And the helper @channel-graph/client exports.
    const verified = verifyChannelWebhook(request!.raw, request!.headers, SECRET);
    expect(verified.id).toBe(event.id);
    expect(verified.event).toEqual(event.body);
    if (verified.event.type === 'supporter.upgraded') expect(verified.event.data.previous?.amountCents).toBe(500);
  });

  it('is refused by the verifier when the body, the secret or the timestamp is not the one signed', async () => {
    const target = await receiver();
    await attempt(webhookTo(target.url));
    const { raw, headers } = target.received[0]!;
    const tampered = Buffer.from(raw.toString().replace('Ada', 'Eve'));
    expect(() => verifyChannelWebhook(tampered, headers, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyChannelWebhook(raw, headers, webhookSecret())).toThrow(WebhookVerificationError);
    expect(() => verifyChannelWebhook(raw, { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) }, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyChannelWebhook(raw, { ...headers, 'webhook-signature': undefined }, SECRET)).toThrow(WebhookVerificationError);
    // fetch's Headers work too.
    expect(verifyChannelWebhook(raw.toString(), new Headers(headers as Record<string, string>), SECRET).event.type).toBe('supporter.joined');
  });

  it('keeps its webhook-id across attempts; each attempt is signed anew', async () => {
    const target = await receiver((index) => (index === 0 ? { status: 500 } : { status: 200 }));
    const event = supporterEvent();
    const destination = webhookTo(target.url);
    expect(await attempt(destination, event)).toMatchObject({ delivered: false, status: 500, error: 'answered 500' });
    expect(await attempt(destination, event)).toMatchObject({ delivered: true, status: 200 });
    expect(target.received.map((request) => request.headers['webhook-id'])).toEqual([event.id, event.id]);
    for (const request of target.received) expect(verifyChannelWebhook(request.raw, request.headers, SECRET).id).toBe(event.id);
  });
});

describe('the answer', () => {
  it('429 and 503 with Retry-After (seconds or a date) set the wait; another error does not', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const answers: ReceiverAnswer[] = [
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 503, headers: { 'retry-after': inTwoMinutes } },
      { status: 500, headers: { 'retry-after': '7' } },
      { status: 429 },
    ];
    const target = await receiver((index) => answers[index] ?? { status: 204 });
    const destination = webhookTo(target.url);
    expect(await attempt(destination)).toEqual({ delivered: false, status: 429, error: 'answered 429', retryAfterMs: 7000, holdDestinationMs: 7000 });
    const dated = await attempt(destination);
    expect(dated.delivered === false && dated.retryAfterMs).toBeGreaterThan(110_000);
    expect(await attempt(destination)).toEqual({ delivered: false, status: 500, error: 'answered 500' });
    expect(await attempt(destination)).toEqual({ delivered: false, status: 429, error: 'answered 429' });
  });

  it('Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3); anything else is ignored', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it("Discord's rate-limit headers: an empty bucket holds the destination until its reset; a 429 waits retry_after", async () => {
    const answers: ReceiverAnswer[] = [
      { status: 204, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.5', 'x-ratelimit-bucket': 'abc' } },
      { status: 429, headers: { 'content-type': 'application/json', 'x-ratelimit-scope': 'shared' }, body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 2.25, global: false }) },
      { status: 429, headers: { 'retry-after': '3', 'x-ratelimit-reset-after': '0.5' } },
      { status: 204, headers: { 'x-ratelimit-remaining': '4', 'x-ratelimit-reset-after': '1' } },
    ];
    const target = await receiver((index) => answers[index] ?? { status: 204 });
    const destination = discordTo(`${target.url}/api/webhooks/123/token-value`);
    expect(await attempt(destination)).toEqual({ delivered: true, status: 204, holdDestinationMs: 1500 });
    expect(await attempt(destination)).toEqual({ delivered: false, status: 429, error: 'answered 429', retryAfterMs: 2250, holdDestinationMs: 2250 });
    expect(await attempt(destination)).toEqual({ delivered: false, status: 429, error: 'answered 429', retryAfterMs: 3000, holdDestinationMs: 3000 });
    expect(await attempt(destination)).toEqual({ delivered: true, status: 204 });
    const message = JSON.parse(target.received[0]!.raw.toString()) as { embeds: unknown[]; allowed_mentions: unknown };
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.embeds).toHaveLength(1);
  });

  it('a redirect is not followed: the attempt fails and the other server gets nothing', async () => {
    const elsewhere = await receiver();
    const target = await receiver(() => ({ status: 307, headers: { location: `${elsewhere.url}/stolen` } }));
    expect(await attempt(webhookTo(target.url))).toEqual({ delivered: false, status: 307, error: 'answered 307, a redirect, which is not followed' });
    expect(elsewhere.connections).toBe(0);
  });

  it('a large body is read only up to its bound', async () => {
    const huge = Buffer.alloc(64 * MAX_ANSWER_BYTES, 'x');
    const target = await receiver(() => ({ status: 500, body: huge }));
    const started = performance.now();
    expect(await attempt(webhookTo(target.url))).toEqual({ delivered: false, status: 500, error: 'answered 500' });
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS);
  });
});

describe('the deadline of an attempt', () => {
  async function timed(answer: ReceiverAnswer | 'stall') {
    const target = await receiver(() => (answer === 'stall' ? 'hang' : answer));
    const stopCollecting = collectGarbageContinuously();
    const started = performance.now();
    try {
      return { outcome: await attempt(webhookTo(target.url)), ms: performance.now() - started };
    } finally {
      stopCollecting();
    }
  }

  it('fires against a receiver that never answers, under continuous garbage collection', async () => {
    const { outcome, ms } = await timed('stall');
    expect(outcome).toEqual({ delivered: false, status: null, error: `no complete answer within ${DEADLINE_MS} ms` });
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    expect(ms).toBeLessThan(DEADLINE_MS + 2_000);
  });

  it('covers a body that never ends', async () => {
    // A raw server that sends the headers and a first chunk of the body, then stalls.
    const sockets = new Set<Socket>();
    const stalled = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n{"partial":'));
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const started = performance.now();
      const { port } = stalled.address() as AddressInfo;
      expect(await attempt(webhookTo(`http://127.0.0.1:${port}/hooks`))).toEqual({ delivered: false, status: null, error: `no complete answer within ${DEADLINE_MS} ms` });
      expect(performance.now() - started).toBeLessThan(DEADLINE_MS + 2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });

  it('an error names neither the URL nor the secret', async () => {
    const target = await receiver();
    const url = `${target.url}/hooks/path-token-value?key=query-token-value`;
    await target.close();
    receivers.splice(receivers.indexOf(target), 1);
    const outcome = await attempt(webhookTo(url));
    expect(outcome.delivered).toBe(false);
    const error = outcome.delivered ? '' : outcome.error;
    expect(error).toMatch(/ECONNREFUSED/);
    for (const secret of ['path-token-value', 'query-token-value', SECRET]) expect(error).not.toContain(secret);
  });
});
