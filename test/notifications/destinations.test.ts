import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_DISCORD_TEMPLATES } from '../../src/notifications/discord.js';
import { DEFAULT_DELIVERY_SETTINGS, redactedUrl } from '../../src/notifications/destinations.js';
import { configErrorOf } from '../support/config-error.js';
import { webhookSecret } from '../support/notification-receiver.js';

/**
 * notifications.json through loadConfig, as `npm start` reads it: every mistake is one line naming
 * the file, the entry and what is expected, and never the URL or the secret.
 */
let cwd: string;
const SECRET = webhookSecret();
const DISCORD_URL = 'https://discord.com/api/webhooks/123456789/discord-token-value';

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'channel-notifications-'));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

const webhook = (overrides: Record<string, unknown> = {}) => ({ name: 'crm', type: 'webhook', url: 'https://hooks.example.com/channel/secret-path', secret: SECRET, events: ['supporter.joined'], ...overrides });
const discord = (overrides: Record<string, unknown> = {}) => ({ name: 'welcome', type: 'discord', url: DISCORD_URL, events: ['supporter.joined', 'goal.reached'], ...overrides });

async function withFile(content: unknown, env: Record<string, string> = {}): Promise<{ load: () => ReturnType<typeof loadConfig>; error: () => ConfigError }> {
  await writeFile(join(cwd, 'notifications.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return { load: () => loadConfig({ cwd, env }), error: () => configErrorOf({ cwd, env }) };
}

/** The line main.ts prints, and a check that it quotes no URL or secret. */
function lineOf(error: ConfigError): string {
  expect(error.message).not.toContain('\n');
  for (const secret of [SECRET, SECRET.slice(6), 'discord-token-value', 'secret-path']) expect(error.message).not.toContain(secret);
  return error.message.slice(join(cwd, 'notifications.json').length + 2);
}

describe('notifications.json', () => {
  it('absent at its default path: no notifications; absent where NOTIFICATIONS_CONFIG points: a mistake', () => {
    expect(loadConfig({ cwd, env: {} }).notifications).toBeUndefined();
    const error = configErrorOf({ cwd, env: { NOTIFICATIONS_CONFIG: 'hooks.json' } });
    expect(error.message).toBe(`${join(cwd, 'hooks.json')}: (file): not found (NOTIFICATIONS_CONFIG names it; see docs/notifications.md#the-destinations-file)`);
  });

  it('a webhook and a Discord destination with their defaults: every field for the webhook, no amount for Discord', async () => {
    const { load } = await withFile({ destinations: [webhook(), discord()] });
    const { notifications } = load();
    expect(notifications?.delivery).toEqual(DEFAULT_DELIVERY_SETTINGS);
    const [hook, channel] = notifications?.destinations ?? [];
    expect(hook).toMatchObject({ name: 'crm', type: 'webhook', secret: SECRET, concurrency: 8 });
    expect([...(hook?.fields ?? [])]).toEqual(['id', 'name', 'platform', 'tier', 'amount']);
    expect([...(hook?.events ?? [])]).toEqual(['supporter.joined']);
    expect(channel).toMatchObject({ name: 'welcome', type: 'discord', concurrency: 1, templates: DEFAULT_DISCORD_TEMPLATES });
    expect([...(channel?.fields ?? [])]).toEqual(['name', 'platform', 'tier']);
  });

  it('a bad URL, a wrong secret format, an unknown event kind: one line each, naming the entry', async () => {
    const cases: Array<[unknown, string]> = [
      [{ destinations: [webhook({ url: 'not a url' })] }, 'destinations[crm].url: expected an https URL (http only to a loopback host, with NOTIFICATIONS_ALLOW_LOOPBACK=true)'],
      [{ destinations: [webhook({ url: 'http://hooks.example.com/x' })] }, 'destinations[crm].url: expected an https URL (http only to a loopback host, with NOTIFICATIONS_ALLOW_LOOPBACK=true)'],
      [{ destinations: [webhook({ secret: 'secret-value-of-the-wrong-format' })] }, 'destinations[crm].secret: expected a Standard Webhooks secret: whsec_ followed by the base64 of 24-64 random bytes'],
      [{ destinations: [webhook({ secret: `whsec_${Buffer.from('too short').toString('base64')}` })] }, 'destinations[crm].secret: expected a Standard Webhooks secret: whsec_ followed by the base64 of 24-64 random bytes'],
      [{ destinations: [webhook({ secret: 'whsec_not*base64!' })] }, 'destinations[crm].secret: expected a Standard Webhooks secret: whsec_ followed by the base64 of 24-64 random bytes'],
      [
        { destinations: [webhook({ events: ['supporter.joined', 'supporter.renamed'] })] },
        'destinations[crm].events[1]: expected an event kind: one of supporter.joined, supporter.left, supporter.upgraded, supporter.downgraded, supporter.tier_changed, goal.reached',
      ],
    ];
    for (const [content, expected] of cases) {
      const { error } = await withFile(content);
      expect(lineOf(error())).toBe(expected);
    }
  });

  it('names an entry by its position until it has a valid name, and refuses a second entry of the same name', async () => {
    expect(lineOf((await withFile({ destinations: [webhook({ name: 'Not A Name' })] })).error())).toBe('destinations[0].name: expected a name: lowercase letters, digits, - and _ (1-64)');
    expect(lineOf((await withFile({ destinations: [webhook(), webhook()] })).error())).toBe('destinations[1].name: expected a name no other destination has');
    expect(lineOf((await withFile({ destinations: [{ name: 'x', type: 'email', url: 'https://example.com' }] })).error())).toBe('destinations[x].type: expected a destination whose type is webhook or discord');
    expect(lineOf((await withFile({ destinations: [webhook({ extra: 1 })] })).error())).toBe('destinations[crm]: expected no property "extra" (unknown)');
  });

  it('a file that is not JSON is located, not quoted', async () => {
    const { error } = await withFile(`{ "destinations": [ { "secret": "${SECRET}" `);
    expect(lineOf(error())).toMatch(/^line 1, column \d+: expected .* \(the file is not valid JSON\)$/);
  });

  it('loopback only with NOTIFICATIONS_ALLOW_LOOPBACK=true, and http only to loopback; private and metadata literals never', async () => {
    const loopback = { destinations: [webhook({ url: 'http://127.0.0.1:9/hooks' })] };
    expect(lineOf((await withFile(loopback)).error())).toBe('destinations[crm].url: expected an https URL (http only to a loopback host, with NOTIFICATIONS_ALLOW_LOOPBACK=true)');
    expect((await withFile(loopback, { NOTIFICATIONS_ALLOW_LOOPBACK: 'true' })).load().notifications?.destinations[0]?.url).toBe('http://127.0.0.1:9/hooks');
    expect((await withFile({ destinations: [webhook({ url: 'http://localhost:9/hooks' })] }, { NOTIFICATIONS_ALLOW_LOOPBACK: 'true' })).load().notificationsAllowLoopback).toBe(true);
    expect(lineOf((await withFile({ destinations: [webhook({ url: 'https://[::1]/hooks' })] })).error())).toBe(
      'destinations[crm].url: expected a public address (this one is loopback: allowed only with NOTIFICATIONS_ALLOW_LOOPBACK=true)',
    );
    for (const [host, range] of [
      ['10.0.0.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['[fd00:ec2::254]', 'uniqueLocal'],
      ['100.100.100.200', 'carrierGradeNat'],
      ['[::ffff:192.168.1.1]', 'private'],
      ['0.0.0.0', 'unspecified'],
    ]) {
      const { error } = await withFile({ destinations: [webhook({ url: `https://${host}/hooks` })] }, { NOTIFICATIONS_ALLOW_LOOPBACK: 'true' });
      expect(lineOf(error()), host).toBe(`destinations[crm].url: expected a public address (this one is ${range})`);
    }
    expect(lineOf((await withFile({ destinations: [webhook({ url: 'http://10.0.0.1/hooks' })] }, { NOTIFICATIONS_ALLOW_LOOPBACK: 'true' })).error())).toBe(
      'destinations[crm].url: expected an https URL (http only to a loopback host)',
    );
    expect(lineOf((await withFile({ destinations: [webhook({ url: 'https://user:pass@hooks.example.com/x' })] })).error())).toBe(
      'destinations[crm].url: expected a URL without user:password@ (webhooks are authenticated by their signature)',
    );
  });

  it('a Discord URL is an incoming webhook; its templates are checked: known kinds and placeholders, no amount unless carried', async () => {
    expect(lineOf((await withFile({ destinations: [discord({ url: 'https://discord.com/channels/1/2' })] })).error())).toBe('destinations[welcome].url: expected a Discord webhook URL (…/api/webhooks/<id>/<token>)');
    expect(lineOf((await withFile({ destinations: [discord({ templates: { 'supporter.renamed': {} } })] })).error())).toBe('destinations[welcome].templates: expected no property "supporter.renamed" (unknown)');
    expect(lineOf((await withFile({ destinations: [discord({ templates: { 'supporter.joined': { title: 'Hi {nickname}' } } })] })).error())).toBe(
      'destinations[welcome].templates.supporter.joined.title: expected placeholders of supporter.joined: {name}, {platform}, {tier}, {previousTier}, {amount}, {previousAmount} (not {nickname})',
    );
    expect(lineOf((await withFile({ destinations: [discord({ templates: { 'supporter.joined': { description: '{name} gives {amount}' } } })] })).error())).toBe(
      'destinations[welcome].templates.supporter.joined.description: expected no {amount}: this destination does not carry amounts (add "amount" to its fields)',
    );
    const { load } = await withFile({
      destinations: [discord({ fields: ['name', 'tier', 'amount'], templates: { 'supporter.joined': { description: '{name} gives {amount}', color: '#112233' } } })],
    });
    const [destination] = load().notifications?.destinations ?? [];
    expect(destination?.type === 'discord' && destination.templates['supporter.joined']).toEqual({ ...DEFAULT_DISCORD_TEMPLATES['supporter.joined'], description: '{name} gives {amount}', color: 0x112233 });
  });

  it('destinations need the history (their outbox is in its database)', async () => {
    const { error, load } = await withFile({ destinations: [webhook()] }, { HISTORY: 'false' });
    expect(error().message).toBe("environment: HISTORY: expected true (the default) while notifications.json names destinations: their outbox is kept in the history's database");
    await withFile({ destinations: [] }, { HISTORY: 'false' });
    expect(load().notifications?.destinations).toEqual([]);
  });

  it('delivery settings are bounded', async () => {
    const { load } = await withFile({ destinations: [], delivery: { attemptTimeoutMs: 500, firstRetryDelayMs: 10, maxRetryDelayMs: 100, retryForMs: 1000 } });
    expect(load().notifications?.delivery).toEqual({ attemptTimeoutMs: 500, firstRetryDelayMs: 10, maxRetryDelayMs: 100, retryForMs: 1000 });
    expect(lineOf((await withFile({ destinations: [], delivery: { attemptTimeoutMs: 0 } })).error())).toBe('delivery.attemptTimeoutMs: expected milliseconds 100-120000');
    expect(lineOf((await withFile({ destinations: [], delivery: { firstRetryDelayMs: 10_000, maxRetryDelayMs: 1000 } })).error())).toBe('delivery.firstRetryDelayMs: expected at most maxRetryDelayMs (1000)');
  });

  it('a URL is shown with its last path segment and its query hidden', () => {
    expect(redactedUrl(DISCORD_URL)).toBe('https://discord.com/api/webhooks/123456789/…');
    expect(redactedUrl('https://hooks.example.com/in?token=abc')).toBe('https://hooks.example.com/in?…');
  });
});
