/**
 * The membership platform adapter (Patreon-style API v2, openapi/upstreams/membership-v2.yaml):
 * reads the campaign's tiers and every page of its members through the OAuth2 token keeper, keeps
 * the active patrons, and parses and verifies the platform's member webhooks. Every document and
 * record is checked with the validators compiled from that contract; a record that cannot be read
 * is skipped and reported, and only a page that cannot be read fails the fetch.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TokenKeeper } from '@channel-graph/oauth2';
import { OAuth2AbortError, OAuth2Error, OAuth2NoTokenError, OAuth2TimeoutError } from '@channel-graph/oauth2';
import type { components, operations } from '../../generated/upstreams/membership-v2.js';
import {
  validateCampaignDocument, validateMemberDocument, validateMemberResource, validateMembersPage, validateTierResource, validateUserResource, validateWebhookTrigger,
} from '../../generated/upstreams/membership-v2.validators.js';
import { stripDecorativeEmoji } from './emoji.js';
import { ResourceIndex, relatedMany, relatedOne, type ResourceObject } from './jsonapi.js';
import type { Supporter, SupportersSnapshot, Tier } from './models.js';
import {
  IncompleteReadError, UpstreamError, describeIssues, graphCount, parseUpstreamJson, validateUpstream,
  type ReadReport, type SkipReason, type SkippedRecord, type UpstreamSource,
} from './upstream.js';

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
/** The largest page the platform serves ("Returns from this endpoint have 1000 results in one page"). */
const PAGE_COUNT = 1000;
/** A guard against a platform that keeps giving new cursors forever (100 million members). */
const MAX_PAGES = 100_000;

type MemberResource = components['schemas']['MemberResource'];
type MembersQuery = NonNullable<operations['getCampaignMembers']['parameters']['query']>;

/**
 * The service's own members query: the attributes, tiers and users a snapshot needs. Every page is
 * asked with it, the first and each next one (only `page[cursor]` changes), so no page comes back
 * without attributes.
 */
const MEMBERS_QUERY = {
  include: 'currently_entitled_tiers,user',
  'fields[member]': 'full_name,patron_status,currently_entitled_amount_cents,pledge_relationship_start,campaign_lifetime_support_cents',
  'fields[tier]': 'title,amount_cents',
  'fields[user]': 'first_name,full_name',
  'page[count]': PAGE_COUNT,
} as const satisfies MembersQuery;

/** The members request: the service's query on `url` (the first page's, or a `links.next`), plus a cursor. */
function membersUrl(url: URL, cursor?: string): string {
  for (const [name, value] of Object.entries(MEMBERS_QUERY)) url.searchParams.set(name, String(value));
  if (cursor !== undefined) url.searchParams.set('page[cursor]', cursor);
  return url.href;
}

/** The campaign with every tier, so that tiers no current member references still have a title. */
function campaignUrl(apiBase: string, campaignId: string): string {
  const url = new URL(`/api/oauth2/v2/campaigns/${encodeURIComponent(campaignId)}`, apiBase);
  url.searchParams.set('include', 'tiers');
  url.searchParams.set('fields[tier]', 'title,amount_cents');
  return url.href;
}

/** A record this adapter could not read: reported to the fetch's ReadReport (webhooks: the reason of a 400). */
class Unreadable {
  constructor(readonly record: SkippedRecord) {}
}

const unreadable = (id: string, reason: SkipReason, detail: string): Unreadable => new Unreadable({ id, reason, detail });

/** A tier resource (`tier`, or the 2018 name `reward`) as a Tier; its title without decorative emoji. */
function toTier(resource: ResourceObject): Tier | Unreadable {
  if (!validateTierResource(resource)) return unreadable(`tier ${resource.id}`, 'malformed', describeIssues(validateTierResource));
  const { title, amount_cents: amount } = resource.attributes ?? {};
  const amountCents = amount === undefined ? null : graphCount(amount);
  if (amount !== undefined && amountCents === null) return unreadable(`tier ${resource.id}`, 'malformed', '/attributes/amount_cents: out of range');
  return { id: resource.id, platform: 'membership', title: title === undefined ? null : stripDecorativeEmoji(title) || null, amountCents };
}

/** The tiers among `resources`; each unreadable one is reported and left out. */
function tiersOf(resources: readonly ResourceObject[] | undefined, into: Map<string, Tier>, report: ReadReport | undefined): void {
  for (const resource of resources ?? []) {
    if (resource.type !== 'tier' && resource.type !== 'reward') continue;
    const tier = toTier(resource);
    if (tier instanceof Unreadable) report?.skipped(tier.record);
    else into.set(tier.id, tier);
  }
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

/** Whether a member resource is an active patron, read before anything else of it is validated. */
function isActivePatron(resource: ResourceObject): boolean {
  return resource.attributes?.patron_status === 'active_patron';
}

/**
 * An active patron's member resource as a Supporter. Its user, when included and readable, gives
 * the first name; an unreadable user is reported and the member keeps the name of its full_name.
 */
function toSupporter(resource: ResourceObject, index: ResourceIndex, tiers: ReadonlyMap<string, Tier>, report: ReadReport | undefined): Supporter | Unreadable {
  const id = `member ${resource.id}`;
  if (!validateMemberResource(resource)) return unreadable(id, 'malformed', describeIssues(validateMemberResource));
  const member: MemberResource = resource;
  const attributes = member.attributes ?? {};
  const amount = attributes.currently_entitled_amount_cents;
  const start = attributes.pledge_relationship_start;
  if (amount === undefined || amount === null) return unreadable(id, 'incomplete', 'an active patron without currently_entitled_amount_cents');
  if (start === undefined || start === null) return unreadable(id, 'incomplete', 'an active patron without pledge_relationship_start');
  const amountCents = graphCount(amount);
  if (amountCents === null) return unreadable(id, 'malformed', '/attributes/currently_entitled_amount_cents: out of range');
  const since = Date.parse(start);
  if (Number.isNaN(since)) return unreadable(id, 'malformed', '/attributes/pledge_relationship_start: not a date-time');
  // campaign_lifetime_support_cents, or the deprecated lifetime_support_cents of older payloads.
  const lifetime = attributes.campaign_lifetime_support_cents ?? attributes.lifetime_support_cents;
  const lifetimeCents = lifetime === undefined ? null : graphCount(lifetime);
  if (lifetime !== undefined && lifetimeCents === null) return unreadable(id, 'malformed', '/attributes/campaign_lifetime_support_cents: out of range');

  // The 2018 payloads name the entitled tiers currently_entitled_rewards; a tier not included is left out.
  const relationships = member.relationships ?? {};
  const entitled = relatedMany(relationships.currently_entitled_tiers ?? relationships.currently_entitled_rewards).flatMap(({ id: tierId }) => tiers.get(tierId) ?? []);
  const userLink = relatedOne(relationships.user);
  const userResource = userLink ? index.get('user', userLink.id) : undefined;
  let user: UserAttributes = {};
  if (userResource !== undefined) {
    if (validateUserResource(userResource)) user = userResource.attributes ?? {};
    else report?.skipped({ id: `user ${userResource.id}`, reason: 'malformed', detail: describeIssues(validateUserResource) });
  }
  const level = levelOf(entitled, amountCents, [...tiers.values()]);
  return {
    id: member.id,
    platform: 'membership',
    name: firstWord(user.first_name) ?? firstWord(attributes.full_name) ?? firstWord(user.full_name),
    tierId: level?.id ?? null,
    amountCents,
    since: new Date(since).toISOString(),
    lifetimeCents,
  };
}

type UserAttributes = NonNullable<components['schemas']['UserResource']['attributes']>;

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
  const firstPage = new URL(`/api/oauth2/v2/campaigns/${encodeURIComponent(options.campaignId)}/members`, options.apiBase);

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

  /**
   * The next page's URL: the service's query with `meta.pagination.cursors.next` (today's docs: "cycle
   * until there is no next page cursor"); failing that, with the `page[cursor]` of `links.next` (the
   * 2018 first cut: a link carrying only the cursor), or the link itself with the service's query
   * applied over it; undefined on the last page.
   */
  function nextPageUrl(page: components['schemas']['MembersPage']): string | undefined {
    const cursor = page.meta?.pagination?.cursors?.next;
    if (typeof cursor === 'string' && cursor !== '') return membersUrl(new URL(firstPage), cursor);
    const link = page.links?.next;
    if (typeof link !== 'string' || link === '') return undefined;
    const next = new URL(link, options.apiBase);
    const linked = next.searchParams.get('page[cursor]');
    return linked !== null && linked !== '' ? membersUrl(new URL(firstPage), linked) : membersUrl(next);
  }

  return {
    name: SOURCE,
    async fetch(signal, report) {
      const campaign = validateUpstream(SOURCE, 'campaign document', validateCampaignDocument, await getDocument(campaignUrl(options.apiBase, options.campaignId), 'campaign', signal));
      const tiers = new Map<string, Tier>();
      tiersOf(campaign.included, tiers, report);

      const supporters: Supporter[] = [];
      const listed = new Set<string>();
      let url: string | undefined = membersUrl(new URL(firstPage));
      const asked = new Set<string>([url]);
      let records = 0;
      for (let page = 1; url !== undefined; page += 1) {
        const what = `members page ${page}`;
        const document = validateUpstream(SOURCE, what, validateMembersPage, await getDocument(url, what, signal));
        const index = new ResourceIndex();
        index.add(document.included);
        tiersOf(document.included, tiers, report);
        for (const resource of document.data) {
          records += 1;
          if (resource.type !== 'member') {
            report?.skipped({ id: `${resource.type} ${resource.id}`, reason: 'malformed', detail: '/type: a resource other than a member among the members' });
            continue;
          }
          // Not a current supporter: filtered out before anything else of it is read.
          if (!isActivePatron(resource) || listed.has(resource.id)) continue;
          const supporter = toSupporter(resource, index, tiers, report);
          if (supporter instanceof Unreadable) {
            report?.skipped(supporter.record);
            continue;
          }
          listed.add(supporter.id);
          supporters.push(supporter);
        }
        url = nextPageUrl(document);
        if (url === undefined) break;
        if (asked.has(url) || page >= MAX_PAGES) {
          const why = asked.has(url) ? 'the platform gave the cursor of a page already read' : `the pagination goes on past ${MAX_PAGES} pages`;
          throw new IncompleteReadError(SOURCE, `members page ${page + 1}: ${why}; stopped after ${records} members, not served as the whole list`);
        }
        asked.add(url);
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

/** The triggers of the contract (docs: Triggers v2), member and pledge alike. */
export type MembershipWebhookEvent = components['schemas']['WebhookTrigger'];
export const MEMBERSHIP_WEBHOOK_EVENTS: readonly MembershipWebhookEvent[] = [
  'members:pledge:create', 'members:pledge:update', 'members:pledge:delete', 'members:create', 'members:update', 'members:delete',
];

export const isMembershipWebhookEvent: (value: unknown) => value is MembershipWebhookEvent = validateWebhookTrigger;

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

/**
 * The change a verified webhook stands for. A delete trigger, and a member who is not an active
 * patron now — a null or other status, or a null amount, as in the docs' own sample — remove the
 * member; an active patron is upserted with the same rules as the listing. Included records that
 * cannot be read are left out (a tier, a user), as in the listing.
 */
export function parseMembershipWebhook(event: MembershipWebhookEvent, body: unknown): MembershipChange {
  if (!validateMemberDocument(body)) {
    throw new MembershipWebhookError(`webhook ${event}: the body is not a JSON:API member document (${describeIssues(validateMemberDocument)})`);
  }
  const member = body.data;
  if (event.endsWith(':delete') || !isActivePatron(member) || member.attributes?.currently_entitled_amount_cents === null) return { kind: 'remove', id: member.id };
  const index = new ResourceIndex();
  index.add(body.included);
  const tiers = new Map<string, Tier>();
  tiersOf(body.included, tiers, undefined);
  const supporter = toSupporter(member, index, tiers, undefined);
  if (supporter instanceof Unreadable) throw new MembershipWebhookError(`webhook ${event}: ${supporter.record.id} cannot be read: ${supporter.record.detail}`);
  return { kind: 'upsert', supporter, tiers: [...tiers.values()] };
}
