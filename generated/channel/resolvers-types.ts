import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { Supporter as SupporterModel, Tier as TierModel, ChannelStatsView as ChannelStatsViewModel } from '../../src/channel/models.js';
import type { SupporterChangeEvent as SupporterChangeEventModel, GoalReachedEvent as GoalReachedEventModel } from '../../src/channel/supporter-events.js';
import type { DeliveryView as DeliveryViewModel } from '../../src/notifications/outbox.js';
import type { TotalsView as TotalsViewModel, GoalView as GoalViewModel } from '../../src/history/history-service.js';
import type { PlatformTotals as PlatformTotalsModel, TierTotals as TierTotalsModel } from '../../src/history/snapshot-diff.js';
import type { HistoryPoint as HistoryPointModel, ChangeRow as ChangeRowModel } from '../../src/history/history-queries.js';
import type { ChannelGraphContext } from '../../src/graphql/schema/context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An instant in time, as an ISO-8601 / RFC 3339 string on the wire (for example `2024-05-01T12:00:00.000Z`). */
  DateTime: { input: string; output: string; }
};

/** A paid member of the video channel. */
export type ChannelMember = Supporter & {
  __typename?: 'ChannelMember';
  /** The monthly price of the member's level, in cents. */
  amountCents: Scalars['Int']['output'];
  /** How many days the member has been at their current level. */
  daysAtTier?: Maybe<Scalars['Int']['output']>;
  /** The member's channel id on the video platform. */
  id: Scalars['String']['output'];
  /** The first word of the member's channel title. */
  name?: Maybe<Scalars['String']['output']>;
  /** Always VIDEO. */
  platform: Platform;
  /** When the member reached their current level. */
  since?: Maybe<Scalars['DateTime']['output']>;
  /** The membership level the member is at. */
  tier?: Maybe<Tier>;
};

/** Statistics of the video channel. */
export type ChannelStats = {
  __typename?: 'ChannelStats';
  /** When the statistics were read from the platform. */
  fetchedAt: Scalars['DateTime']['output'];
  /** True when the last refresh failed and these figures are the last good ones. */
  stale: Scalars['Boolean']['output'];
  /** The channel's lifetime subscriber count; null when the platform does not report it. */
  subscribers?: Maybe<Scalars['Int']['output']>;
};

/** A goal of the goals file and how far the channel is. */
export type Goal = {
  __typename?: 'Goal';
  /** The goal's id in the goals file. */
  id: Scalars['String']['output'];
  /** What it counts. */
  measure: GoalMeasure;
  /** The platform counted; null for both together. */
  platform?: Maybe<Platform>;
  /** value / target (1 or more once reached). */
  progress: Scalars['Float']['output'];
  /** Whether the figure is at or above the target now. */
  reached: Scalars['Boolean']['output'];
  /** When the goal was last crossed; null when never, or while the history is unavailable. */
  reachedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The figure to reach. */
  target: Scalars['Int']['output'];
  /** What the goal is called. */
  title: Scalars['String']['output'];
  /** The figure now. */
  value: Scalars['Int']['output'];
};

/** What a goal counts. */
export type GoalMeasure =
  /** Supporters. */
  | 'MEMBERS'
  /** Monthly amount, in cents. */
  | 'MONTHLY_CENTS';

/** A goal crossed. */
export type GoalReachedEvent = {
  __typename?: 'GoalReachedEvent';
  /** When it was observed. */
  at: Scalars['DateTime']['output'];
  /** The goal. */
  goal: Goal;
  /** Increasing id of the event; the SSE event id. */
  id: Scalars['ID']['output'];
  /** The figure that reached the target. */
  value: Scalars['Int']['output'];
};

/** The length of one point of a history. */
export type HistoryInterval =
  /** One point per day (UTC). */
  | 'DAY'
  /** One point per hour (UTC). */
  | 'HOUR'
  /** One point per month (UTC). */
  | 'MONTH'
  /** One point per week (from Monday, UTC). */
  | 'WEEK';

/** The totals at the end of one interval of a history (its last recorded sample). */
export type HistoryPoint = {
  __typename?: 'HistoryPoint';
  /** The start of the interval. */
  at: Scalars['DateTime']['output'];
  /** Supporters on the platforms counted. */
  members: Scalars['Int']['output'];
  /** What they paid per month together, in cents. */
  monthlyCents: Scalars['Int']['output'];
  /** Each platform counted that has a sample in the interval. */
  platforms: Array<PlatformTotals>;
  /** The subscriber count; null without a sample in the interval. */
  subscribers?: Maybe<Scalars['Int']['output']>;
};

/** One event sent, or to be sent, to one destination of notifications.json (no body and no URL). */
export type NotificationDelivery = {
  __typename?: 'NotificationDelivery';
  /** Attempts made so far. */
  attempts: Scalars['Int']['output'];
  /** When the receiver took it (DELIVERED only). */
  deliveredAt?: Maybe<Scalars['DateTime']['output']>;
  /** The destination's name in notifications.json. */
  destination: Scalars['String']['output'];
  /** The event's id: the webhook-id its receiver sees, the same on every retry and replay. */
  eventId: Scalars['String']['output'];
  /** What the event tells. */
  kind: NotificationKind;
  /** When the last attempt was made; null before the first. */
  lastAttemptAt?: Maybe<Scalars['DateTime']['output']>;
  /** What went wrong at the last attempt; never the URL, the secret or the answer's body. */
  lastError?: Maybe<Scalars['String']['output']>;
  /** The status of the last attempt's answer; null when there was none (refused, unreachable, past its deadline). */
  lastStatus?: Maybe<Scalars['Int']['output']>;
  /** When it is tried next (PENDING only). */
  nextAttemptAt?: Maybe<Scalars['DateTime']['output']>;
  /** When the change the event records was recorded. */
  recordedAt: Scalars['DateTime']['output'];
  /** Where the delivery stands. */
  state: NotificationDeliveryState;
};

/** A page of notification deliveries, newest first. */
export type NotificationDeliveryConnection = {
  __typename?: 'NotificationDeliveryConnection';
  /** The deliveries of the page. */
  edges: Array<NotificationDeliveryEdge>;
  /** Paging. */
  pageInfo: PageInfo;
};

/** A delivery and its cursor. */
export type NotificationDeliveryEdge = {
  __typename?: 'NotificationDeliveryEdge';
  /** Where the delivery is in the list. */
  cursor: Scalars['String']['output'];
  /** The delivery. */
  node: NotificationDelivery;
};

/** Where a notification's delivery to one destination stands. */
export type NotificationDeliveryState =
  /** Every retry failed: a dead letter, until an operator replays it. */
  | 'DEAD'
  /** The receiver answered 2xx. */
  | 'DELIVERED'
  /** To be sent, or retried. */
  | 'PENDING';

/** What a notification tells (the webhook body's `type`: supporter.joined … goal.reached). */
export type NotificationKind =
  /** goal.reached: a goal was crossed. */
  | 'GOAL_REACHED'
  /** supporter.downgraded: a supporter pays less a month. */
  | 'SUPPORTER_DOWNGRADED'
  /** supporter.joined: a supporter started supporting on a platform. */
  | 'SUPPORTER_JOINED'
  /** supporter.left: a supporter stopped. */
  | 'SUPPORTER_LEFT'
  /** supporter.tier_changed: another tier at the same amount. */
  | 'SUPPORTER_TIER_CHANGED'
  /** supporter.upgraded: a supporter pays more a month. */
  | 'SUPPORTER_UPGRADED';

/** Paging of a connection (Relay cursor connections). */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** The cursor to ask the next page with (`after`); null on an empty page. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** Whether a page follows. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Whether pages come before this one. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The cursor of the first item; null on an empty page. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** A paying member of the membership-funding platform. */
export type Patron = Supporter & {
  __typename?: 'Patron';
  /** The current monthly pledge, in cents. */
  amountCents: Scalars['Int']['output'];
  /** The membership platform's member id. */
  id: Scalars['String']['output'];
  /** Everything the patron has paid the campaign so far, in cents. */
  lifetimeCents?: Maybe<Scalars['Int']['output']>;
  /** First name only. */
  name?: Maybe<Scalars['String']['output']>;
  /** Always MEMBERSHIP. */
  platform: Platform;
  /** When the current pledge started. */
  since?: Maybe<Scalars['DateTime']['output']>;
  /** The highest tier the patron is entitled to. */
  tier?: Maybe<Tier>;
};

/** The platform a supporter or tier comes from. */
export type Platform =
  /** The membership-funding platform (patrons paying a monthly pledge). */
  | 'MEMBERSHIP'
  /** The video platform (paid channel members). */
  | 'VIDEO';

/** Members and monthly amount of one platform. */
export type PlatformTotals = {
  __typename?: 'PlatformTotals';
  /** Supporters on the platform. */
  members: Scalars['Int']['output'];
  /** What they pay per month together, in cents. */
  monthlyCents: Scalars['Int']['output'];
  /** The platform. */
  platform: Platform;
  /** The same per tier (tiers without supporters are left out). */
  tiers: Array<TierTotals>;
};

/** The channel's supporters, tiers and statistics. */
export type Query = {
  __typename?: 'Query';
  /** The goals of the goals file, with their progress. */
  goals: Array<Goal>;
  /** The totals over time, one point per interval with a sample; null with an error while the history is unavailable. At most 1,000 points. */
  history?: Maybe<Array<HistoryPoint>>;
  /** A channel member by id; null when there is no such current member. */
  member?: Maybe<ChannelMember>;
  /** The newest notification deliveries first, a page at a time; null with an error while the history's database is unavailable. */
  notificationDeliveries?: Maybe<NotificationDeliveryConnection>;
  /** A patron by id; null when there is no such current patron. */
  patron?: Maybe<Patron>;
  /** The video channel's statistics. */
  stats?: Maybe<ChannelStats>;
  /** Supporter changes oldest first, a page at a time; null with an error while the history is unavailable. */
  supporterChanges?: Maybe<SupporterChangeConnection>;
  /** Current supporters, of one platform or of both merged, in the requested order (the same ids and order as the REST endpoints). */
  supporters: Array<Supporter>;
  /** The current supporters a page at a time (Relay cursor connection; keyset cursors stay valid while supporters change). */
  supportersConnection: SupporterConnection;
  /** The support tiers, of one platform or of both. */
  tiers: Array<Tier>;
  /** The supporter paying the highest amount (ties: the oldest), of one platform or of both. */
  topSupporter?: Maybe<Supporter>;
  /** Members and monthly amount now, per platform and tier, and the subscribers (from the current data). */
  totals: Totals;
};


/** The channel's supporters, tiers and statistics. */
export type QueryHistoryArgs = {
  from: Scalars['DateTime']['input'];
  interval?: InputMaybe<HistoryInterval>;
  platform?: InputMaybe<Platform>;
  to?: InputMaybe<Scalars['DateTime']['input']>;
};


/** The channel's supporters, tiers and statistics. */
export type QueryMemberArgs = {
  id: Scalars['String']['input'];
};


/** The channel's supporters, tiers and statistics. */
export type QueryNotificationDeliveriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  destination?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  state?: InputMaybe<NotificationDeliveryState>;
};


/** The channel's supporters, tiers and statistics. */
export type QueryPatronArgs = {
  id: Scalars['String']['input'];
};


/** The channel's supporters, tiers and statistics. */
export type QuerySupporterChangesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  kinds?: InputMaybe<Array<SupporterChangeKind>>;
  platform?: InputMaybe<Platform>;
  since: Scalars['DateTime']['input'];
  until?: InputMaybe<Scalars['DateTime']['input']>;
};


/** The channel's supporters, tiers and statistics. */
export type QuerySupportersArgs = {
  orderBy?: InputMaybe<SupporterOrder>;
  platform?: InputMaybe<Platform>;
};


/** The channel's supporters, tiers and statistics. */
export type QuerySupportersConnectionArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<SupporterOrder>;
  platform?: InputMaybe<Platform>;
};


/** The channel's supporters, tiers and statistics. */
export type QueryTiersArgs = {
  platform?: InputMaybe<Platform>;
};


/** The channel's supporters, tiers and statistics. */
export type QueryTopSupporterArgs = {
  platform?: InputMaybe<Platform>;
};


/** The channel's supporters, tiers and statistics. */
export type QueryTotalsArgs = {
  platform?: InputMaybe<Platform>;
};

/** Changes pushed as they are observed, over GraphQL over SSE or graphql-ws on /graphql. */
export type Subscription = {
  __typename?: 'Subscription';
  /** A goal crossed: once per crossing, not again after a dip below it recovered within the hour. */
  goalReached: GoalReachedEvent;
  /** The channel statistics, each time they change. */
  statsChanged: ChannelStats;
  /** Supporter changes as they are observed (webhook or refresh), of one platform or both, optionally only some kinds. */
  supporterChanged: SupporterEvent;
};


/** Changes pushed as they are observed, over GraphQL over SSE or graphql-ws on /graphql. */
export type SubscriptionSupporterChangedArgs = {
  changes?: InputMaybe<Array<SupporterChange>>;
  platform?: InputMaybe<Platform>;
};

/** Someone who currently supports the channel on one of its platforms. */
export type Supporter = {
  /** What the supporter currently pays per month, in cents. */
  amountCents: Scalars['Int']['output'];
  /** The platform's own id for this supporter. */
  id: Scalars['String']['output'];
  /** First name only; null when the platform does not give one. */
  name?: Maybe<Scalars['String']['output']>;
  /** The platform the support comes from. */
  platform: Platform;
  /** When the supporter started at their current level. */
  since?: Maybe<Scalars['DateTime']['output']>;
  /** The tier the supporter is entitled to; null when the amount matches no tier. */
  tier?: Maybe<Tier>;
};

/** What happened to a supporter between two snapshots. */
export type SupporterChange =
  /** Started supporting (new patron or member). */
  | 'JOINED'
  /** Stopped supporting. */
  | 'LEFT'
  /** Changed amount or tier. */
  | 'UPDATED';

/** A page of supporter changes, oldest first. */
export type SupporterChangeConnection = {
  __typename?: 'SupporterChangeConnection';
  /** The changes of the page. */
  edges: Array<SupporterChangeEdge>;
  /** Paging. */
  pageInfo: PageInfo;
};

/** A change and its cursor. */
export type SupporterChangeEdge = {
  __typename?: 'SupporterChangeEdge';
  /** Where the change is in the list. */
  cursor: Scalars['String']['output'];
  /** The change. */
  node: SupporterChangeRecord;
};

/** What happened to a supporter between two recorded snapshots. */
export type SupporterChangeKind =
  /** Pays less per month than before. */
  | 'DOWNGRADED'
  /** Started supporting. */
  | 'JOINED'
  /** Stopped supporting. */
  | 'LEFT'
  /** Same amount, another tier. */
  | 'TIER_CHANGED'
  /** Pays more per month than before. */
  | 'UPGRADED';

/** One supporter's change between two recorded snapshots. */
export type SupporterChangeRecord = {
  __typename?: 'SupporterChangeRecord';
  /** Tier and amount after; null for LEFT. */
  after?: Maybe<SupporterLevel>;
  /** When the snapshot that showed the change was taken. */
  at: Scalars['DateTime']['output'];
  /** Tier and amount before; null for JOINED. */
  before?: Maybe<SupporterLevel>;
  /** The change's id (increasing). */
  id: Scalars['ID']['output'];
  /** What changed. */
  kind: SupporterChangeKind;
  /** First name only. */
  name?: Maybe<Scalars['String']['output']>;
  /** The platform. */
  platform: Platform;
  /** The platform's id of the supporter. */
  supporterId: Scalars['String']['output'];
};

/** A page of the current supporters. */
export type SupporterConnection = {
  __typename?: 'SupporterConnection';
  /** The supporters of the page. */
  edges: Array<SupporterEdge>;
  /** Paging. */
  pageInfo: PageInfo;
  /** Supporters in the whole list. */
  totalCount: Scalars['Int']['output'];
};

/** A supporter and its cursor. */
export type SupporterEdge = {
  __typename?: 'SupporterEdge';
  /** Where the supporter is in the list (a keyset cursor: stable while supporters join and leave). */
  cursor: Scalars['String']['output'];
  /** The supporter. */
  node: Supporter;
};

/** One change to the channel's supporters. */
export type SupporterEvent = {
  __typename?: 'SupporterEvent';
  /** When the change was observed. */
  at: Scalars['DateTime']['output'];
  /** What happened. */
  change: SupporterChange;
  /** Increasing id of the event, unique per channel; the SSE event id. */
  id: Scalars['ID']['output'];
  /** The monthly amount before the change, in cents; null for JOINED. */
  previousAmountCents?: Maybe<Scalars['Int']['output']>;
  /** The supporter after the change (for LEFT: as last seen). */
  supporter: Supporter;
};

/** A supporter's tier and amount, before or after a change. */
export type SupporterLevel = {
  __typename?: 'SupporterLevel';
  /** The monthly amount, in cents. */
  amountCents: Scalars['Int']['output'];
  /** The tier's id; null when no tier matched. */
  tierId?: Maybe<Scalars['String']['output']>;
  /** The tier's title. */
  tierTitle?: Maybe<Scalars['String']['output']>;
};

/** The order of a list of supporters. */
export type SupporterOrder =
  /** Highest amount first; ties are broken oldest first. */
  | 'AMOUNT'
  /** Oldest supporter first (by the date they started at their current level). */
  | 'SINCE';

/** A support level offered on a platform. */
export type Tier = {
  __typename?: 'Tier';
  /** The monthly price of the tier, in cents; null when the platform does not say. */
  amountCents?: Maybe<Scalars['Int']['output']>;
  /** The platform's id for the tier. */
  id: Scalars['String']['output'];
  /** The platform the tier belongs to. */
  platform: Platform;
  /** The current supporters at this tier, oldest first. */
  supporters: Array<Supporter>;
  /** The tier's title, without decorative emoji. */
  title?: Maybe<Scalars['String']['output']>;
};

/** Members and monthly amount at one tier. */
export type TierTotals = {
  __typename?: 'TierTotals';
  /** Supporters at the tier. */
  members: Scalars['Int']['output'];
  /** What they pay per month together, in cents. */
  monthlyCents: Scalars['Int']['output'];
  /** The tier's id; null for supporters at no tier. */
  tierId?: Maybe<Scalars['String']['output']>;
  /** The tier's title. */
  title?: Maybe<Scalars['String']['output']>;
};

/** Members and monthly amount now, of one platform or both, and the subscribers. */
export type Totals = {
  __typename?: 'Totals';
  /** Supporters on the platforms counted. */
  members: Scalars['Int']['output'];
  /** What they pay per month together, in cents. */
  monthlyCents: Scalars['Int']['output'];
  /** Each platform counted. */
  platforms: Array<PlatformTotals>;
  /** The video channel's subscriber count; null when unknown. */
  subscribers?: Maybe<Scalars['Int']['output']>;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  ChannelMember: ResolverTypeWrapper<SupporterModel>;
  ChannelStats: ResolverTypeWrapper<ChannelStatsViewModel>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  Goal: ResolverTypeWrapper<GoalViewModel>;
  GoalMeasure: GoalMeasure;
  GoalReachedEvent: ResolverTypeWrapper<GoalReachedEventModel>;
  HistoryInterval: HistoryInterval;
  HistoryPoint: ResolverTypeWrapper<HistoryPointModel>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  NotificationDelivery: ResolverTypeWrapper<DeliveryViewModel>;
  NotificationDeliveryConnection: ResolverTypeWrapper<Omit<NotificationDeliveryConnection, 'edges'> & { edges: Array<ResolversTypes['NotificationDeliveryEdge']> }>;
  NotificationDeliveryEdge: ResolverTypeWrapper<Omit<NotificationDeliveryEdge, 'node'> & { node: ResolversTypes['NotificationDelivery'] }>;
  NotificationDeliveryState: NotificationDeliveryState;
  NotificationKind: NotificationKind;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Patron: ResolverTypeWrapper<SupporterModel>;
  Platform: Platform;
  PlatformTotals: ResolverTypeWrapper<PlatformTotalsModel>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Supporter: ResolverTypeWrapper<SupporterModel>;
  SupporterChange: SupporterChange;
  SupporterChangeConnection: ResolverTypeWrapper<Omit<SupporterChangeConnection, 'edges'> & { edges: Array<ResolversTypes['SupporterChangeEdge']> }>;
  SupporterChangeEdge: ResolverTypeWrapper<Omit<SupporterChangeEdge, 'node'> & { node: ResolversTypes['SupporterChangeRecord'] }>;
  SupporterChangeKind: SupporterChangeKind;
  SupporterChangeRecord: ResolverTypeWrapper<ChangeRowModel>;
  SupporterConnection: ResolverTypeWrapper<Omit<SupporterConnection, 'edges'> & { edges: Array<ResolversTypes['SupporterEdge']> }>;
  SupporterEdge: ResolverTypeWrapper<Omit<SupporterEdge, 'node'> & { node: ResolversTypes['Supporter'] }>;
  SupporterEvent: ResolverTypeWrapper<SupporterChangeEventModel>;
  SupporterLevel: ResolverTypeWrapper<SupporterLevel>;
  SupporterOrder: SupporterOrder;
  Tier: ResolverTypeWrapper<TierModel>;
  TierTotals: ResolverTypeWrapper<TierTotalsModel>;
  Totals: ResolverTypeWrapper<TotalsViewModel>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Boolean: Scalars['Boolean']['output'];
  ChannelMember: SupporterModel;
  ChannelStats: ChannelStatsViewModel;
  DateTime: Scalars['DateTime']['output'];
  Float: Scalars['Float']['output'];
  Goal: GoalViewModel;
  GoalReachedEvent: GoalReachedEventModel;
  HistoryPoint: HistoryPointModel;
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  NotificationDelivery: DeliveryViewModel;
  NotificationDeliveryConnection: Omit<NotificationDeliveryConnection, 'edges'> & { edges: Array<ResolversParentTypes['NotificationDeliveryEdge']> };
  NotificationDeliveryEdge: Omit<NotificationDeliveryEdge, 'node'> & { node: ResolversParentTypes['NotificationDelivery'] };
  PageInfo: PageInfo;
  Patron: SupporterModel;
  PlatformTotals: PlatformTotalsModel;
  Query: Record<PropertyKey, never>;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  Supporter: SupporterModel;
  SupporterChangeConnection: Omit<SupporterChangeConnection, 'edges'> & { edges: Array<ResolversParentTypes['SupporterChangeEdge']> };
  SupporterChangeEdge: Omit<SupporterChangeEdge, 'node'> & { node: ResolversParentTypes['SupporterChangeRecord'] };
  SupporterChangeRecord: ChangeRowModel;
  SupporterConnection: Omit<SupporterConnection, 'edges'> & { edges: Array<ResolversParentTypes['SupporterEdge']> };
  SupporterEdge: Omit<SupporterEdge, 'node'> & { node: ResolversParentTypes['Supporter'] };
  SupporterEvent: SupporterChangeEventModel;
  SupporterLevel: SupporterLevel;
  Tier: TierModel;
  TierTotals: TierTotalsModel;
  Totals: TotalsViewModel;
};

export type ChannelMemberResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['ChannelMember'] = ResolversParentTypes['ChannelMember']> = {
  amountCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  daysAtTier: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  name: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  platform: Resolver<ResolversTypes['Platform'], ParentType, ContextType>;
  since: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  tier: Resolver<Maybe<ResolversTypes['Tier']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ChannelStatsResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['ChannelStats'] = ResolversParentTypes['ChannelStats']> = {
  fetchedAt: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  stale: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  subscribers: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type GoalResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Goal'] = ResolversParentTypes['Goal']> = {
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  measure: Resolver<ResolversTypes['GoalMeasure'], ParentType, ContextType>;
  platform: Resolver<Maybe<ResolversTypes['Platform']>, ParentType, ContextType>;
  progress: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  reached: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  reachedAt: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  target: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  title: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type GoalReachedEventResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['GoalReachedEvent'] = ResolversParentTypes['GoalReachedEvent']> = {
  at: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  goal: Resolver<ResolversTypes['Goal'], ParentType, ContextType>;
  id: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  value: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type HistoryPointResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['HistoryPoint'] = ResolversParentTypes['HistoryPoint']> = {
  at: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  members: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  monthlyCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  platforms: Resolver<Array<ResolversTypes['PlatformTotals']>, ParentType, ContextType>;
  subscribers: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type NotificationDeliveryResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['NotificationDelivery'] = ResolversParentTypes['NotificationDelivery']> = {
  attempts: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  deliveredAt: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  destination: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  eventId: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  kind: Resolver<ResolversTypes['NotificationKind'], ParentType, ContextType>;
  lastAttemptAt: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  lastError: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lastStatus: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  nextAttemptAt: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  recordedAt: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  state: Resolver<ResolversTypes['NotificationDeliveryState'], ParentType, ContextType>;
};

export type NotificationDeliveryConnectionResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['NotificationDeliveryConnection'] = ResolversParentTypes['NotificationDeliveryConnection']> = {
  edges: Resolver<Array<ResolversTypes['NotificationDeliveryEdge']>, ParentType, ContextType>;
  pageInfo: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type NotificationDeliveryEdgeResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['NotificationDeliveryEdge'] = ResolversParentTypes['NotificationDeliveryEdge']> = {
  cursor: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node: Resolver<ResolversTypes['NotificationDelivery'], ParentType, ContextType>;
};

export type PageInfoResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type PatronResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Patron'] = ResolversParentTypes['Patron']> = {
  amountCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  lifetimeCents: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  name: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  platform: Resolver<ResolversTypes['Platform'], ParentType, ContextType>;
  since: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  tier: Resolver<Maybe<ResolversTypes['Tier']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type PlatformTotalsResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['PlatformTotals'] = ResolversParentTypes['PlatformTotals']> = {
  members: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  monthlyCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  platform: Resolver<ResolversTypes['Platform'], ParentType, ContextType>;
  tiers: Resolver<Array<ResolversTypes['TierTotals']>, ParentType, ContextType>;
};

export type QueryResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  goals: Resolver<Array<ResolversTypes['Goal']>, ParentType, ContextType>;
  history: Resolver<Maybe<Array<ResolversTypes['HistoryPoint']>>, ParentType, ContextType, RequireFields<QueryHistoryArgs, 'from' | 'interval'>>;
  member: Resolver<Maybe<ResolversTypes['ChannelMember']>, ParentType, ContextType, RequireFields<QueryMemberArgs, 'id'>>;
  notificationDeliveries: Resolver<Maybe<ResolversTypes['NotificationDeliveryConnection']>, ParentType, ContextType, RequireFields<QueryNotificationDeliveriesArgs, 'first'>>;
  patron: Resolver<Maybe<ResolversTypes['Patron']>, ParentType, ContextType, RequireFields<QueryPatronArgs, 'id'>>;
  stats: Resolver<Maybe<ResolversTypes['ChannelStats']>, ParentType, ContextType>;
  supporterChanges: Resolver<Maybe<ResolversTypes['SupporterChangeConnection']>, ParentType, ContextType, RequireFields<QuerySupporterChangesArgs, 'first' | 'since'>>;
  supporters: Resolver<Array<ResolversTypes['Supporter']>, ParentType, ContextType, RequireFields<QuerySupportersArgs, 'orderBy'>>;
  supportersConnection: Resolver<ResolversTypes['SupporterConnection'], ParentType, ContextType, RequireFields<QuerySupportersConnectionArgs, 'first' | 'orderBy'>>;
  tiers: Resolver<Array<ResolversTypes['Tier']>, ParentType, ContextType, Partial<QueryTiersArgs>>;
  topSupporter: Resolver<Maybe<ResolversTypes['Supporter']>, ParentType, ContextType, Partial<QueryTopSupporterArgs>>;
  totals: Resolver<ResolversTypes['Totals'], ParentType, ContextType, Partial<QueryTotalsArgs>>;
};

export type SubscriptionResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  goalReached?: SubscriptionResolver<ResolversTypes['GoalReachedEvent'], "goalReached", ParentType, ContextType>;
  statsChanged?: SubscriptionResolver<ResolversTypes['ChannelStats'], "statsChanged", ParentType, ContextType>;
  supporterChanged?: SubscriptionResolver<ResolversTypes['SupporterEvent'], "supporterChanged", ParentType, ContextType, Partial<SubscriptionSupporterChangedArgs>>;
};

export type SupporterResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Supporter'] = ResolversParentTypes['Supporter']> = {
  __resolveType: TypeResolveFn<'ChannelMember' | 'Patron', ParentType, ContextType>;
};

export type SupporterChangeConnectionResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterChangeConnection'] = ResolversParentTypes['SupporterChangeConnection']> = {
  edges: Resolver<Array<ResolversTypes['SupporterChangeEdge']>, ParentType, ContextType>;
  pageInfo: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type SupporterChangeEdgeResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterChangeEdge'] = ResolversParentTypes['SupporterChangeEdge']> = {
  cursor: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node: Resolver<ResolversTypes['SupporterChangeRecord'], ParentType, ContextType>;
};

export type SupporterChangeRecordResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterChangeRecord'] = ResolversParentTypes['SupporterChangeRecord']> = {
  after: Resolver<Maybe<ResolversTypes['SupporterLevel']>, ParentType, ContextType>;
  at: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  before: Resolver<Maybe<ResolversTypes['SupporterLevel']>, ParentType, ContextType>;
  id: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  kind: Resolver<ResolversTypes['SupporterChangeKind'], ParentType, ContextType>;
  name: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  platform: Resolver<ResolversTypes['Platform'], ParentType, ContextType>;
  supporterId: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type SupporterConnectionResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterConnection'] = ResolversParentTypes['SupporterConnection']> = {
  edges: Resolver<Array<ResolversTypes['SupporterEdge']>, ParentType, ContextType>;
  pageInfo: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type SupporterEdgeResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterEdge'] = ResolversParentTypes['SupporterEdge']> = {
  cursor: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node: Resolver<ResolversTypes['Supporter'], ParentType, ContextType>;
};

export type SupporterEventResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterEvent'] = ResolversParentTypes['SupporterEvent']> = {
  at: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  change: Resolver<ResolversTypes['SupporterChange'], ParentType, ContextType>;
  id: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  previousAmountCents: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  supporter: Resolver<ResolversTypes['Supporter'], ParentType, ContextType>;
};

export type SupporterLevelResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterLevel'] = ResolversParentTypes['SupporterLevel']> = {
  amountCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  tierId: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  tierTitle: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type TierResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Tier'] = ResolversParentTypes['Tier']> = {
  amountCents: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  platform: Resolver<ResolversTypes['Platform'], ParentType, ContextType>;
  supporters: Resolver<Array<ResolversTypes['Supporter']>, ParentType, ContextType>;
  title: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type TierTotalsResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['TierTotals'] = ResolversParentTypes['TierTotals']> = {
  members: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  monthlyCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  tierId: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  title: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type TotalsResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Totals'] = ResolversParentTypes['Totals']> = {
  members: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  monthlyCents: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  platforms: Resolver<Array<ResolversTypes['PlatformTotals']>, ParentType, ContextType>;
  subscribers: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type Resolvers<ContextType = ChannelGraphContext> = {
  ChannelMember: ChannelMemberResolvers<ContextType>;
  ChannelStats: ChannelStatsResolvers<ContextType>;
  DateTime: GraphQLScalarType;
  Goal: GoalResolvers<ContextType>;
  GoalReachedEvent: GoalReachedEventResolvers<ContextType>;
  HistoryPoint: HistoryPointResolvers<ContextType>;
  NotificationDelivery: NotificationDeliveryResolvers<ContextType>;
  NotificationDeliveryConnection: NotificationDeliveryConnectionResolvers<ContextType>;
  NotificationDeliveryEdge: NotificationDeliveryEdgeResolvers<ContextType>;
  PageInfo: PageInfoResolvers<ContextType>;
  Patron: PatronResolvers<ContextType>;
  PlatformTotals: PlatformTotalsResolvers<ContextType>;
  Query: QueryResolvers<ContextType>;
  Subscription: SubscriptionResolvers<ContextType>;
  Supporter: SupporterResolvers<ContextType>;
  SupporterChangeConnection: SupporterChangeConnectionResolvers<ContextType>;
  SupporterChangeEdge: SupporterChangeEdgeResolvers<ContextType>;
  SupporterChangeRecord: SupporterChangeRecordResolvers<ContextType>;
  SupporterConnection: SupporterConnectionResolvers<ContextType>;
  SupporterEdge: SupporterEdgeResolvers<ContextType>;
  SupporterEvent: SupporterEventResolvers<ContextType>;
  SupporterLevel: SupporterLevelResolvers<ContextType>;
  Tier: TierResolvers<ContextType>;
  TierTotals: TierTotalsResolvers<ContextType>;
  Totals: TotalsResolvers<ContextType>;
};

