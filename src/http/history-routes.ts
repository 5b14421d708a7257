/**
 * The history's REST side (openapi/channel-api.yaml, tag `history`): GET /totals and /goals from the
 * snapshots in memory, GET /history and /changes from the database. A question asked wrong is a 400
 * saying what was wrong; the database opening or unreachable is a 503 with Retry-After (the current
 * data keeps being served by the other paths). Lists take `limit` and `cursor` and answer a `Link`
 * header (RFC 8288) to their next page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Platform } from '../channel/models.js';
import type { SnapshotStore } from '../channel/snapshot-store.js';
import { CursorError } from '../lib/cursor.js';
import type { Compression } from '../lib/compression.js';
import { HISTORY_INTERVALS, type HistoryInterval, type HistoryPoint } from '../history/history-queries.js';
import { HistoryQueryError, type ChannelHistory } from '../history/history-service.js';
import { CHANGE_KINDS, totalsOf, type ChangeKind, type PlatformTotals } from '../history/snapshot-diff.js';
import type { ChannelApiComponents as components } from '@channel-graph/client/rest';
import { serialize } from './serialized-body.js';

type Schemas = components['schemas'];

/** A query parameter the client got wrong: 400 with this message. */
export class QueryParameterError extends Error {
  override readonly name = 'QueryParameterError';
}

export { CursorError, HistoryQueryError };

const PLATFORMS: readonly Platform[] = ['membership', 'video'];

/** A parameter given at most once; undefined when absent. */
export function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw new QueryParameterError(`query parameter "${name}" must be given at most once`);
  return values[0];
}

function required(query: URLSearchParams, name: string, what: string): string {
  const value = single(query, name);
  if (value === undefined || value === '') throw new QueryParameterError(`query parameter "${name}" is required: ${what}`);
  return value;
}

/** An RFC 3339 date-time (what `format: date-time` means); anything else is refused, not guessed. */
function dateTime(name: string, value: string): Date {
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new QueryParameterError(`query parameter "${name}" must be a date-time such as 2025-01-31T00:00:00Z, got "${value.slice(0, 64)}"`);
  return new Date(time);
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new QueryParameterError(`query parameter "${name}" must be one of ${allowed.map((item) => `"${item}"`).join(', ')}, got "${value.slice(0, 64)}"`);
  return value as T;
}

export function readPlatforms(query: URLSearchParams): readonly Platform[] {
  const value = single(query, 'platform');
  return value === undefined ? PLATFORMS : [oneOf('platform', value, PLATFORMS)];
}

/** `limit`: absent → undefined; otherwise a whole number from 1 to `max`. */
export function readLimit(query: URLSearchParams, max: number): number | undefined {
  const value = single(query, 'limit');
  if (value === undefined) return undefined;
  if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > max) throw new QueryParameterError(`query parameter "limit" must be a whole number from 1 to ${max}, got "${value.slice(0, 64)}"`);
  return Number(value);
}

/** The `Link` header of the page after this one: the request's own URL with `cursor` set. */
export function nextLink(request: IncomingMessage, cursor: string): string {
  const url = new URL(request.url ?? '/', 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}

const HEADERS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Link' } as const;

function send(request: IncomingMessage, response: ServerResponse, body: unknown, compression: Compression | undefined, link?: string): void {
  serialize(body, { headers: link === undefined ? HEADERS : { ...HEADERS, link }, effort: 'answer', ...(compression === undefined ? {} : { compression }) }).send(request, response);
}

const platformBody = (totals: PlatformTotals): Schemas['PlatformTotals'] => ({
  platform: totals.platform,
  members: totals.members,
  monthly_cents: totals.monthlyCents,
  tiers: totals.tiers.map((tier) => ({ tier_id: tier.tierId === '' ? null : tier.tierId, title: tier.title, members: tier.members, monthly_cents: tier.monthlyCents })),
});

const pointBody = (point: HistoryPoint): Schemas['HistoryPoint'] => ({
  at: point.at.toISOString(),
  members: point.platforms.reduce((sum, part) => sum + part.members, 0),
  monthly_cents: point.platforms.reduce((sum, part) => sum + part.monthlyCents, 0),
  platforms: point.platforms.map((part) => platformBody(part)),
  subscribers: point.subscribers,
});

type Route = (request: IncomingMessage, response: ServerResponse, query: URLSearchParams) => Promise<void>;

export function createHistoryRoutes(options: { store: Pick<SnapshotStore, 'read'>; history: ChannelHistory; compression?: Compression | undefined }): Record<string, { GET: Route }> {
  const { store, history, compression } = options;
  return {
    '/totals': {
      GET: async (request, response, query) => {
        const platforms = readPlatforms(query);
        const parts = await Promise.all(platforms.map(async (platform) => totalsOf((await store.read(platform)).data)));
        const stats = await store.read('stats').catch(() => undefined);
        const body: Schemas['TotalsResponse'] = {
          members: parts.reduce((sum, part) => sum + part.members, 0),
          monthly_cents: parts.reduce((sum, part) => sum + part.monthlyCents, 0),
          platforms: parts.map(platformBody),
          subscribers: stats?.data.subscribers ?? null,
        };
        send(request, response, body, compression);
      },
    },
    '/goals': {
      GET: async (request, response) => {
        const { goals, historyAvailable } = await history.goals();
        const body: Schemas['GoalsResponse'] = {
          history_available: historyAvailable,
          goals: goals.map((goal) => ({
            id: goal.id, title: goal.title, measure: goal.measure, platform: goal.platform, target: goal.target,
            value: goal.value, progress: goal.progress, reached: goal.reached, reached_at: goal.reachedAt?.toISOString() ?? null,
          })),
        };
        send(request, response, body, compression);
      },
    },
    '/history': {
      GET: async (request, response, query) => {
        const from = dateTime('from', required(query, 'from', 'the start of the range, a date-time'));
        const toText = single(query, 'to');
        const to = toText === undefined ? new Date() : dateTime('to', toText);
        const intervalText = single(query, 'interval');
        const interval: HistoryInterval = intervalText === undefined ? 'day' : oneOf('interval', intervalText, HISTORY_INTERVALS);
        const points = await history.history({ from, to, interval, platforms: readPlatforms(query) });
        send(request, response, { points: points.map(pointBody) } satisfies Schemas['HistoryResponse'], compression);
      },
    },
    '/changes': {
      GET: async (request, response, query) => {
        const since = dateTime('since', required(query, 'since', 'the start of the range, a date-time'));
        const untilText = single(query, 'until');
        const kindsText = single(query, 'kinds');
        const kinds = kindsText === undefined ? undefined : kindsText.split(',').map((kind): ChangeKind => oneOf('kinds', kind, CHANGE_KINDS));
        const page = await history.changes({
          since,
          until: untilText === undefined ? undefined : dateTime('until', untilText),
          kinds,
          platforms: readPlatforms(query),
          first: readLimit(query, 500) ?? 50,
          after: single(query, 'cursor'),
        });
        const body: Schemas['ChangesResponse'] = {
          changes: page.edges.map(({ node }) => ({
            id: String(node.id),
            kind: node.kind,
            platform: node.platform,
            supporter_id: node.supporterId,
            name: node.name,
            before: node.amountCentsBefore === null ? null : { tier_id: node.tierIdBefore, tier_title: node.tierTitleBefore, amount_cents: node.amountCentsBefore },
            after: node.amountCentsAfter === null ? null : { tier_id: node.tierIdAfter, tier_title: node.tierTitleAfter, amount_cents: node.amountCentsAfter },
            at: node.observedAt.toISOString(),
          })),
          next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
        };
        send(request, response, body, compression, body.next_cursor === null ? undefined : nextLink(request, body.next_cursor));
      },
    },
  };
}
