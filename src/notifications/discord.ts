/**
 * Discord incoming webhooks: one message with one embed per event, from a template per event kind
 * (DEFAULT_DISCORD_TEMPLATES, overridable per destination in notifications.json, documented in
 * docs/notifications.md#discord-templates). A template's texts hold placeholders (`{name}`, `{tier}`…)
 * that are replaced by the event's values, escaped for Discord's markdown; the message allows no
 * mention, so a supporter named `@everyone` pings nobody. Embed limits (Discord's "Embed Limits") are
 * applied after the placeholders are filled: a long name cannot make the message invalid.
 */
import type { ChannelNotification, NotificationField, NotificationKind, NotificationTier } from './events.js';

export interface DiscordEmbedField {
  name: string;
  value: string;
  inline?: boolean;
}

/** What a destination may override of a kind's template, property by property. */
export interface DiscordTemplate {
  title: string;
  description: string;
  /** The embed's side colour, 0xRRGGBB. */
  color: number;
  /** Embed fields; one whose texts use a placeholder of a field the destination does not carry is left out. */
  fields: readonly DiscordEmbedField[];
}

export type DiscordTemplates = Readonly<Record<NotificationKind, DiscordTemplate>>;

const PLATFORM_FIELD = { name: 'Platform', value: '{platform}', inline: true };
const TIER_FIELD = { name: 'Tier', value: '{tier}', inline: true };
const AMOUNT_FIELD = { name: 'Amount', value: '{amount} a month', inline: true };

export const DEFAULT_DISCORD_TEMPLATES: DiscordTemplates = {
  'supporter.joined': {
    title: '🎉 Welcome, {name}!',
    description: '{name} started supporting the channel on {platform}. Thank you!',
    color: 0x57f287,
    fields: [TIER_FIELD, PLATFORM_FIELD, AMOUNT_FIELD],
  },
  'supporter.left': {
    title: '{name} stopped supporting',
    description: 'Thank you for the support so far, {name}.',
    color: 0x95a5a6,
    fields: [TIER_FIELD, PLATFORM_FIELD],
  },
  'supporter.upgraded': {
    title: '⬆️ {name} upgraded',
    description: 'Now at {tier} (was {previousTier}). Thank you!',
    color: 0xfee75c,
    fields: [PLATFORM_FIELD, AMOUNT_FIELD, { name: 'Before', value: '{previousAmount} a month', inline: true }],
  },
  'supporter.downgraded': {
    title: '{name} changed their support',
    description: 'Now at {tier} (was {previousTier}).',
    color: 0x5865f2,
    fields: [PLATFORM_FIELD],
  },
  'supporter.tier_changed': {
    title: '{name} moved to {tier}',
    description: 'From {previousTier}, on {platform}.',
    color: 0x5865f2,
    fields: [PLATFORM_FIELD],
  },
  'goal.reached': {
    title: '🏁 Goal reached: {goal}',
    description: '{bar} {progress}\n{figures}',
    color: 0xeb459e,
    fields: [{ name: 'Counted on', value: '{platform}', inline: true }],
  },
};

/** The placeholders of each kind, and the field a destination must carry for its value (undefined: none). */
const SUPPORTER_PLACEHOLDERS: Readonly<Record<string, NotificationField | undefined>> = {
  name: 'name',
  platform: 'platform',
  tier: 'tier',
  previousTier: 'tier',
  amount: 'amount',
  previousAmount: 'amount',
};
const GOAL_PLACEHOLDERS: Readonly<Record<string, NotificationField | undefined>> = {
  goal: undefined,
  platform: undefined,
  progress: undefined,
  bar: undefined,
  figures: undefined,
};

export function placeholdersOf(kind: NotificationKind): Readonly<Record<string, NotificationField | undefined>> {
  return kind === 'goal.reached' ? GOAL_PLACEHOLDERS : SUPPORTER_PLACEHOLDERS;
}

const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

/** The placeholders a text uses. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string);
}

/** Discord's markdown and mention syntax, escaped with a backslash. */
const MARKDOWN = /[\\*_~`|>[\]()<#:-]/g;

export function escapeMarkdown(text: string): string {
  return text.replace(MARKDOWN, '\\$&');
}

/** A supporter's name is bounded before it goes into a message (names are as the platform gives them). */
const MAX_VALUE_CHARS = 100;

function bounded(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const PLATFORM_NAMES = { membership: 'the membership platform', video: 'the video channel' } as const;

function tierName(tier: NotificationTier | null | undefined): string {
  if (tier === undefined || tier === null) return 'no tier';
  return tier.title ?? 'an untitled tier';
}

/** Cents as a decimal amount without a currency (the platforms' amounts are in the creator's currency). */
export function formatCents(cents: number): string {
  return (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

const BAR_CELLS = 10;

function progressBar(progress: number): string {
  const filled = Math.min(BAR_CELLS, Math.max(0, Math.floor(progress * BAR_CELLS)));
  return `${'▓'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}`;
}

/** Each placeholder's text for one event (already escaped); undefined where the destination does not carry the field. */
function placeholderValues(body: ChannelNotification, fields: ReadonlySet<NotificationField>): Record<string, string | undefined> {
  const text = (value: string): string => escapeMarkdown(bounded(value, MAX_VALUE_CHARS));
  if (body.type === 'goal.reached') {
    const { goal } = body.data;
    const percent = `${Math.floor(goal.progress * 100)} %`;
    const showFigures = goal.metric === 'members' || fields.has('amount');
    const figures =
      !showFigures || goal.current === undefined || goal.target === undefined
        ? `${percent} of the goal`
        : goal.metric === 'members'
          ? `${goal.current} of ${goal.target} members`
          : `${formatCents(goal.current)} of ${formatCents(goal.target)} a month`;
    return {
      goal: text(goal.title),
      platform: goal.platform === null ? 'both platforms' : PLATFORM_NAMES[goal.platform],
      progress: percent,
      bar: progressBar(goal.progress),
      figures,
    };
  }
  const { supporter, previous } = body.data;
  const carried = (field: NotificationField, value: () => string): string | undefined => (fields.has(field) ? value() : undefined);
  return {
    name: carried('name', () => text(supporter.name ?? 'Someone')) ?? 'Someone',
    platform: carried('platform', () => (supporter.platform === undefined ? 'a platform' : PLATFORM_NAMES[supporter.platform])) ?? 'a platform',
    tier: carried('tier', () => text(tierName(supporter.tier))) ?? 'a tier',
    previousTier: carried('tier', () => text(tierName(previous?.tier))) ?? 'another tier',
    amount: carried('amount', () => (supporter.amountCents === undefined ? '' : formatCents(supporter.amountCents))),
    previousAmount: carried('amount', () => (previous?.amountCents === undefined ? '' : formatCents(previous.amountCents))),
  };
}

/** Fills `text`; undefined when it uses a placeholder without a value. */
function fill(text: string, values: Readonly<Record<string, string | undefined>>): string | undefined {
  let missing = false;
  const filled = text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return value ?? whole;
  });
  return missing ? undefined : filled;
}

/** Discord's embed limits (Message resource, "Embed Limits"). */
const LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, total: 6000 } as const;

export interface DiscordEmbed {
  title: string;
  description: string;
  color: number;
  timestamp: string;
  fields: DiscordEmbedField[];
}

/** The JSON body of an Execute Webhook call. */
export interface DiscordMessage {
  embeds: [DiscordEmbed];
  /** No mention of any kind pings anyone. */
  allowed_mentions: { parse: [] };
}

/**
 * The message of one event for a destination carrying `fields`, from `template`. A title or
 * description that uses a placeholder without a value cannot happen (notifications.json refuses it);
 * a field that does is left out.
 */
export function discordMessage(body: ChannelNotification, template: DiscordTemplate, fields: ReadonlySet<NotificationField>): DiscordMessage {
  const values = placeholderValues(body, fields);
  const embedFields: DiscordEmbedField[] = [];
  for (const field of template.fields.slice(0, LIMITS.fields)) {
    const name = fill(field.name, values);
    const value = fill(field.value, values);
    // Discord refuses an empty field name or value.
    if (name === undefined || value === undefined || name.trim() === '' || value.trim() === '') continue;
    embedFields.push({ name: bounded(name, LIMITS.fieldName), value: bounded(value, LIMITS.fieldValue), ...(field.inline === undefined ? {} : { inline: field.inline }) });
  }
  const embed: DiscordEmbed = {
    title: bounded(fill(template.title, values) ?? '', LIMITS.title),
    description: bounded(fill(template.description, values) ?? '', LIMITS.description),
    color: template.color,
    timestamp: body.timestamp,
    fields: embedFields,
  };
  // The total counts every text; with the bounds above only the fields can exceed it: drop from the end.
  const total = (): number => embed.title.length + embed.description.length + embed.fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
  while (total() > LIMITS.total && embed.fields.length > 0) embed.fields.pop();
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}
