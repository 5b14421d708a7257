/**
 * The membership platform adapter (Patreon-style API v2): reads the campaign's tiers and every page
 * of its members through the OAuth2 token keeper, keeps the active patrons, and parses and verifies
 * the platform's pledge webhooks.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { TokenKeeper } from '@channel-graph/oauth2';
import { OAuth2AbortError, OAuth2Error, OAuth2NoTokenError, OAuth2TimeoutError } from '@channel-graph/oauth2';
import {
  ResourceIndex, collectionDocumentSchema, relatedMany, relatedOne, singleDocumentSchema, type CollectionDocument, type ResourceObject,
} from './jsonapi.js';
import type { Supporter, SupportersSnapshot, Tier } from './models.js';
import { UpstreamError, graphCountSchema, parseUpstream, parseUpstreamJson, type UpstreamSource } from './upstream.js';

/**
 * What the membership platform issues to this app (its developer portal): the OAuth2 client, its
 * first tokens, the campaign to read and the key of the webhooks' signature.
 */
export interface MembershipCredentials {
  clientId: string;
  clientSecret: string;
  /**
   * The first access token (the token keeper refreshes it) and its single-use refresh token; both
   * absent when the token comes from `npm run authorize` (the token store).
   */
  accessToken?: string;
  refreshToken?: string;
  campaignId: string;
  /** Key of the webhooks' HMAC signature (X-Patreon-Signature). */
  webhookSecret: string;
}

const SOURCE = 'membership';
const JSON_API = 'application/vnd.api+json';
/** The largest page the platform serves. */
const PAGE_COUNT = 1000;
/** A guard against a platform that keeps linking to new pages forever (100 million members). */
const MAX_PAGES = 100_000;

const memberAttributesSchema = z.looseObject({
  full_name: z.string().nullable().optional(),
  patron_status: z.enum(['active_patron', 'declined_patron', 'former_patron']).nullable(),
  currently_entitled_amount_cents: graphCountSchema,
  pledge_relationship_start: z.iso.datetime({ offset: true }).nullable(),
  campaign_lifetime_support_cents: graphCountSchema.nullable().optional(),
});
type MemberAttributes = z.infer<typeof memberAttributesSchema>;

const tierAttributesSchema = z.looseObject({
  title: z.string().nullable().optional(),
  amount_cents: graphCountSchema.nullable().optional(),
});

const userAttributesSchema = z.looseObject({
  first_name: z.string().nullable().optional(),
  full_name: z.string().nullable().optional(),
});

/** The members request: the attributes, tiers and users the snapshot needs. */
function membersUrl(apiBase: string, campaignId: string): string {
  const url = new URL(`/api/oauth2/v2/campaigns/${encodeURIComponent(campaignId)}/members`, apiBase);
  url.searchParams.set('include', 'currently_entitled_tiers,user');
  url.searchParams.set(
    'fields[member]',
    'full_name,patron_status,currently_entitled_amount_cents,pledge_relationship_start,campaign_lifetime_support_cents',
  );
  url.searchParams.set('fields[tier]', 'title,amount_cents');
  url.searchParams.set('fields[user]', 'first_name,full_name');
  url.searchParams.set('page[count]', String(PAGE_COUNT));
  return url.href;
}

/** The campaign with every tier, so that tiers no current member references still have a title. */
function campaignUrl(apiBase: string, campaignId: string): string {
  const url = new URL(`/api/oauth2/v2/campaigns/${encodeURIComponent(campaignId)}`, apiBase);
  url.searchParams.set('include', 'tiers');
  url.searchParams.set('fields[tier]', 'title,amount_cents');
  return url.href;
}

function toTier(resource: ResourceObject, what: string): Tier {
  const attributes = parseUpstream(SOURCE, `${what} tier ${resource.id}`, tierAttributesSchema, resource.attributes ?? {});
  return { id: resource.id, platform: 'membership', title: attributes.title ?? null, amountCents: attributes.amount_cents ?? null };
}

function firstWord(text: string | null | undefined): string | null {
  const word = text?.trim().split(/\s+/u)[0];
  return word ? word : null;
}

/**
 * The member's level: the highest entitled tier; when the platform lists none, the tier whose
 * amount matches what the member pays; otherwise none.
 */
function levelOf(entitled: readonly Tier[], amountCents: number, tiers: readonly Tier[]): Tier | null {
  let highest: Tier | null = null;
  for (const tier of entitled) {
    if (highest === null || (tier.amountCents ?? -1) > (highest.amountCents ?? -1)) highest = tier;
  }
  return highest ?? tiers.find((tier) => tier.amountCents === amountCents) ?? null;
}

/** A member resource as a Supporter, or null when the member is not an active patron. */
function toSupporter(member: ResourceObject, index: ResourceIndex, tiers: ReadonlyMap<string, Tier>, what: string): Supporter | null {
  const attributes: MemberAttributes = parseUpstream(SOURCE, `${what} member ${member.id}`, memberAttributesSchema, member.attributes ?? {});
  if (attributes.patron_status !== 'active_patron') return null;
  if (attributes.pledge_relationship_start === null) {
    throw new UpstreamError(SOURCE, `malformed ${what}: active member ${member.id} has no pledge_relationship_start`);
  }
  const entitled = relatedMany(member, 'currently_entitled_tiers').map(({ id }) => {
    const tier = tiers.get(id);
    if (!tier) throw new UpstreamError(SOURCE, `malformed ${what}: member ${member.id} is entitled to tier ${id}, which is not included`);
    return tier;
  });
  const userLink = relatedOne(member, 'user');
  const user = userLink ? index.get('user', userLink.id) : undefined;
  const userAttributes = user ? parseUpstream(SOURCE, `${what} user ${user.id}`, userAttributesSchema, user.attributes ?? {}) : {};
  const level = levelOf(entitled, attributes.currently_entitled_amount_cents, [...tiers.values()]);
  return {
    id: member.id,
    platform: 'membership',
    name: firstWord(userAttributes.first_name) ?? firstWord(attributes.full_name) ?? firstWord(userAttributes.full_name),
    tierId: level?.id ?? null,
    amountCents: attributes.currently_entitled_amount_cents,
    since: new Date(attributes.pledge_relationship_start).toISOString(),
    lifetimeCents: attributes.campaign_lifetime_support_cents ?? null,
  };
}

export interface MembershipSourceOptions {
  /** MEMBERSHIP_API_BASE, e.g. https://www.patreon.com */
  apiBase: string;
  campaignId: string;
  /**
   * Holds the OAuth2 token: refreshes before expiry and once after a 401. Its client's
   * `connection.timeout` is the deadline of every request, token endpoint and API alike.
   */
  keeper: TokenKeeper;
}

export function createMembershipSource(options: MembershipSourceOptions): UpstreamSource<SupportersSnapshot> {
  const origin = new URL(options.apiBase).origin;

  async function getDocument(url: string, what: string, signal: AbortSignal | undefined): Promise<unknown> {
    // The bearer token must never go to another origin, whatever a pagination link says.
    if (new URL(url).origin !== origin) throw new UpstreamError(SOURCE, `${what}: the link points to another origin than MEMBERSHIP_API_BASE`);
    let response;
    try {
      response = await options.keeper.request('get', url, { headers: { accept: JSON_API }, raiseErrors: false, signal });
    } catch (error) {
      throw requestFailure(error, what);
    }
    if (response.status !== 200) {
      throw new UpstreamError(SOURCE, `${what}: the platform answered HTTP ${response.status}${jsonApiErrorTitle(response.body)}`, { status: response.status });
    }
    return parseUpstreamJson(SOURCE, what, response.body);
  }

  return {
    name: SOURCE,
    async fetch(signal) {
      const campaign = parseUpstream(SOURCE, 'campaign document', singleDocumentSchema, await getDocument(campaignUrl(options.apiBase, options.campaignId), 'campaign', signal));
      const tiers = new Map<string, Tier>();
      for (const resource of campaign.included ?? []) if (resource.type === 'tier') tiers.set(resource.id, toTier(resource, 'campaign document'));

      const supporters: Supporter[] = [];
      const seen = new Set<string>();
      let url: string | null | undefined = membersUrl(options.apiBase, options.campaignId);
      for (let page = 1; url; page += 1) {
        if (page > MAX_PAGES || seen.has(url)) throw new UpstreamError(SOURCE, `members page ${page}: the pagination does not end (a links.next repeats or exceeds ${MAX_PAGES} pages)`);
        seen.add(url);
        const what = `members page ${page}`;
        const document: CollectionDocument = parseUpstream(SOURCE, what, collectionDocumentSchema, await getDocument(url, what, signal));
        const index = new ResourceIndex();
        index.add(document.included);
        for (const resource of document.included ?? []) if (resource.type === 'tier') tiers.set(resource.id, toTier(resource, what));
        for (const member of document.data) {
          const supporter = toSupporter(member, index, tiers, what);
          if (supporter) supporters.push(supporter);
        }
        url = document.links?.next;
      }
      return { platform: 'membership', supporters, tiers: [...tiers.values()], fetchedAt: new Date().toISOString() };
    },
  };
}

/** The first JSON:API error's title, e.g. " (Unauthorized)"; empty when the body has none. */
function jsonApiErrorTitle(body: string): string {
  try {
    const parsed = JSON.parse(body) as { errors?: { title?: unknown }[] };
    const title = parsed.errors?.[0]?.title;
    return typeof title === 'string' && title.length <= 100 ? ` (${title})` : '';
  } catch {
    return '';
  }
}

/** A failed request as an UpstreamError; OAuth2Error messages hold the error code, never a token. */
function requestFailure(error: unknown, what: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (error instanceof OAuth2Error) {
    // invalid_grant (RFC 6749 §5.2): the refresh token is dead; only a new login brings a valid one.
    const hint = error.code === 'invalid_grant' ? '; log in again with npm run authorize' : '';
    return new UpstreamError(SOURCE, `${what}: refreshing the access token failed: ${error.message}${hint}`, { status: error.response.status, cause: error });
  }
  if (error instanceof OAuth2NoTokenError) {
    return new UpstreamError(SOURCE, `${what}: no usable token (${error.message}); log in with npm run authorize`, { cause: error });
  }
  if (error instanceof OAuth2TimeoutError) {
    return new UpstreamError(SOURCE, `${what}: the request was aborted or timed out (${error.message})`, { cause: error });
  }
  if (error instanceof OAuth2AbortError) {
    return new UpstreamError(SOURCE, `${what}: the request was aborted or timed out (cancelled by the caller)`, { cause: error });
  }
  const name = error instanceof Error ? error.name : 'Error';
  return new UpstreamError(SOURCE, `${what}: the platform could not be reached (${name})`, { cause: error });
}

// ---- Webhooks -------------------------------------------------------------------------------

export type MembershipWebhookEvent = 'members:pledge:create' | 'members:pledge:update' | 'members:pledge:delete';
export const MEMBERSHIP_WEBHOOK_EVENTS: readonly MembershipWebhookEvent[] = ['members:pledge:create', 'members:pledge:update', 'members:pledge:delete'];

export function isMembershipWebhookEvent(value: unknown): value is MembershipWebhookEvent {
  return typeof value === 'string' && (MEMBERSHIP_WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** What a webhook changes in the membership snapshot. */
export type MembershipChange = { kind: 'upsert'; supporter: Supporter; tiers: Tier[] } | { kind: 'remove'; id: string };

/** A webhook body that is not the member document the platform sends. */
export class MembershipWebhookError extends Error {
  override readonly name = 'MembershipWebhookError';
}

/**
 * X-Patreon-Signature is the hex HMAC-MD5 of the raw body keyed with the webhook secret. Compared in
 * constant time; a missing or non-hex signature is simply not valid.
 */
export function verifyWebhookSignature(rawBody: Uint8Array, signature: string | undefined, secret: string): boolean {
  if (signature === undefined || !/^[0-9a-fA-F]{32}$/.test(signature)) return false;
  const expected = createHmac('md5', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** The change a verified webhook stands for: an active pledge is upserted, anything else removed. */
export function parseMembershipWebhook(event: MembershipWebhookEvent, body: unknown): MembershipChange {
  const document = singleDocumentSchema.safeParse(body);
  if (!document.success || document.data.data.type !== 'member') {
    throw new MembershipWebhookError(`webhook ${event}: the body is not a JSON:API member document`);
  }
  const member = document.data.data;
  if (event === 'members:pledge:delete') return { kind: 'remove', id: member.id };
  const index = new ResourceIndex();
  index.add(document.data.included);
  const tiers = new Map<string, Tier>();
  try {
    for (const resource of index.ofType('tier')) tiers.set(resource.id, toTier(resource, `webhook ${event}`));
    const supporter = toSupporter(member, index, tiers, `webhook ${event}`);
    return supporter ? { kind: 'upsert', supporter, tiers: [...tiers.values()] } : { kind: 'remove', id: member.id };
  } catch (error) {
    if (error instanceof UpstreamError) throw new MembershipWebhookError(error.message, { cause: error });
    throw error;
  }
}
