import { describe, expect, it } from 'vitest';
import { DEFAULT_DISCORD_TEMPLATES, discordMessage, escapeMarkdown } from '../../src/notifications/discord.js';
import { bodyWithFields, NOTIFICATION_FIELDS, NOTIFICATION_KINDS, type NotificationField } from '../../src/notifications/events.js';
import { goalEvent, supporterEvent } from './sample-events.js';

const DISCORD_DEFAULT: ReadonlySet<NotificationField> = new Set(['name', 'platform', 'tier']);
const EVERY_FIELD: ReadonlySet<NotificationField> = new Set(NOTIFICATION_FIELDS);

const textOf = (message: ReturnType<typeof discordMessage>): string => JSON.stringify(message.embeds[0]);

describe('Discord messages', () => {
  it('one embed per event, from the kind\'s template: name, tier, platform; no mention pings', () => {
    const message = discordMessage(supporterEvent('supporter.joined').body, DEFAULT_DISCORD_TEMPLATES['supporter.joined'], DISCORD_DEFAULT);
    expect(message).toEqual({
      embeds: [
        {
          title: '🎉 Welcome, Ada!',
          description: 'Ada started supporting the channel on the membership platform. Thank you!',
          color: 0x57f287,
          timestamp: '2026-03-01T12:00:00.000Z',
          fields: [
            { name: 'Tier', value: 'Gold', inline: true },
            { name: 'Platform', value: 'the membership platform', inline: true },
          ],
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('every kind has a template that renders', () => {
    for (const kind of NOTIFICATION_KINDS) {
      const event = kind === 'goal.reached' ? goalEvent() : supporterEvent(kind);
      const [embed] = discordMessage(event.body, DEFAULT_DISCORD_TEMPLATES[kind], DISCORD_DEFAULT).embeds;
      expect(embed.title, kind).not.toMatch(/\{\w+\}/);
      expect(embed.description, kind).not.toMatch(/\{\w+\}/);
      expect(embed.title.length, kind).toBeGreaterThan(0);
    }
    const [upgraded] = discordMessage(supporterEvent('supporter.upgraded').body, DEFAULT_DISCORD_TEMPLATES['supporter.upgraded'], DISCORD_DEFAULT).embeds;
    expect(upgraded.description).toBe('Now at Gold (was Silver). Thank you!');
  });

  it('amounts are off unless the destination carries them', () => {
    const joined = supporterEvent('supporter.upgraded').body;
    const off = discordMessage(joined, DEFAULT_DISCORD_TEMPLATES['supporter.upgraded'], DISCORD_DEFAULT);
    expect(textOf(off)).not.toMatch(/15\.00|5\.00|Amount|Before/);
    const on = discordMessage(joined, DEFAULT_DISCORD_TEMPLATES['supporter.upgraded'], EVERY_FIELD);
    expect(on.embeds[0].fields).toEqual([
      { name: 'Platform', value: 'the membership platform', inline: true },
      { name: 'Amount', value: '15.00 a month', inline: true },
      { name: 'Before', value: '5.00 a month', inline: true },
    ]);
  });

  it('goal progress: the bar and the percentage; a monthly-amount goal shows its amounts only when they are carried', () => {
    const goal = goalEvent();
    const off = discordMessage(goal.body, DEFAULT_DISCORD_TEMPLATES['goal.reached'], DISCORD_DEFAULT).embeds[0];
    expect(off.title).toBe('🏁 Goal reached: 500 a month');
    expect(off.description).toBe('▓▓▓▓▓▓▓▓▓▓ 102 %\n102 % of the goal');
    expect(off.fields).toEqual([{ name: 'Counted on', value: 'both platforms', inline: true }]);
    expect(discordMessage(goal.body, DEFAULT_DISCORD_TEMPLATES['goal.reached'], EVERY_FIELD).embeds[0].description).toBe('▓▓▓▓▓▓▓▓▓▓ 102 %\n512.50 of 500.00 a month');
    const members = goalEvent({ metric: 'members', platform: 'video', target: 100, current: 100, progress: 1, title: '100 members' });
    expect(discordMessage(members.body, DEFAULT_DISCORD_TEMPLATES['goal.reached'], DISCORD_DEFAULT).embeds[0].description).toBe('▓▓▓▓▓▓▓▓▓▓ 100 %\n100 of 100 members');
  });

  it('a name is text, not markdown or a mention, and cannot make the message too long', () => {
    const hostile = supporterEvent('supporter.joined', {
      supporter: { id: 'm', platform: 'video', name: '@everyone **<@123>** [x](https://evil.example)', tier: { id: 't', title: '`code`' }, amountCents: 1 },
    });
    const [embed] = discordMessage(hostile.body, DEFAULT_DISCORD_TEMPLATES['supporter.joined'], DISCORD_DEFAULT).embeds;
    expect(embed.title).toBe(`🎉 Welcome, ${escapeMarkdown('@everyone **<@123>** [x](https://evil.example)')}!`);
    expect(embed.title).not.toContain('**');
    expect(embed.fields[0]?.value).toBe('\\`code\\`');
    const long = supporterEvent('supporter.joined', { supporter: { id: 'm', platform: 'video', name: 'N'.repeat(10_000), tier: null, amountCents: 1 } });
    const [bounded] = discordMessage(long.body, { ...DEFAULT_DISCORD_TEMPLATES['supporter.joined'], title: '{name}{name}{name}' }, DISCORD_DEFAULT).embeds;
    expect(bounded.title.length).toBeLessThanOrEqual(256);
    expect(bounded.fields[0]).toEqual({ name: 'Tier', value: 'no tier', inline: true });
  });

  it('a template field that needs a field the destination does not carry is left out; texts of absent fields read neutrally', () => {
    const message = discordMessage(supporterEvent().body, DEFAULT_DISCORD_TEMPLATES['supporter.joined'], new Set<NotificationField>(['tier']));
    expect(message.embeds[0].title).toBe('🎉 Welcome, Someone!');
    expect(message.embeds[0].fields.map((field) => field.name)).toEqual(['Tier', 'Platform']);
  });
});

describe('webhook bodies', () => {
  it('carry only the destination\'s fields', () => {
    const event = supporterEvent('supporter.downgraded');
    expect(bodyWithFields(event.body, EVERY_FIELD)).toEqual(event.body);
    expect(bodyWithFields(event.body, new Set(['name']))).toEqual({ type: 'supporter.downgraded', timestamp: '2026-03-01T12:00:00.000Z', data: { supporter: { name: 'Ada' } } });
    expect(bodyWithFields(event.body, new Set(['tier']))).toEqual({
      type: 'supporter.downgraded',
      timestamp: '2026-03-01T12:00:00.000Z',
      data: { supporter: { tier: { id: 'tier-gold', title: 'Gold' } }, previous: { tier: { id: 'tier-silver', title: 'Silver' } } },
    });
    const goal = goalEvent();
    expect(bodyWithFields(goal.body, new Set(['name']))).toEqual({
      type: 'goal.reached',
      timestamp: '2026-03-01T12:00:00.000Z',
      data: { goal: { id: 'monthly-500', title: '500 a month', metric: 'monthly_amount', platform: null, progress: 1.025 } },
    });
  });
});
