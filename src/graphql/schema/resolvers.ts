import { GraphQLScalarType, type GraphQLResolveInfo } from 'graphql';
import { DateTimeISOResolver } from 'graphql-scalars';
import type {
  Platform as GraphPlatform,
  Resolvers,
  SupporterChange as GraphSupporterChange,
  SupporterOrder as GraphSupporterOrder,
} from '../../../generated/channel/resolvers-types.js';
import type { ChannelStatsView, Platform, Supporter } from '../../channel/models.js';
import type { SupporterOrder } from '../../channel/order.js';
import type { SupporterChange, SupporterChangeEvent } from '../../channel/supporter-events.js';
import { eventsOf, type ChannelEvents } from '../streams/event-iterator.js';

export type { ChannelEvents } from '../streams/event-iterator.js';
import type { ChannelGraphContext, PlatformIndex, SnapshotIndexes } from './context.js';
import type { ChannelHistory } from '../../history/history-service.js';
import { createHistoryResolvers } from './history-resolvers.js';
import type { Notifications } from '../../notifications/notifications.js';
import { createNotificationResolvers } from './notification-resolvers.js';
import { property } from './property-resolvers.js';
import { toUpstreamUnavailable } from './upstream-error.js';

const PLATFORM_OF: Record<GraphPlatform, Platform> = { MEMBERSHIP: 'membership', VIDEO: 'video' };
const GRAPH_PLATFORM_OF: Record<Platform, GraphPlatform> = { membership: 'MEMBERSHIP', video: 'VIDEO' };
const ORDER_OF: Record<GraphSupporterOrder, SupporterOrder> = { SINCE: 'since', AMOUNT: 'amount' };
const CHANGE_OF: Record<GraphSupporterChange, SupporterChange> = { JOINED: 'joined', LEFT: 'left', UPDATED: 'updated' };
const GRAPH_CHANGE_OF: Record<SupporterChange, GraphSupporterChange> = { joined: 'JOINED', left: 'LEFT', updated: 'UPDATED' };

const ALL_PLATFORMS: readonly Platform[] = ['membership', 'video'];

function platformsOf(platform: GraphPlatform | null | undefined): readonly Platform[] {
  return platform ? [PLATFORM_OF[platform]] : ALL_PLATFORMS;
}

/** Every platform's index without waiting (ChannelGraphContext.platformRead), or undefined when one must be read. */
function readNow(ctx: ChannelGraphContext, platforms: readonly Platform[]): PlatformIndex[] | undefined {
  const now: PlatformIndex[] = [];
  for (const platform of platforms) {
    const index = ctx.platformRead(platform);
    if (index === undefined) return undefined;
    now.push(index);
  }
  return now;
}

/**
 * Reads every platform a nullable field depends on. When one is unavailable the field cannot be
 * answered (the top supporter could be on the missing platform), so it resolves to null with an
 * UPSTREAM_UNAVAILABLE error.
 */
async function readEvery(ctx: ChannelGraphContext, platforms: readonly Platform[], info: GraphQLResolveInfo): Promise<PlatformIndex[]> {
  try {
    return await Promise.all(platforms.map((platform) => ctx.platform(platform)));
  } catch (error) {
    throw toUpstreamUnavailable(error, info);
  }
}

/**
 * Reads the platforms of a non-null list field. The list cannot be null, so it holds the platforms
 * that are available, and each unavailable one adds an UPSTREAM_UNAVAILABLE error at the field's path
 * (the rest of the response still resolves).
 */
async function readAvailable(ctx: ChannelGraphContext, platforms: readonly Platform[], info: GraphQLResolveInfo): Promise<PlatformIndex[]> {
  const reads = await Promise.allSettled(platforms.map((platform) => ctx.platform(platform)));
  const available: PlatformIndex[] = [];
  for (const read of reads) {
    if (read.status === 'fulfilled') available.push(read.value);
    else ctx.partialErrors.push(toUpstreamUnavailable(read.reason, info));
  }
  return available;
}

/**
 * The DateTime scalar: ISO-8601 strings on the wire, validated by graphql-scalars. Its description is
 * the SDL's: graphql-tools copies every enumerable property of a resolver-map scalar over the SDL's,
 * so graphql-scalars' own description is made non-enumerable rather than copied.
 */
const DateTime = new GraphQLScalarType({ ...DateTimeISOResolver.toConfig(), name: 'DateTime' });
Object.defineProperty(DateTime, 'description', { enumerable: false });

/**
 * `answer` of the platforms' indexes: at once from the snapshots in memory, else (a cold store)
 * once `read` (readEvery or readAvailable, whose rules for an unavailable platform it keeps) has
 * read them.
 */
function answerWith<T>(
  ctx: ChannelGraphContext,
  platforms: readonly Platform[],
  info: GraphQLResolveInfo,
  read: typeof readEvery,
  answer: (indexes: readonly PlatformIndex[]) => T,
): T | Promise<T> {
  const now = readNow(ctx, platforms);
  return now !== undefined ? answer(now) : read(ctx, platforms, info).then(answer);
}

/** A supporter of one platform by id; null when there is none. */
function supporterById(ctx: ChannelGraphContext, platform: Platform, id: string, info: GraphQLResolveInfo): Supporter | null | Promise<Supporter | null> {
  return answerWith(ctx, [platform], info, readEvery, ([index]) => index?.supportersById.get(id) ?? null);
}

/** Field resolvers shared by both implementations of the Supporter interface. */
const supporterFields = {
  id: property('id'),
  name: property('name'),
  platform: (supporter: Supporter) => GRAPH_PLATFORM_OF[supporter.platform],
  tier: (supporter: Supporter, _args: unknown, ctx: ChannelGraphContext) => {
    const { tierId } = supporter;
    if (tierId === null) return null;
    const index = ctx.platformRead(supporter.platform);
    if (index) return index.tiersById.get(tierId) ?? null;
    return ctx.platform(supporter.platform).then((read) => read.tiersById.get(tierId) ?? null);
  },
  amountCents: property('amountCents'),
  since: property('since'),
};

/**
 * The channel graph's resolvers, typed by the generated `Resolvers` (codegen maps Supporter, Patron
 * and ChannelMember onto the domain `Supporter`, Tier onto `Tier`, ChannelStats onto
 * `ChannelStatsView`). They read the snapshot store through the per-request context: no HTTP hop.
 */
export function createChannelResolvers(indexes: SnapshotIndexes, events: ChannelEvents, history?: ChannelHistory, notifications?: Notifications): Resolvers {
  const { Query: historyQuery, Subscription: historySubscription, ...historyTypes } = createHistoryResolvers(history, indexes, events);
  const { Query: notificationQuery, ...notificationTypes } = createNotificationResolvers(notifications);
  return {
    DateTime,
    ...historyTypes,
    ...notificationTypes,
    Query: {
      ...historyQuery,
      ...notificationQuery,
      // Each answers at once from the snapshots in memory, and reads (and waits) only when one is missing.
      supporters: (_root, { platform, orderBy }, ctx, info) =>
        answerWith(ctx, platformsOf(platform), info, readAvailable, (available) => indexes.ordered(available, ORDER_OF[orderBy])),
      topSupporter: (_root, { platform }, ctx, info) =>
        answerWith(ctx, platformsOf(platform), info, readEvery, (every) => indexes.ordered(every, 'amount')[0] ?? null),
      patron: (_root, { id }, ctx, info) => supporterById(ctx, 'membership', id, info),
      member: (_root, { id }, ctx, info) => supporterById(ctx, 'video', id, info),
      tiers: (_root, { platform }, ctx, info) =>
        answerWith(ctx, platformsOf(platform), info, readAvailable, (available) => available.flatMap((index) => index.snapshot.tiers)),
      stats: async (_root, _args, ctx, info) => {
        try {
          return await ctx.stats();
        } catch (error) {
          throw toUpstreamUnavailable(error, info);
        }
      },
    },
    Subscription: {
      ...historySubscription,
      supporterChanged: {
        subscribe: (_root, { platform, changes }) => {
          const platforms = platformsOf(platform);
          const kinds = changes ? new Set(changes.map((change) => CHANGE_OF[change])) : undefined;
          return eventsOf<SupporterChangeEvent>(events, (event) =>
            event.type === 'supporter' && platforms.includes(event.supporter.platform) && (kinds === undefined || kinds.has(event.change)) ? event : undefined,
          );
        },
        resolve: (event: SupporterChangeEvent, _args: unknown, ctx: ChannelGraphContext) => {
          // One context serves every event of a subscription: each event reads the snapshots of its time.
          ctx.forgetReads();
          return event;
        },
      },
      statsChanged: {
        subscribe: () => eventsOf<ChannelStatsView>(events, (event) => (event.type === 'stats' ? { ...event.stats, stale: false } : undefined)),
        resolve: (stats: ChannelStatsView) => stats,
      },
    },
    SupporterEvent: {
      id: property('id'),
      change: (event) => GRAPH_CHANGE_OF[event.change],
      supporter: property('supporter'),
      previousAmountCents: property('previousAmountCents'),
      at: property('at'),
    },
    Supporter: {
      __resolveType: (supporter) => (supporter.platform === 'membership' ? 'Patron' : 'ChannelMember'),
    },
    Patron: {
      ...supporterFields,
      lifetimeCents: property('lifetimeCents'),
    },
    ChannelMember: {
      ...supporterFields,
      daysAtTier: property('daysAtTier'),
    },
    Tier: {
      id: property('id'),
      title: property('title'),
      platform: (tier) => GRAPH_PLATFORM_OF[tier.platform],
      amountCents: property('amountCents'),
      supporters: (tier, _args, ctx) => {
        const index = ctx.platformRead(tier.platform);
        if (index) return index.supportersByTierId.get(tier.id) ?? [];
        return ctx.platform(tier.platform).then((read) => read.supportersByTierId.get(tier.id) ?? []);
      },
    },
    ChannelStats: {
      subscribers: property('subscribers'),
      fetchedAt: property('fetchedAt'),
      stale: property('stale'),
    },
  };
}
