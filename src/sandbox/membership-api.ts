/**
 * The membership platform's resource API (Patreon-style API v2, openapi/upstreams/membership-v2.yaml):
 * the campaign and its members, as JSON:API documents (`application/vnd.api+json`) with cursor
 * pagination, behind bearer tokens. Pages hold at most 1,000 members (500 with `pledge_history`), or
 * fewer (`membersPageLimit`) while a next cursor follows; the next page is given as today's docs give
 * it (`meta.pagination.cursors.next`), or as a `links.next` carrying only `page[cursor]`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyFault } from './fault-responses.js';
import { send } from './http-kit.js';
import {
  RESOURCE_ATTRIBUTES, campaignResource, memberResource, tierResource, userResource,
  type Fieldsets, type ResourceObject, type ResourceType,
} from './jsonapi-documents.js';
import { JSON_API, sendJsonApiError } from './platform-errors.js';
import type { SandboxState } from './state.js';

const DEFAULT_PAGE_COUNT = 20;
const MAX_PAGE_COUNT = 1000;
/** "If pledge events are requested in includes, it has 500 results in one page." */
const MAX_PAGE_COUNT_WITH_PLEDGE_HISTORY = 500;

const MEMBERS_PATH = /^\/api\/oauth2\/v2\/campaigns\/([^/]+)\/members$/;
const CAMPAIGN_PATH = /^\/api\/oauth2\/v2\/campaigns\/([^/]+)$/;

class ParameterError extends Error {}

/** Handles the request when it is a membership API path; returns false otherwise. */
export async function handleMembershipApi(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const members = MEMBERS_PATH.exec(url.pathname);
  const campaign = members ? null : CAMPAIGN_PATH.exec(url.pathname);
  if (!members && !campaign) return false;
  state.requests[members ? 'members' : 'campaign'] += 1;
  if (req.method !== 'GET') {
    sendJsonApiError(res, 405, 'Method Not Allowed', `${req.method ?? ''} is not allowed here; use GET`, { allow: 'GET' });
    return true;
  }
  if (await applyFault(state, 'membership', res)) return true;
  if (!authorize(state, req, res)) return true;
  const campaignId = decodeURIComponent((members ?? campaign)?.[1] ?? '');
  if (campaignId !== state.credentials.campaignId) {
    sendJsonApiError(res, 404, 'Not Found', `campaign ${campaignId} does not exist or is not yours`);
    return true;
  }
  try {
    if (members) listMembers(state, res, url);
    else showCampaign(state, res, url);
  } catch (error) {
    if (!(error instanceof ParameterError)) throw error;
    sendJsonApiError(res, 400, 'Bad Request', error.message);
  }
  return true;
}

/** RFC 6750 §3: a missing, unknown or expired bearer token is a 401 with WWW-Authenticate. */
function authorize(state: SandboxState, req: IncomingMessage, res: ServerResponse): boolean {
  const match = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '');
  const check = state.tokens.checkAccess(match?.[1]);
  if (check.ok) return true;
  const description =
    check.reason === 'missing' ? 'no bearer token was sent' : check.reason === 'expired' ? 'the access token expired' : 'the access token is invalid';
  const challenge = check.reason === 'missing' ? 'Bearer realm="sandbox"' : `Bearer realm="sandbox", error="invalid_token", error_description="${description}"`;
  sendJsonApiError(res, 401, 'Unauthorized', `The server could not verify that you are authorized to access the URL requested: ${description}.`, {
    'www-authenticate': challenge,
  });
  return false;
}

function parseInclude(url: URL, allowed: readonly string[]): Set<string> {
  const raw = url.searchParams.get('include');
  const include = new Set(raw ? raw.split(',').map((name) => name.trim()).filter(Boolean) : []);
  for (const name of include) {
    if (!allowed.includes(name)) throw new ParameterError(`include: unknown relationship "${name}"; expected some of ${allowed.join(', ')}`);
  }
  return include;
}

/** JSON:API §sparse fieldsets: fields[type]=a,b — every name must be an attribute of that type. */
function parseFieldsets(url: URL): Fieldsets {
  const fieldsets: Partial<Record<ResourceType, ReadonlySet<string>>> = {};
  for (const [name, value] of url.searchParams) {
    const match = /^fields\[(.+)\]$/.exec(name);
    if (!match) continue;
    const type = match[1] as ResourceType;
    const known: readonly string[] | undefined = RESOURCE_ATTRIBUTES[type];
    if (!known) throw new ParameterError(`${name}: unknown resource type "${match[1]}"`);
    const wanted = value.split(',').map((field) => field.trim()).filter(Boolean);
    for (const field of wanted) {
      if (!known.includes(field)) throw new ParameterError(`${name}: "${field}" is not an attribute of ${type}`);
    }
    fieldsets[type] = new Set(wanted);
  }
  return fieldsets;
}

function parsePageCount(url: URL): number {
  const raw = url.searchParams.get('page[count]');
  if (raw === null) return DEFAULT_PAGE_COUNT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new ParameterError(`page[count]: expected a positive integer, got "${raw}"`);
  return Math.min(Number(raw), MAX_PAGE_COUNT);
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(raw: string, size: number): number {
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof value.o === 'number' && Number.isInteger(value.o) && value.o >= 0 && value.o <= size) return value.o;
  } catch {
    // falls through to the error below
  }
  throw new ParameterError('page[cursor]: not a cursor this API issued');
}

function listMembers(state: SandboxState, res: ServerResponse, url: URL): void {
  const include = parseInclude(url, ['currently_entitled_tiers', 'user', 'campaign', 'address', 'pledge_history']);
  const fields = parseFieldsets(url);
  const limit = Math.min(include.has('pledge_history') ? MAX_PAGE_COUNT_WITH_PLEDGE_HISTORY : MAX_PAGE_COUNT, state.membersPageLimit);
  const count = Math.min(parsePageCount(url), limit);
  const cursor = url.searchParams.get('page[cursor]');
  const offset = cursor === null ? 0 : decodeCursor(cursor, state.membership.size);
  const page = state.membership.slice(offset, offset + count);
  const campaignId = state.credentials.campaignId;
  const data = page.map((member) => memberResource(member, campaignId, fields, include));
  const included: ResourceObject[] = [];
  if (include.has('user')) included.push(...page.flatMap((member) => (member.user === null ? [] : [userResource(member.user, fields)])));
  if (include.has('currently_entitled_tiers')) {
    const tierIds = new Set(page.flatMap((member) => member.entitledTierIds));
    for (const tier of state.membership.tiers) if (tierIds.has(tier.id)) included.push(tierResource(tier, fields));
  }
  if (include.has('campaign') && page.length > 0) included.push(campaignResource(state.membership, campaignId, fields, new Set()));
  const nextOffset = offset + page.length;
  const nextCursor = nextOffset < state.membership.size ? encodeCursor(nextOffset) : null;
  const document: Record<string, unknown> = { data, ...(include.size > 0 && { included }) };
  if (state.membershipPagination === 'cursor') {
    // Today's docs: the next cursor and the total in meta, no links.
    document.meta = { pagination: { cursors: { next: nextCursor }, total: state.membership.size } };
  } else if (nextCursor !== null) {
    // The 2018 first cut's links.next: the members URL with page[cursor] only, none of the query.
    const next = new URL(url.pathname, state.baseUrl);
    next.searchParams.set('page[cursor]', nextCursor);
    document.links = { next: next.href };
  }
  send(res, 200, JSON_API, JSON.stringify(document));
}

function showCampaign(state: SandboxState, res: ServerResponse, url: URL): void {
  const include = parseInclude(url, ['tiers', 'creator', 'benefits', 'goals']);
  const fields = parseFieldsets(url);
  const document = {
    data: campaignResource(state.membership, state.credentials.campaignId, fields, include),
    ...(include.has('tiers') && { included: state.membership.tiers.map((tier) => tierResource(tier, fields)) }),
    links: { self: `https://www.patreon.com/api/oauth2/v2/campaigns/${state.credentials.campaignId}` },
  };
  send(res, 200, JSON_API, JSON.stringify(document));
}
