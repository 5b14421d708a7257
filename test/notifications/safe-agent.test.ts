import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery, createSender } from '../../src/notifications/attempt.js';
import type { WebhookDestination } from '../../src/notifications/destinations.js';
import { NOTIFICATION_FIELDS } from '../../src/notifications/events.js';
import { createSafeAgent, refusedRange, type ResolvedAddress, type Resolver } from '../../src/notifications/safe-agent.js';
import { startNotificationReceiver, webhookSecret, type NotificationReceiver } from '../support/notification-receiver.js';
import { supporterEvent } from './sample-events.js';

/**
 * The address filter, through an injected resolver: a destination's name that resolves to a private,
 * metadata or loopback address is refused before any packet is sent — the receivers listening on the
 * loopback addresses see no connection at all — and one that resolves to an allowed address is
 * connected to at that address, with its own name as Host.
 */
let v4: NotificationReceiver;
let v6: NotificationReceiver;

beforeAll(async () => {
  [v4, v6] = await Promise.all([startNotificationReceiver(), startNotificationReceiver(undefined, '::1')]);
});
afterAll(() => Promise.all([v4.close(), v6.close()]));

/** A resolver that answers from a table, and counts its questions. */
function tableResolver(table: Record<string, readonly ResolvedAddress[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    return table[hostname] ?? [];
  };
  return Object.assign(resolve, { asked });
}

function destination(url: string): WebhookDestination {
  return { name: 'crm', type: 'webhook', url, secret: webhookSecret(), events: new Set(['supporter.joined']), fields: new Set(NOTIFICATION_FIELDS), concurrency: 1 };
}

async function deliverVia(resolver: Resolver, url: string, allowLoopback: boolean) {
  const agent = createSafeAgent({ resolve: resolver, allowLoopback, connectTimeoutMs: 2_000 });
  try {
    return await attemptDelivery(createSender(destination(url)), supporterEvent(), { dispatcher: agent, timeoutMs: 5_000 });
  } finally {
    await agent.close();
  }
}

const portOf = (receiver: NotificationReceiver): string => new URL(receiver.url).port;

describe('the address filter', () => {
  it('refuses a name that resolves to 10.0.0.1, 169.254.169.254 or ::1, at once and without a connection', async () => {
    const before = { v4: v4.connections, v6: v6.connections };
    const cases: Array<[string, ResolvedAddress[], string]> = [
      ['private.example', [{ address: '10.0.0.1', family: 4 }], 'private'],
      ['metadata.example', [{ address: '169.254.169.254', family: 4 }], 'linkLocal'],
      ['loopback6.example', [{ address: '::1', family: 6 }], 'loopback'],
      ['loopback4.example', [{ address: '127.0.0.1', family: 4 }], 'loopback'],
      // One bad address among good ones is enough: the connect could fall back to it.
      ['mixed.example', [{ address: '93.184.216.34', family: 4 }, { address: '10.1.2.3', family: 4 }], 'private'],
      ['mapped.example', [{ address: '::ffff:192.168.0.10', family: 6 }], 'private'],
    ];
    for (const [name, addresses, range] of cases) {
      const resolver = tableResolver({ [name]: addresses });
      const started = performance.now();
      const outcome = await deliverVia(resolver, `http://${name}:${portOf(name.includes('6') ? v6 : v4)}/hooks`, false);
      expect(outcome, name).toEqual({ delivered: false, status: null, error: `the destination's host resolves to a ${range} address, which notifications never connect to` });
      expect(resolver.asked, name).toEqual([name]);
      // Refused before connecting: a connect to 10.0.0.1 would take its timeout, not a few milliseconds.
      expect(performance.now() - started, name).toBeLessThan(1_000);
    }
    expect({ v4: v4.connections, v6: v6.connections }).toEqual(before);
  });

  it('refuses a literal loopback address unless loopback is allowed', async () => {
    const before = v6.connections;
    const refused = await deliverVia(tableResolver({}), `http://[::1]:${portOf(v6)}/hooks`, false);
    expect(refused).toEqual({ delivered: false, status: null, error: "the destination's host resolves to a loopback address, which notifications never connect to" });
    expect(v6.connections).toBe(before);
    expect(await deliverVia(tableResolver({}), `http://[::1]:${portOf(v6)}/hooks`, true)).toEqual({ delivered: true, status: 204 });
    expect(v6.connections).toBe(before + 1);
  });

  it('connects to the address it checked, keeping the name as Host; loopback passes only when allowed', async () => {
    const resolver = tableResolver({ 'receiver.test': [{ address: '127.0.0.1', family: 4 }] });
    expect(await deliverVia(resolver, `http://receiver.test:${portOf(v4)}/hooks`, true)).toEqual({ delivered: true, status: 204 });
    expect(v4.received.at(-1)?.headers.host).toBe(`receiver.test:${portOf(v4)}`);
    expect(resolver.asked).toEqual(['receiver.test']);
  });

  it('a name that resolves to nothing is refused', async () => {
    expect(await deliverVia(tableResolver({}), 'https://nowhere.test/hooks', false)).toEqual({ delivered: false, status: null, error: "the destination's host name resolves to no address" });
  });

  it('classifies with ipaddr.js: only public unicast passes', () => {
    expect(refusedRange('93.184.216.34', false)).toBeUndefined();
    expect(refusedRange('2606:4700:4700::1111', false)).toBeUndefined();
    expect(refusedRange('127.0.0.1', true)).toBeUndefined();
    expect(refusedRange('fd00:ec2::254', true)).toBe('uniqueLocal');
    expect(refusedRange('100.100.100.200', false)).toBe('carrierGradeNat');
    expect(refusedRange('fe80::1', false)).toBe('linkLocal');
    expect(refusedRange('224.0.0.1', false)).toBe('multicast');
    expect(refusedRange('0.0.0.0', false)).toBe('unspecified');
  });
});
