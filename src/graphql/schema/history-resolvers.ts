/**
 * The channel over time in the graph: `totals`, `history`, `supporterChanges`, `supportersConnection`,
 * `goals` and the `goalReached` subscription. History fields are nullable: while the history's
 * database is opening or unreachable they answer null with a HISTORY_UNAVAILABLE error (the rest of
 * the answer, the current data, is served); a question asked wrong (from after to, an interval too
 * fine, a cursor not ours, `first` over its bound) is a BAD_USER_INPUT error.
 */
import type { GraphQLError, GraphQLResolveInfo } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import type {
  GoalMeasure as GraphGoalMeasure,
  HistoryInterval as GraphHistoryInterval,
  Platform as GraphPlatform,
  Resolvers,
  SupporterChangeKind as GraphChangeKind,
  SupporterOrder as GraphSupporterOrder,
} from '../../../generated/channel/resolvers-types.js';
import type { Platform } from '../../channel/models.js';
import { CursorError, pageOfSupporters } from '../../channel/supporter-pages.js';
import type { GoalReachedEvent } from '../../channel/supporter-events.js';
import type { GoalMeasure } from '../../history/goals.js';
import { HistoryQueryError, HistoryUnavailableError, type ChannelHistory, type GoalView } from '../../history/history-service.js';
import type { HistoryInterval } from '../../history/history-queries.js';
import { totalsOf, type ChangeKind } from '../../history/snapshot-diff.js';
import { toUpstreamUnavailable } from './upstream-error.js';
import type { SnapshotIndexes } from './context.js';
import { property } from './property-resolvers.js';
import { eventsOf, type ChannelEvents } from '../streams/event-iterator.js';

/** `extensions.code` of a history field whose database is opening or unreachable. */
export const HISTORY_UNAVAILABLE = 'HISTORY_UNAVAILABLE';

const PLATFORM_OF: Record<GraphPlatform, Platform> = { MEMBERSHIP: 'membership', VIDEO: 'video' };
const GRAPH_PLATFORM_OF: Record<Platform, GraphPlatform> = { membership: 'MEMBERSHIP', video: 'VIDEO' };
const INTERVAL_OF: Record<GraphHistoryInterval, HistoryInterval> = { HOUR: 'hour', DAY: 'day', WEEK: 'week', MONTH: 'month' };
const KIND_OF: Record<GraphChangeKind, ChangeKind> = { JOINED: 'joined', LEFT: 'left', UPGRADED: 'upgraded', DOWNGRADED: 'downgraded', TIER_CHANGED: 'tier_changed' };
const GRAPH_KIND_OF: Record<ChangeKind, GraphChangeKind> = { joined: 'JOINED', left: 'LEFT', upgraded: 'UPGRADED', downgraded: 'DOWNGRADED', tier_changed: 'TIER_CHANGED' };
const GRAPH_MEASURE_OF: Record<GoalMeasure, GraphGoalMeasure> = { members: 'MEMBERS', monthlyCents: 'MONTHLY_CENTS' };
const ORDER_OF = { SINCE: 'since', AMOUNT: 'amount' } as const satisfies Record<GraphSupporterOrder, string>;
const ALL: readonly Platform[] = ['membership', 'video'];

const platformsOf = (platform: GraphPlatform | null | undefined): readonly Platform[] => (platform ? [PLATFORM_OF[platform]] : ALL);

function pathOf(info: GraphQLResolveInfo): Array<string | number> {
  const path: Array<string | number> = [];
  for (let entry: GraphQLResolveInfo['path'] | undefined = info.path; entry; entry = entry.prev) path.unshift(entry.key);
  return path;
}

/** A history failure as a GraphQL error a client can act on; anything else is rethrown (a bug, masked in production). */
export function historyError(error: unknown, info: GraphQLResolveInfo): GraphQLError {
  const at = { nodes: info.fieldNodes, path: pathOf(info) };
  if (error instanceof HistoryUnavailableError) {
    return createGraphQLError(`${error.message}. The current data is still served; retry in ${error.retryAfterSeconds} s.`, {
      ...at,
      extensions: { code: HISTORY_UNAVAILABLE, retryAfterSeconds: error.retryAfterSeconds },
    });
  }
  if (error instanceof HistoryQueryError || error instanceof CursorError) return createGraphQLError(error.message, { ...at, extensions: { code: 'BAD_USER_INPUT' } });
  throw error;
}

function parseTime(value: string): Date {
  return new Date(value);
}

/** The history parts of the resolver map (without history: a graph without a database answers the history fields unavailable). */
export function createHistoryResolvers(history: ChannelHistory | undefined, indexes: SnapshotIndexes, events: ChannelEvents): Pick<
  Resolvers,
  'Totals' | 'PlatformTotals' | 'TierTotals' | 'HistoryPoint' | 'SupporterLevel' | 'SupporterChangeRecord' | 'SupporterChangeEdge' | 'SupporterChangeConnection' | 'PageInfo' | 'SupporterEdge' | 'SupporterConnection' | 'Goal' | 'GoalReachedEvent'
> & { Query: Pick<NonNullable<Resolvers['Query']>, 'totals' | 'history' | 'supporterChanges' | 'supportersConnection' | 'goals'>; Subscription: Pick<NonNullable<Resolvers['Subscription']>, 'goalReached'> } {
  const unavailable = (): never => {
    throw new HistoryUnavailableError('history is unavailable: this graph has no database', 60);
  };
  const need = (): ChannelHistory => history ?? unavailable();
  return {
    Query: {
      // From the snapshots this request reads, like `supporters`: no database needed.
      totals: async (_root, { platform }, ctx, info) => {
        const platforms = platformsOf(platform);
        let read;
        try {
          read = await Promise.all(platforms.map((each) => ctx.platform(each)));
        } catch (error) {
          throw toUpstreamUnavailable(error, info);
        }
        const parts = read.map((index) => totalsOf(index.snapshot));
        const stats = await ctx.stats().catch(() => undefined);
        return {
          members: parts.reduce((sum, part) => sum + part.members, 0),
          monthlyCents: parts.reduce((sum, part) => sum + part.monthlyCents, 0),
          platforms: parts,
          subscribers: stats?.subscribers ?? null,
        };
      },
      history: async (_root, { from, to, interval, platform }, _ctx, info) => {
        try {
          return await need().history({ from: parseTime(from), to: to ? parseTime(to) : new Date(), interval: INTERVAL_OF[interval], platforms: platformsOf(platform) });
        } catch (error) {
          throw historyError(error, info);
        }
      },
      supporterChanges: async (_root, { since, until, kinds, platform, first, after }, _ctx, info) => {
        try {
          return await need().changes({
            since: parseTime(since),
            until: until ? parseTime(until) : undefined,
            kinds: kinds ? kinds.map((kind) => KIND_OF[kind]) : undefined,
            platforms: platformsOf(platform),
            first,
            after: after ?? undefined,
          });
        } catch (error) {
          throw historyError(error, info);
        }
      },
      supportersConnection: async (_root, { platform, orderBy, first, after }, ctx, info) => {
        const platforms = platformsOf(platform);
        const order = ORDER_OF[orderBy];
        const read = await Promise.all(platforms.map((each) => ctx.platform(each)));
        const ordered = indexes.ordered(read, order);
        try {
          const page = pageOfSupporters(ordered, order, platform ?? 'ALL', first, after ?? undefined);
          return { ...page, totalCount: ordered.length };
        } catch (error) {
          throw historyError(error, info);
        }
      },
      goals: async () => (await (history?.goals() ?? Promise.resolve({ goals: [] as GoalView[], historyAvailable: true }))).goals,
    },
    Subscription: {
      goalReached: {
        subscribe: () => eventsOf<GoalReachedEvent>(events, (event) => (event.type === 'goal.reached' ? event : undefined)),
        resolve: (event: GoalReachedEvent) => event,
      },
    },
    Totals: { members: property('members'), monthlyCents: property('monthlyCents'), platforms: property('platforms'), subscribers: property('subscribers') },
    PlatformTotals: { platform: (totals) => GRAPH_PLATFORM_OF[totals.platform], members: property('members'), monthlyCents: property('monthlyCents'), tiers: property('tiers') },
    TierTotals: { tierId: (tier) => (tier.tierId === '' ? null : tier.tierId), title: property('title'), members: property('members'), monthlyCents: property('monthlyCents') },
    HistoryPoint: {
      at: (point) => point.at.toISOString(),
      members: (point) => point.platforms.reduce((sum, part) => sum + part.members, 0),
      monthlyCents: (point) => point.platforms.reduce((sum, part) => sum + part.monthlyCents, 0),
      platforms: property('platforms'),
      subscribers: property('subscribers'),
    },
    SupporterLevel: { tierId: property('tierId'), tierTitle: property('tierTitle'), amountCents: property('amountCents') },
    SupporterChangeRecord: {
      id: (row) => String(row.id),
      kind: (row) => GRAPH_KIND_OF[row.kind],
      platform: (row) => GRAPH_PLATFORM_OF[row.platform],
      supporterId: property('supporterId'),
      name: property('name'),
      before: (row) => (row.amountCentsBefore === null ? null : { tierId: row.tierIdBefore, tierTitle: row.tierTitleBefore, amountCents: row.amountCentsBefore }),
      after: (row) => (row.amountCentsAfter === null ? null : { tierId: row.tierIdAfter, tierTitle: row.tierTitleAfter, amountCents: row.amountCentsAfter }),
      at: (row) => row.observedAt.toISOString(),
    },
    SupporterChangeEdge: { node: property('node'), cursor: property('cursor') },
    SupporterChangeConnection: { edges: property('edges'), pageInfo: property('pageInfo') },
    PageInfo: { hasNextPage: property('hasNextPage'), hasPreviousPage: property('hasPreviousPage'), startCursor: property('startCursor'), endCursor: property('endCursor') },
    SupporterEdge: { node: property('node'), cursor: property('cursor') },
    SupporterConnection: { edges: property('edges'), pageInfo: property('pageInfo'), totalCount: property('totalCount') },
    Goal: {
      id: property('id'),
      title: property('title'),
      measure: (goal) => GRAPH_MEASURE_OF[goal.measure],
      platform: (goal) => (goal.platform === null ? null : GRAPH_PLATFORM_OF[goal.platform]),
      target: property('target'),
      value: property('value'),
      progress: property('progress'),
      reached: property('reached'),
      reachedAt: (goal) => goal.reachedAt?.toISOString() ?? null,
    },
    GoalReachedEvent: {
      id: property('id'),
      goal: (event) => ({ ...event.goal, value: event.value, progress: event.value / event.goal.target, reached: true, reachedAt: new Date(event.at) }),
      value: property('value'),
      at: property('at'),
    },
  };
}
