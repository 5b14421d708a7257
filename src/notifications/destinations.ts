/**
 * notifications.json: where the events go. Each destination names its kind (`webhook`: Standard
 * Webhooks, signed; `discord`: an incoming webhook), its URL, the event kinds it gets and the fields
 * it may carry. It is validated whole at start: the first mistake is reported as one
 * DestinationsError naming the entry (`destinations[<name>].<field>`) and what is expected, never
 * the value (URLs and secrets are credentials). docs/notifications.md#the-destinations-file.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_DISCORD_TEMPLATES, placeholdersIn, placeholdersOf, type DiscordTemplate, type DiscordTemplates } from './discord.js';
import { NOTIFICATION_FIELDS, NOTIFICATION_KINDS, type NotificationField, type NotificationKind } from './events.js';

interface DestinationBase {
  /** Its name in metrics, logs and the deliveries view. */
  name: string;
  url: string;
  events: ReadonlySet<NotificationKind>;
  fields: ReadonlySet<NotificationField>;
  /** Deliveries in flight at once to it. */
  concurrency: number;
}

export interface WebhookDestination extends DestinationBase {
  type: 'webhook';
  /** `whsec_` and the base64 of the key. */
  secret: string;
}

export interface DiscordDestination extends DestinationBase {
  type: 'discord';
  templates: DiscordTemplates;
}

export type Destination = WebhookDestination | DiscordDestination;

/** How deliveries are tried (`delivery` in notifications.json). */
export interface DeliverySettings {
  /** Deadline of one attempt: connect, request, the answer's headers and (bounded) body. */
  attemptTimeoutMs: number;
  /** Delay before the first retry; each next one doubles, with jitter, up to maxRetryDelayMs. */
  firstRetryDelayMs: number;
  maxRetryDelayMs: number;
  /** After this long since the event was recorded, a failed delivery goes to the dead letters. */
  retryForMs: number;
}

export interface NotificationsConfig {
  destinations: readonly Destination[];
  delivery: DeliverySettings;
}

export const DEFAULT_DELIVERY_SETTINGS: Readonly<DeliverySettings> = {
  attemptTimeoutMs: 10_000,
  firstRetryDelayMs: 5_000,
  maxRetryDelayMs: 3_600_000,
  retryForMs: 24 * 3_600_000,
};

/** Webhook receivers get every field unless a destination says otherwise; Discord channels no amount. */
const DEFAULT_FIELDS = {
  webhook: NOTIFICATION_FIELDS,
  discord: ['name', 'platform', 'tier'],
} as const satisfies Record<Destination['type'], readonly NotificationField[]>;

/** Discord's per-webhook rate limit is a few messages a second: one at a time keeps them in order. */
const DEFAULT_CONCURRENCY = { webhook: 8, discord: 1 } as const;

const MAX_DESTINATIONS = 50;
const MAX_URL_CHARS = 2048;
/** Standard Webhooks: a secret key of 24 to 64 bytes. */
const SECRET_BYTES = { min: 24, max: 64 } as const;

/** A notifications.json mistake: `field` is the entry's path, `expected` says what is expected (no value). */
export class DestinationsError extends Error {
  override readonly name = 'DestinationsError';
  constructor(
    readonly field: string,
    readonly expected: string,
  ) {
    super(`${field}: ${expected}`);
  }
}

export interface DestinationRules {
  /** NOTIFICATIONS_ALLOW_LOOPBACK: loopback addresses (and plain http to them) are allowed. */
  allowLoopback: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost']);

function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname.toLowerCase())) return true;
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(literal) && ipaddr.process(literal).range() === 'loopback';
}

/** Why a literal address in a URL can never be reached (undefined: it can, or the host is a name). */
export function refusedLiteral(hostname: string, rules: DestinationRules): string | undefined {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(literal)) return undefined;
  const range = ipaddr.process(literal).range();
  if (range === 'unicast' || (range === 'loopback' && rules.allowLoopback)) return undefined;
  return `a public address (this one is ${range}${range === 'loopback' ? ': allowed only with NOTIFICATIONS_ALLOW_LOOPBACK=true' : ''})`;
}

/** What is wrong with a destination URL, or undefined. The value itself is never quoted. */
function urlProblem(text: string, type: Destination['type'], rules: DestinationRules): string | undefined {
  const plainHttp = rules.allowLoopback ? 'https URL (http only to a loopback host)' : 'https URL (http only to a loopback host, with NOTIFICATIONS_ALLOW_LOOPBACK=true)';
  if (text.length > MAX_URL_CHARS) return `a URL of at most ${MAX_URL_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `an ${plainHttp}`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowLoopback && isLoopbackHost(url.hostname))) return `an ${plainHttp}`;
  if (url.username !== '' || url.password !== '') return 'a URL without user:password@ (webhooks are authenticated by their signature)';
  if (url.hash !== '') return 'a URL without a #fragment';
  const literal = refusedLiteral(url.hostname, rules);
  if (literal !== undefined) return literal;
  if (type === 'discord' && !/^\/api(?:\/v\d+)?\/webhooks\/\d+\/[\w-]+$/.test(url.pathname)) return 'a Discord webhook URL (…/api/webhooks/<id>/<token>)';
  return undefined;
}

function secretProblem(secret: string): string | undefined {
  const expected = `a Standard Webhooks secret: whsec_ followed by the base64 of ${SECRET_BYTES.min}-${SECRET_BYTES.max} random bytes`;
  if (!secret.startsWith('whsec_')) return expected;
  const encoded = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return expected;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= SECRET_BYTES.min && bytes <= SECRET_BYTES.max ? undefined : expected;
}

const KIND_LIST = NOTIFICATION_KINDS.join(', ');
const FIELD_LIST = NOTIFICATION_FIELDS.join(', ');

const kindSchema = z.enum(NOTIFICATION_KINDS, { error: `an event kind: one of ${KIND_LIST}` });
const fieldSchema = z.enum(NOTIFICATION_FIELDS, { error: `a field: one of ${FIELD_LIST}` });
const kindsSchema = z
  .array(kindSchema, { error: `a list of event kinds (${KIND_LIST})` })
  .min(1, { error: `at least one event kind (${KIND_LIST})` })
  .refine((kinds) => new Set(kinds).size === kinds.length, { error: 'each event kind once' });
const fieldsSchema = z.array(fieldSchema, { error: `a list of fields (${FIELD_LIST})` }).refine((fields) => new Set(fields).size === fields.length, { error: 'each field once' });
const templateText = (max: number) => z.string({ error: `a text of at most ${max} characters` }).max(max, { error: `a text of at most ${max} characters` });
const colorSchema = z.union(
  [z.number().int().min(0).max(0xffffff), z.string().regex(/^#[0-9A-Fa-f]{6}$/).transform((hex) => Number.parseInt(hex.slice(1), 16))],
  { error: 'a colour: "#RRGGBB" or a number 0-16777215' },
);
const templateSchema = z.strictObject(
  {
    title: templateText(256).optional(),
    description: templateText(4096).optional(),
    color: colorSchema.optional(),
    fields: z
      .array(z.strictObject({ name: templateText(256), value: templateText(1024), inline: z.boolean({ error: 'true or false' }).optional() }, { error: 'an embed field: { "name", "value", "inline"? }' }), {
        error: 'a list of embed fields',
      })
      .max(25, { error: 'at most 25 embed fields' })
      .optional(),
  },
  { error: 'a template: { "title"?, "description"?, "color"?, "fields"? }' },
);
const nameSchema = z.string({ error: 'a name: lowercase letters, digits, - and _ (1-64)' }).regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: 'a name: lowercase letters, digits, - and _ (1-64)' });
const concurrencySchema = z.number({ error: 'a number of deliveries in flight 1-64' }).int({ error: 'a number of deliveries in flight 1-64' }).min(1, { error: 'a number of deliveries in flight 1-64' }).max(64, { error: 'a number of deliveries in flight 1-64' });
const common = {
  name: nameSchema,
  url: z.string({ error: 'a URL' }),
  events: kindsSchema,
  fields: fieldsSchema.optional(),
  concurrency: concurrencySchema.optional(),
};
const destinationSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ ...common, type: z.literal('webhook'), secret: z.string({ error: 'a Standard Webhooks secret (whsec_…)' }) }),
    z.strictObject({ ...common, type: z.literal('discord'), templates: z.partialRecord(kindSchema, templateSchema, { error: 'templates by event kind' }).optional() }),
  ],
  { error: 'a destination whose type is webhook or discord' },
);
const milliseconds = (min: number, max: number) => z.number({ error: `milliseconds ${min}-${max}` }).int({ error: `milliseconds ${min}-${max}` }).min(min, { error: `milliseconds ${min}-${max}` }).max(max, { error: `milliseconds ${min}-${max}` });
const fileSchema = z.strictObject(
  {
    destinations: z.array(z.unknown(), { error: 'a list of destinations' }).max(MAX_DESTINATIONS, { error: `at most ${MAX_DESTINATIONS} destinations` }),
    delivery: z
      .strictObject(
        {
          attemptTimeoutMs: milliseconds(100, 120_000).optional(),
          firstRetryDelayMs: milliseconds(1, 3_600_000).optional(),
          maxRetryDelayMs: milliseconds(1, 24 * 3_600_000).optional(),
          retryForMs: milliseconds(1, 7 * 24 * 3_600_000).optional(),
        },
        { error: 'delivery settings: { "attemptTimeoutMs"?, "firstRetryDelayMs"?, "maxRetryDelayMs"?, "retryForMs"? }' },
      )
      .optional(),
  },
  { error: 'an object: { "destinations": [...], "delivery"? }' },
);

/** `a.b[2]` from a zod path. */
function pathText(prefix: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`), prefix);
}

function firstIssue(error: z.ZodError, prefix: string): DestinationsError {
  const issue = error.issues[0];
  // An unknown property: zod's message lists the names (ours, never values).
  const message = issue?.code === 'unrecognized_keys' ? `no property ${issue.keys.map((key) => `"${key}"`).join(', ')} (unknown)` : (issue?.message ?? 'a valid value');
  return new DestinationsError(pathText(prefix, issue?.path ?? []) || '(root)', message);
}

/** A destination's templates: the defaults, overridden property by property; a placeholder checked against its kind and fields. */
function templatesOf(given: Partial<Record<NotificationKind, Partial<DiscordTemplate>>> | undefined, fields: ReadonlySet<NotificationField>, at: string): DiscordTemplates {
  const templates = { ...DEFAULT_DISCORD_TEMPLATES };
  for (const kind of NOTIFICATION_KINDS) {
    const override = given?.[kind];
    if (override === undefined) continue;
    const template: DiscordTemplate = { ...DEFAULT_DISCORD_TEMPLATES[kind], ...override };
    const known = placeholdersOf(kind);
    const texts: Array<[string, string, boolean]> = [
      ['title', template.title, true],
      ['description', template.description, true],
      ...(override.fields ?? []).flatMap((field, index): Array<[string, string, boolean]> => [
        [`fields[${index}].name`, field.name, false],
        [`fields[${index}].value`, field.value, false],
      ]),
    ];
    for (const [where, text, required] of texts) {
      for (const placeholder of placeholdersIn(text)) {
        const field = `${at}.templates.${kind}.${where}`;
        if (!(placeholder in known)) throw new DestinationsError(field, `placeholders of ${kind}: ${Object.keys(known).map((name) => `{${name}}`).join(', ')} (not {${placeholder}})`);
        const needs = known[placeholder];
        // Amounts stay out of a message unless the destination carries them; an embed field that needs one is left out instead.
        if (required && needs === 'amount' && !fields.has('amount')) throw new DestinationsError(field, `no {${placeholder}}: this destination does not carry amounts (add "amount" to its fields)`);
      }
    }
    templates[kind] = template;
  }
  return templates;
}

/** Validates the parsed notifications.json; throws DestinationsError on the first mistake. */
export function parseNotificationsConfig(json: unknown, rules: DestinationRules): NotificationsConfig {
  const file = fileSchema.safeParse(json);
  if (!file.success) throw firstIssue(file.error, '');
  const names = new Set<string>();
  const destinations = file.data.destinations.map((raw, index): Destination => {
    const rawName = (raw as { name?: unknown } | null)?.name;
    // Named by its name once that is valid, by its position before.
    const at = typeof rawName === 'string' && nameSchema.safeParse(rawName).success && !names.has(rawName) ? `destinations[${rawName}]` : `destinations[${index}]`;
    const parsed = destinationSchema.safeParse(raw);
    if (!parsed.success) throw firstIssue(parsed.error, at);
    const entry = parsed.data;
    if (names.has(entry.name)) throw new DestinationsError(`${at}.name`, 'a name no other destination has');
    names.add(entry.name);
    const problem = urlProblem(entry.url, entry.type, rules);
    if (problem !== undefined) throw new DestinationsError(`${at}.url`, problem);
    const fields = new Set(entry.fields ?? DEFAULT_FIELDS[entry.type]);
    const base = { name: entry.name, url: entry.url, events: new Set(entry.events), fields, concurrency: entry.concurrency ?? DEFAULT_CONCURRENCY[entry.type] };
    if (entry.type === 'webhook') {
      const secret = secretProblem(entry.secret);
      if (secret !== undefined) throw new DestinationsError(`${at}.secret`, secret);
      return { ...base, type: 'webhook', secret: entry.secret };
    }
    return { ...base, type: 'discord', templates: templatesOf(entry.templates, fields, at) };
  });
  const delivery = { ...DEFAULT_DELIVERY_SETTINGS, ...file.data.delivery };
  if (delivery.firstRetryDelayMs > delivery.maxRetryDelayMs) throw new DestinationsError('delivery.firstRetryDelayMs', `at most maxRetryDelayMs (${delivery.maxRetryDelayMs})`);
  return { destinations, delivery };
}

/** A URL as logs, errors and the deliveries view show it: origin and path, the last path segment (a token) and the query hidden. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/');
  if (segments.length > 2) segments[segments.length - 1] = '…';
  return `${parsed.origin}${segments.join('/')}${parsed.search === '' ? '' : '?…'}`;
}
