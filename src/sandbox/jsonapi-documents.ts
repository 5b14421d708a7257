/**
 * JSON:API resource objects (https://jsonapi.org/format/1.0/) as the membership platform's API v2
 * writes them: sparse fieldsets (`fields[type]`) select attributes — none unless asked for, as on
 * the real platform — and relationships appear only when included.
 */
import { formatPatreonTime, type MemberRecord, type MembershipDataset, type MembershipTierRecord, type MembershipUserRecord } from './membership-data.js';

export interface ResourceObject {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | { type: string; id: string }[] | null; links?: { related: string } }>;
}

/** Attributes each resource type has; `fields[type]` may only name these. */
export const RESOURCE_ATTRIBUTES = {
  member: [
    'full_name', 'patron_status', 'currently_entitled_amount_cents', 'pledge_relationship_start',
    'campaign_lifetime_support_cents', 'lifetime_support_cents', 'is_follower', 'last_charge_date',
    'last_charge_status', 'will_pay_amount_cents', 'note', 'pledge_cadence',
  ],
  tier: ['title', 'amount_cents', 'description', 'published', 'url', 'user_limit', 'requires_shipping'],
  user: ['first_name', 'full_name', 'vanity', 'url', 'is_creator'],
  campaign: ['creation_name', 'patron_count', 'is_monthly', 'url', 'currency'],
} as const;

export type ResourceType = keyof typeof RESOURCE_ATTRIBUTES;

/** null = every attribute (webhook payloads carry them all). */
export type Fieldsets = Partial<Record<ResourceType, ReadonlySet<string>>> | null;

/** The attribute names to write: the requested ones, or all of them for null fieldsets. */
function attributeNames(type: ResourceType, fields: Fieldsets): Iterable<string> {
  return fields === null ? RESOURCE_ATTRIBUTES[type] : (fields[type] ?? []);
}

/** Builds only the requested attributes (pages of 1,000 members stay cheap). */
function select(type: ResourceType, fields: Fieldsets, value: (name: string) => unknown): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const name of attributeNames(type, fields)) attributes[name] = value(name);
  return attributes;
}

const LAST_CHARGE_DATE = formatPatreonTime(Date.UTC(2025, 11, 1));

function memberAttribute(member: MemberRecord, name: string): unknown {
  const active = member.patronStatus === 'active_patron' || member.patronStatus === 'declined_patron';
  switch (name) {
    case 'full_name':
      return member.fullName;
    case 'patron_status':
      return member.patronStatus;
    case 'currently_entitled_amount_cents':
      return member.currentlyEntitledAmountCents;
    case 'pledge_relationship_start':
      return member.pledgeRelationshipStart;
    case 'campaign_lifetime_support_cents':
    case 'lifetime_support_cents':
      return member.campaignLifetimeSupportCents;
    case 'is_follower':
      return member.patronStatus === null;
    case 'last_charge_date':
      return active ? LAST_CHARGE_DATE : null;
    case 'last_charge_status':
      return member.patronStatus === 'active_patron' ? 'Paid' : member.patronStatus === 'declined_patron' ? 'Declined' : null;
    case 'will_pay_amount_cents':
      return active ? (member.currentlyEntitledAmountCents ?? 0) : 0;
    case 'note':
      return '';
    case 'pledge_cadence':
      return active ? 1 : null;
    default:
      return null;
  }
}

export function memberResource(
  member: MemberRecord,
  campaignId: string,
  fields: Fieldsets,
  include: ReadonlySet<string>,
): ResourceObject {
  const attributes = select('member', fields, (name) => memberAttribute(member, name));
  const relationships: NonNullable<ResourceObject['relationships']> = {};
  if (include.has('currently_entitled_tiers')) {
    relationships.currently_entitled_tiers = { data: member.entitledTierIds.map((id) => ({ type: 'tier', id })) };
  }
  if (include.has('user')) {
    // A member whose user record is gone links to none.
    relationships.user = member.user === null
      ? { data: null }
      : { data: { type: 'user', id: member.user.id }, links: { related: `https://www.patreon.com/api/oauth2/v2/user/${member.user.id}` } };
  }
  if (include.has('campaign')) relationships.campaign = { data: { type: 'campaign', id: campaignId } };
  return { type: 'member', id: member.id, attributes, ...(Object.keys(relationships).length > 0 && { relationships }) };
}

export function tierResource(tier: MembershipTierRecord, fields: Fieldsets): ResourceObject {
  const all: Record<string, unknown> = {
    title: tier.title,
    amount_cents: tier.amountCents,
    description: `<p>${tier.title} rewards</p>`,
    published: true,
    url: `/checkout/sandbox?rid=${tier.id}`,
    user_limit: null,
    requires_shipping: false,
  };
  return { type: 'tier', id: tier.id, attributes: select('tier', fields, (name) => all[name]) };
}

export function userResource(user: MembershipUserRecord, fields: Fieldsets): ResourceObject {
  const attributes = select('user', fields, (name) => {
    switch (name) {
      case 'first_name':
        return user.firstName;
      case 'full_name':
        return user.fullName;
      case 'url':
        return `https://www.patreon.com/user?u=${user.id}`;
      case 'is_creator':
        return false;
      default:
        return null;
    }
  });
  return { type: 'user', id: user.id, attributes };
}

export function campaignResource(dataset: MembershipDataset, campaignId: string, fields: Fieldsets, include: ReadonlySet<string>): ResourceObject {
  const all: Record<string, unknown> = {
    creation_name: 'videos and live streams',
    patron_count: dataset.size,
    is_monthly: true,
    url: 'https://www.patreon.com/sandbox',
    currency: 'USD',
  };
  return {
    type: 'campaign',
    id: campaignId,
    attributes: select('campaign', fields, (name) => all[name]),
    ...(include.has('tiers') && { relationships: { tiers: { data: dataset.tiers.map((tier) => ({ type: 'tier', id: tier.id })) } } }),
  };
}

/** The webhook payload: the member with every attribute, its user, tiers and campaign included. */
export function memberWebhookDocument(dataset: MembershipDataset, member: MemberRecord, campaignId: string): unknown {
  const include = new Set(['currently_entitled_tiers', 'user', 'campaign']);
  const tiers = member.entitledTierIds.flatMap((id) => {
    const tier = dataset.tier(id);
    return tier ? [tierResource(tier, null)] : [];
  });
  return {
    data: memberResource(member, campaignId, null, include),
    included: [campaignResource(dataset, campaignId, null, new Set()), ...(member.user === null ? [] : [userResource(member.user, null)]), ...tiers],
    links: { self: `https://www.patreon.com/api/oauth2/v2/members/${member.id}` },
  };
}
