import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { Supporter as SupporterModel, Tier as TierModel, ChannelStatsView as ChannelStatsViewModel } from '../../src/channel/models.js';
import type { SupporterChangeEvent as SupporterChangeEventModel } from '../../src/channel/supporter-events.js';
import type { ChannelGraphContext } from '../../src/graphql/schema/context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
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

/** The channel's supporters, tiers and statistics. */
export type Query = {
  __typename?: 'Query';
  /** A channel member by id; null when there is no such current member. */
  member?: Maybe<ChannelMember>;
  /** A patron by id; null when there is no such current patron. */
  patron?: Maybe<Patron>;
  /** The video channel's statistics. */
  stats?: Maybe<ChannelStats>;
  /** Current supporters, of one platform or of both merged, in the requested order (the same ids and order as the REST endpoints). */
  supporters: Array<Supporter>;
  /** The support tiers, of one platform or of both. */
  tiers: Array<Tier>;
  /** The supporter paying the highest amount (ties: the oldest), of one platform or of both. */
  topSupporter?: Maybe<Supporter>;
};


/** The channel's supporters, tiers and statistics. */
export type QueryMemberArgs = {
  id: Scalars['String']['input'];
};


/** The channel's supporters, tiers and statistics. */
export type QueryPatronArgs = {
  id: Scalars['String']['input'];
};


/** The channel's supporters, tiers and statistics. */
export type QuerySupportersArgs = {
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

/** Changes pushed as they are observed, over GraphQL over SSE or graphql-ws on /graphql. */
export type Subscription = {
  __typename?: 'Subscription';
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
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Patron: ResolverTypeWrapper<SupporterModel>;
  Platform: Platform;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Supporter: ResolverTypeWrapper<SupporterModel>;
  SupporterChange: SupporterChange;
  SupporterEvent: ResolverTypeWrapper<SupporterChangeEventModel>;
  SupporterOrder: SupporterOrder;
  Tier: ResolverTypeWrapper<TierModel>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Boolean: Scalars['Boolean']['output'];
  ChannelMember: SupporterModel;
  ChannelStats: ChannelStatsViewModel;
  DateTime: Scalars['DateTime']['output'];
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  Patron: SupporterModel;
  Query: Record<PropertyKey, never>;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  Supporter: SupporterModel;
  SupporterEvent: SupporterChangeEventModel;
  Tier: TierModel;
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

export type QueryResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  member: Resolver<Maybe<ResolversTypes['ChannelMember']>, ParentType, ContextType, RequireFields<QueryMemberArgs, 'id'>>;
  patron: Resolver<Maybe<ResolversTypes['Patron']>, ParentType, ContextType, RequireFields<QueryPatronArgs, 'id'>>;
  stats: Resolver<Maybe<ResolversTypes['ChannelStats']>, ParentType, ContextType>;
  supporters: Resolver<Array<ResolversTypes['Supporter']>, ParentType, ContextType, RequireFields<QuerySupportersArgs, 'orderBy'>>;
  tiers: Resolver<Array<ResolversTypes['Tier']>, ParentType, ContextType, Partial<QueryTiersArgs>>;
  topSupporter: Resolver<Maybe<ResolversTypes['Supporter']>, ParentType, ContextType, Partial<QueryTopSupporterArgs>>;
};

export type SubscriptionResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  statsChanged?: SubscriptionResolver<ResolversTypes['ChannelStats'], "statsChanged", ParentType, ContextType>;
  supporterChanged?: SubscriptionResolver<ResolversTypes['SupporterEvent'], "supporterChanged", ParentType, ContextType, Partial<SubscriptionSupporterChangedArgs>>;
};

export type SupporterResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Supporter'] = ResolversParentTypes['Supporter']> = {
  __resolveType: TypeResolveFn<'ChannelMember' | 'Patron', ParentType, ContextType>;
};

export type SupporterEventResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['SupporterEvent'] = ResolversParentTypes['SupporterEvent']> = {
  at: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  change: Resolver<ResolversTypes['SupporterChange'], ParentType, ContextType>;
  id: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  previousAmountCents: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  supporter: Resolver<ResolversTypes['Supporter'], ParentType, ContextType>;
};

export type TierResolvers<ContextType = ChannelGraphContext, ParentType extends ResolversParentTypes['Tier'] = ResolversParentTypes['Tier']> = {
  amountCents: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  platform: Resolver<ResolversTypes['Platform'], ParentType, ContextType>;
  supporters: Resolver<Array<ResolversTypes['Supporter']>, ParentType, ContextType>;
  title: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type Resolvers<ContextType = ChannelGraphContext> = {
  ChannelMember: ChannelMemberResolvers<ContextType>;
  ChannelStats: ChannelStatsResolvers<ContextType>;
  DateTime: GraphQLScalarType;
  Patron: PatronResolvers<ContextType>;
  Query: QueryResolvers<ContextType>;
  Subscription: SubscriptionResolvers<ContextType>;
  Supporter: SupporterResolvers<ContextType>;
  SupporterEvent: SupporterEventResolvers<ContextType>;
  Tier: TierResolvers<ContextType>;
};

