/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** What a goal counts. */
export type GoalMeasure =
  /** Supporters. */
  | 'MEMBERS'
  /** Monthly amount, in cents. */
  | 'MONTHLY_CENTS';

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

/** The platform a supporter or tier comes from. */
export type Platform =
  /** The membership-funding platform (patrons paying a monthly pledge). */
  | 'MEMBERSHIP'
  /** The video platform (paid channel members). */
  | 'VIDEO';

/** What happened to a supporter between two snapshots. */
export type SupporterChange =
  /** Started supporting (new patron or member). */
  | 'JOINED'
  /** Stopped supporting. */
  | 'LEFT'
  /** Changed amount or tier. */
  | 'UPDATED';

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

/** The order of a list of supporters. */
export type SupporterOrder =
  /** Highest amount first; ties are broken oldest first. */
  | 'AMOUNT'
  /** Oldest supporter first (by the date they started at their current level). */
  | 'SINCE';

export type ChannelTotalsQueryVariables = Exact<{
  platform?: Platform | null | undefined;
}>;


export type ChannelTotalsQuery = { totals: { members: number, monthlyCents: number, subscribers: number | null, platforms: Array<{ platform: Platform, members: number, monthlyCents: number, tiers: Array<{ tierId: string | null, title: string | null, members: number, monthlyCents: number }> }> } };

export type ChannelHistoryQueryVariables = Exact<{
  from: string;
  to?: string | null | undefined;
  interval?: HistoryInterval | null | undefined;
  platform?: Platform | null | undefined;
}>;


export type ChannelHistoryQuery = { history: Array<{ at: string, members: number, monthlyCents: number, subscribers: number | null, platforms: Array<{ platform: Platform, members: number, monthlyCents: number }> }> | null };

export type SupporterChangesQueryVariables = Exact<{
  since: string;
  until?: string | null | undefined;
  kinds?: Array<SupporterChangeKind> | SupporterChangeKind | null | undefined;
  platform?: Platform | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type SupporterChangesQuery = { supporterChanges: { edges: Array<{ cursor: string, node: { id: string, kind: SupporterChangeKind, platform: Platform, supporterId: string, name: string | null, at: string, before: { tierId: string | null, tierTitle: string | null, amountCents: number } | null, after: { tierId: string | null, tierTitle: string | null, amountCents: number } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type SupportersPageQueryVariables = Exact<{
  platform?: Platform | null | undefined;
  orderBy?: SupporterOrder | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type SupportersPageQuery = { supportersConnection: { totalCount: number, edges: Array<{ cursor: string, node:
        | { __typename: 'ChannelMember', daysAtTier: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
        | { __typename: 'Patron', lifetimeCents: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
       }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type ChannelGoalsQueryVariables = Exact<{ [key: string]: never; }>;


export type ChannelGoalsQuery = { goals: Array<{ id: string, title: string, measure: GoalMeasure, platform: Platform | null, target: number, value: number, progress: number, reached: boolean, reachedAt: string | null }> };

export type GoalReachedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type GoalReachedSubscription = { goalReached: { id: string, value: number, at: string, goal: { id: string, title: string, target: number } } };

export type NotificationDeliveriesQueryVariables = Exact<{
  destination?: string | null | undefined;
  state?: NotificationDeliveryState | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type NotificationDeliveriesQuery = { notificationDeliveries: { edges: Array<{ cursor: string, node: { eventId: string, kind: NotificationKind, destination: string, state: NotificationDeliveryState, attempts: number, recordedAt: string, lastAttemptAt: string | null, lastStatus: number | null, lastError: string | null, nextAttemptAt: string | null, deliveredAt: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type StatsChangedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type StatsChangedSubscription = { statsChanged: { subscribers: number | null, fetchedAt: string, stale: boolean } };

export type ChannelStatisticsQueryVariables = Exact<{ [key: string]: never; }>;


export type ChannelStatisticsQuery = { stats: { subscribers: number | null, fetchedAt: string, stale: boolean } | null };

export type PatronByIdQueryVariables = Exact<{
  id: string;
}>;


export type PatronByIdQuery = { patron: { __typename: 'Patron', lifetimeCents: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null } | null };

export type MemberByIdQueryVariables = Exact<{
  id: string;
}>;


export type MemberByIdQuery = { member: { __typename: 'ChannelMember', daysAtTier: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null } | null };

export type SupporterChangedSubscriptionVariables = Exact<{
  platform?: Platform | null | undefined;
  changes?: Array<SupporterChange> | SupporterChange | null | undefined;
}>;


export type SupporterChangedSubscription = { supporterChanged: { id: string, change: SupporterChange, previousAmountCents: number | null, at: string, supporter:
      | { __typename: 'ChannelMember', daysAtTier: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
      | { __typename: 'Patron', lifetimeCents: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
     } };

type SupporterFields_ChannelMember_Fragment = { __typename: 'ChannelMember', daysAtTier: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null };

type SupporterFields_Patron_Fragment = { __typename: 'Patron', lifetimeCents: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null };

export type SupporterFieldsFragment =
  | SupporterFields_ChannelMember_Fragment
  | SupporterFields_Patron_Fragment
;

export type SupportersQueryVariables = Exact<{
  platform?: Platform | null | undefined;
  orderBy?: SupporterOrder | null | undefined;
}>;


export type SupportersQuery = { supporters: Array<
    | { __typename: 'ChannelMember', daysAtTier: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
    | { __typename: 'Patron', lifetimeCents: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
  > };

export type TiersWithSupportersQueryVariables = Exact<{
  platform?: Platform | null | undefined;
}>;


export type TiersWithSupportersQuery = { tiers: Array<{ id: string, title: string | null, platform: Platform, amountCents: number | null, supporters: Array<
      | { __typename: 'ChannelMember', id: string, name: string | null, amountCents: number, since: string | null }
      | { __typename: 'Patron', id: string, name: string | null, amountCents: number, since: string | null }
    > }> };

export type TopSupporterQueryVariables = Exact<{
  platform?: Platform | null | undefined;
}>;


export type TopSupporterQuery = { topSupporter:
    | { __typename: 'ChannelMember', daysAtTier: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
    | { __typename: 'Patron', lifetimeCents: number | null, id: string, name: string | null, platform: Platform, amountCents: number, since: string | null, tier: { id: string, title: string | null } | null }
   | null };

export const SupporterFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<SupporterFieldsFragment, unknown>;
export const ChannelTotalsDocument = {"__meta__":{"hash":"sha256:6041861e7d6432ae1c4ad494d26ce1b59b66399560ffb8d7aa5654b8a144f37b"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ChannelTotals"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totals"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"members"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyCents"}},{"kind":"Field","name":{"kind":"Name","value":"subscribers"}},{"kind":"Field","name":{"kind":"Name","value":"platforms"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"members"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyCents"}},{"kind":"Field","name":{"kind":"Name","value":"tiers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tierId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"members"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyCents"}}]}}]}}]}}]}}]} as unknown as DocumentNode<ChannelTotalsQuery, ChannelTotalsQueryVariables>;
export const ChannelHistoryDocument = {"__meta__":{"hash":"sha256:82f081cfdfd739465f71ab07b4cff5035b209f57bcde1b2211118d7908aa14d6"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ChannelHistory"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"from"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"to"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"interval"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"HistoryInterval"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"history"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"from"},"value":{"kind":"Variable","name":{"kind":"Name","value":"from"}}},{"kind":"Argument","name":{"kind":"Name","value":"to"},"value":{"kind":"Variable","name":{"kind":"Name","value":"to"}}},{"kind":"Argument","name":{"kind":"Name","value":"interval"},"value":{"kind":"Variable","name":{"kind":"Name","value":"interval"}}},{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"members"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyCents"}},{"kind":"Field","name":{"kind":"Name","value":"subscribers"}},{"kind":"Field","name":{"kind":"Name","value":"platforms"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"members"}},{"kind":"Field","name":{"kind":"Name","value":"monthlyCents"}}]}}]}}]}}]} as unknown as DocumentNode<ChannelHistoryQuery, ChannelHistoryQueryVariables>;
export const SupporterChangesDocument = {"__meta__":{"hash":"sha256:728b01e8e28f7547472ab51d7444ad2be22b62322080d84f1cfb5a5d223d09f2"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SupporterChanges"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"since"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"until"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"kinds"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SupporterChangeKind"}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"supporterChanges"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"since"},"value":{"kind":"Variable","name":{"kind":"Name","value":"since"}}},{"kind":"Argument","name":{"kind":"Name","value":"until"},"value":{"kind":"Variable","name":{"kind":"Name","value":"until"}}},{"kind":"Argument","name":{"kind":"Name","value":"kinds"},"value":{"kind":"Variable","name":{"kind":"Name","value":"kinds"}}},{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"supporterId"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"before"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tierId"}},{"kind":"Field","name":{"kind":"Name","value":"tierTitle"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}}]}},{"kind":"Field","name":{"kind":"Name","value":"after"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tierId"}},{"kind":"Field","name":{"kind":"Name","value":"tierTitle"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]} as unknown as DocumentNode<SupporterChangesQuery, SupporterChangesQueryVariables>;
export const SupportersPageDocument = {"__meta__":{"hash":"sha256:4774af4dc6d8608137ab6160fb98b45891bb298ec85886d0c65eb7455edba17a"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SupportersPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"orderBy"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"SupporterOrder"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"supportersConnection"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}},{"kind":"Argument","name":{"kind":"Name","value":"orderBy"},"value":{"kind":"Variable","name":{"kind":"Name","value":"orderBy"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SupporterFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<SupportersPageQuery, SupportersPageQueryVariables>;
export const ChannelGoalsDocument = {"__meta__":{"hash":"sha256:0af9bcfe0eadae6091ca3a59ef7d86b7ed5f71dd9ce2a3a349464e3edb033544"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ChannelGoals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"goals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"measure"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"progress"}},{"kind":"Field","name":{"kind":"Name","value":"reached"}},{"kind":"Field","name":{"kind":"Name","value":"reachedAt"}}]}}]}}]} as unknown as DocumentNode<ChannelGoalsQuery, ChannelGoalsQueryVariables>;
export const GoalReachedDocument = {"__meta__":{"hash":"sha256:c8cdab89ce0cda52e8701fe7ed8054de36798fa3cbcc92eb87b205a6e31fe992"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"GoalReached"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"goalReached"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"goal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"target"}}]}}]}}]}}]} as unknown as DocumentNode<GoalReachedSubscription, GoalReachedSubscriptionVariables>;
export const NotificationDeliveriesDocument = {"__meta__":{"hash":"sha256:1e71d86a048ec832fd01768ae146bbd79d17fcfc879d3ae676f58b2ea1edf1b4"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"NotificationDeliveries"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"destination"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"state"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"NotificationDeliveryState"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"notificationDeliveries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"destination"},"value":{"kind":"Variable","name":{"kind":"Name","value":"destination"}}},{"kind":"Argument","name":{"kind":"Name","value":"state"},"value":{"kind":"Variable","name":{"kind":"Name","value":"state"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"eventId"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"destination"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"recordedAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastAttemptAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastStatus"}},{"kind":"Field","name":{"kind":"Name","value":"lastError"}},{"kind":"Field","name":{"kind":"Name","value":"nextAttemptAt"}},{"kind":"Field","name":{"kind":"Name","value":"deliveredAt"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]} as unknown as DocumentNode<NotificationDeliveriesQuery, NotificationDeliveriesQueryVariables>;
export const StatsChangedDocument = {"__meta__":{"hash":"sha256:117ae9c8c2c86ba86f1106905a88df61e10108c17db4b71e6298a65c0b40fb2f"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"StatsChanged"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"statsChanged"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"subscribers"}},{"kind":"Field","name":{"kind":"Name","value":"fetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"stale"}}]}}]}}]} as unknown as DocumentNode<StatsChangedSubscription, StatsChangedSubscriptionVariables>;
export const ChannelStatisticsDocument = {"__meta__":{"hash":"sha256:1a39adafe2ed3253d7eeb2f6acdc72e62b42f7bdc3a83338f68a51d99584d646"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ChannelStatistics"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"subscribers"}},{"kind":"Field","name":{"kind":"Name","value":"fetchedAt"}},{"kind":"Field","name":{"kind":"Name","value":"stale"}}]}}]}}]} as unknown as DocumentNode<ChannelStatisticsQuery, ChannelStatisticsQueryVariables>;
export const PatronByIdDocument = {"__meta__":{"hash":"sha256:bb353f35a0100e54be3f8a11f8188686561fe18571ea5b0362d9f1bcd990ad78"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PatronById"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"patron"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SupporterFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<PatronByIdQuery, PatronByIdQueryVariables>;
export const MemberByIdDocument = {"__meta__":{"hash":"sha256:4116a07c68337d4926514c6a748cfdf0754b35145b6a2110a577ef174dbe583a"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"MemberById"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"member"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SupporterFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<MemberByIdQuery, MemberByIdQueryVariables>;
export const SupporterChangedDocument = {"__meta__":{"hash":"sha256:a0cbcaf45ae5ab81904406151b07ea45a97864f0cc9c26b049bcf86e78f969c8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"SupporterChanged"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"changes"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SupporterChange"}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"supporterChanged"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}},{"kind":"Argument","name":{"kind":"Name","value":"changes"},"value":{"kind":"Variable","name":{"kind":"Name","value":"changes"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"change"}},{"kind":"Field","name":{"kind":"Name","value":"previousAmountCents"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"supporter"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SupporterFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<SupporterChangedSubscription, SupporterChangedSubscriptionVariables>;
export const SupportersDocument = {"__meta__":{"hash":"sha256:07ab87c9c513f477515f6a95efe3bd312d533a526c8f8a8c7b6910f3fb61ea9a"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Supporters"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"orderBy"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"SupporterOrder"}},"defaultValue":{"kind":"EnumValue","value":"SINCE"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"supporters"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}},{"kind":"Argument","name":{"kind":"Name","value":"orderBy"},"value":{"kind":"Variable","name":{"kind":"Name","value":"orderBy"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SupporterFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<SupportersQuery, SupportersQueryVariables>;
export const TiersWithSupportersDocument = {"__meta__":{"hash":"sha256:5e52d35d9bbfcfe8b8140c6a9df416a500ab4097408a666e4050c0baf35ba0f8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TiersWithSupporters"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tiers"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"supporters"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}}]}}]}}]}}]} as unknown as DocumentNode<TiersWithSupportersQuery, TiersWithSupportersQueryVariables>;
export const TopSupporterDocument = {"__meta__":{"hash":"sha256:e83bd9abaca769908dce89a52725def3b044c59a63a6991c0ea0d66232ea70d9"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TopSupporter"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"platform"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"topSupporter"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"platform"},"value":{"kind":"Variable","name":{"kind":"Name","value":"platform"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SupporterFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SupporterFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Supporter"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"platform"}},{"kind":"Field","name":{"kind":"Name","value":"amountCents"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"tier"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Patron"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lifetimeCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ChannelMember"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"daysAtTier"}}]}}]}}]} as unknown as DocumentNode<TopSupporterQuery, TopSupporterQueryVariables>;