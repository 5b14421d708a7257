/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query ChannelTotals($platform: Platform) {\n  totals(platform: $platform) {\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n      tiers {\n        tierId\n        title\n        members\n        monthlyCents\n      }\n    }\n  }\n}\n\nquery ChannelHistory($from: DateTime!, $to: DateTime, $interval: HistoryInterval, $platform: Platform) {\n  history(from: $from, to: $to, interval: $interval, platform: $platform) {\n    at\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n    }\n  }\n}\n\nquery SupporterChanges($since: DateTime!, $until: DateTime, $kinds: [SupporterChangeKind!], $platform: Platform, $first: Int, $after: String) {\n  supporterChanges(\n    since: $since\n    until: $until\n    kinds: $kinds\n    platform: $platform\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        kind\n        platform\n        supporterId\n        name\n        at\n        before {\n          tierId\n          tierTitle\n          amountCents\n        }\n        after {\n          tierId\n          tierTitle\n          amountCents\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery SupportersPage($platform: Platform, $orderBy: SupporterOrder, $first: Int, $after: String) {\n  supportersConnection(\n    platform: $platform\n    orderBy: $orderBy\n    first: $first\n    after: $after\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        ...SupporterFields\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery ChannelGoals {\n  goals {\n    id\n    title\n    measure\n    platform\n    target\n    value\n    progress\n    reached\n    reachedAt\n  }\n}\n\nsubscription GoalReached {\n  goalReached {\n    id\n    value\n    at\n    goal {\n      id\n      title\n      target\n    }\n  }\n}": typeof types.ChannelTotalsDocument,
    "query NotificationDeliveries($destination: String, $state: NotificationDeliveryState, $first: Int = 20, $after: String) {\n  notificationDeliveries(\n    destination: $destination\n    state: $state\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        eventId\n        kind\n        destination\n        state\n        attempts\n        recordedAt\n        lastAttemptAt\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.NotificationDeliveriesDocument,
    "subscription StatsChanged {\n  statsChanged {\n    subscribers\n    fetchedAt\n    stale\n  }\n}": typeof types.StatsChangedDocument,
    "query ChannelStatistics {\n  stats {\n    subscribers\n    fetchedAt\n    stale\n  }\n}": typeof types.ChannelStatisticsDocument,
    "query PatronById($id: String!) {\n  patron(id: $id) {\n    ...SupporterFields\n  }\n}\n\nquery MemberById($id: String!) {\n  member(id: $id) {\n    ...SupporterFields\n  }\n}": typeof types.PatronByIdDocument,
    "subscription SupporterChanged($platform: Platform, $changes: [SupporterChange!]) {\n  supporterChanged(platform: $platform, changes: $changes) {\n    id\n    change\n    previousAmountCents\n    at\n    supporter {\n      ...SupporterFields\n    }\n  }\n}": typeof types.SupporterChangedDocument,
    "fragment SupporterFields on Supporter {\n  __typename\n  id\n  name\n  platform\n  amountCents\n  since\n  tier {\n    id\n    title\n  }\n  ... on Patron {\n    lifetimeCents\n  }\n  ... on ChannelMember {\n    daysAtTier\n  }\n}": typeof types.SupporterFieldsFragmentDoc,
    "query Supporters($platform: Platform, $orderBy: SupporterOrder = SINCE) {\n  supporters(platform: $platform, orderBy: $orderBy) {\n    ...SupporterFields\n  }\n}": typeof types.SupportersDocument,
    "query TiersWithSupporters($platform: Platform) {\n  tiers(platform: $platform) {\n    id\n    title\n    platform\n    amountCents\n    supporters {\n      __typename\n      id\n      name\n      amountCents\n      since\n    }\n  }\n}": typeof types.TiersWithSupportersDocument,
    "query TopSupporter($platform: Platform) {\n  topSupporter(platform: $platform) {\n    ...SupporterFields\n  }\n}": typeof types.TopSupporterDocument,
};
const documents: Documents = {
    "query ChannelTotals($platform: Platform) {\n  totals(platform: $platform) {\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n      tiers {\n        tierId\n        title\n        members\n        monthlyCents\n      }\n    }\n  }\n}\n\nquery ChannelHistory($from: DateTime!, $to: DateTime, $interval: HistoryInterval, $platform: Platform) {\n  history(from: $from, to: $to, interval: $interval, platform: $platform) {\n    at\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n    }\n  }\n}\n\nquery SupporterChanges($since: DateTime!, $until: DateTime, $kinds: [SupporterChangeKind!], $platform: Platform, $first: Int, $after: String) {\n  supporterChanges(\n    since: $since\n    until: $until\n    kinds: $kinds\n    platform: $platform\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        kind\n        platform\n        supporterId\n        name\n        at\n        before {\n          tierId\n          tierTitle\n          amountCents\n        }\n        after {\n          tierId\n          tierTitle\n          amountCents\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery SupportersPage($platform: Platform, $orderBy: SupporterOrder, $first: Int, $after: String) {\n  supportersConnection(\n    platform: $platform\n    orderBy: $orderBy\n    first: $first\n    after: $after\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        ...SupporterFields\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery ChannelGoals {\n  goals {\n    id\n    title\n    measure\n    platform\n    target\n    value\n    progress\n    reached\n    reachedAt\n  }\n}\n\nsubscription GoalReached {\n  goalReached {\n    id\n    value\n    at\n    goal {\n      id\n      title\n      target\n    }\n  }\n}": types.ChannelTotalsDocument,
    "query NotificationDeliveries($destination: String, $state: NotificationDeliveryState, $first: Int = 20, $after: String) {\n  notificationDeliveries(\n    destination: $destination\n    state: $state\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        eventId\n        kind\n        destination\n        state\n        attempts\n        recordedAt\n        lastAttemptAt\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.NotificationDeliveriesDocument,
    "subscription StatsChanged {\n  statsChanged {\n    subscribers\n    fetchedAt\n    stale\n  }\n}": types.StatsChangedDocument,
    "query ChannelStatistics {\n  stats {\n    subscribers\n    fetchedAt\n    stale\n  }\n}": types.ChannelStatisticsDocument,
    "query PatronById($id: String!) {\n  patron(id: $id) {\n    ...SupporterFields\n  }\n}\n\nquery MemberById($id: String!) {\n  member(id: $id) {\n    ...SupporterFields\n  }\n}": types.PatronByIdDocument,
    "subscription SupporterChanged($platform: Platform, $changes: [SupporterChange!]) {\n  supporterChanged(platform: $platform, changes: $changes) {\n    id\n    change\n    previousAmountCents\n    at\n    supporter {\n      ...SupporterFields\n    }\n  }\n}": types.SupporterChangedDocument,
    "fragment SupporterFields on Supporter {\n  __typename\n  id\n  name\n  platform\n  amountCents\n  since\n  tier {\n    id\n    title\n  }\n  ... on Patron {\n    lifetimeCents\n  }\n  ... on ChannelMember {\n    daysAtTier\n  }\n}": types.SupporterFieldsFragmentDoc,
    "query Supporters($platform: Platform, $orderBy: SupporterOrder = SINCE) {\n  supporters(platform: $platform, orderBy: $orderBy) {\n    ...SupporterFields\n  }\n}": types.SupportersDocument,
    "query TiersWithSupporters($platform: Platform) {\n  tiers(platform: $platform) {\n    id\n    title\n    platform\n    amountCents\n    supporters {\n      __typename\n      id\n      name\n      amountCents\n      since\n    }\n  }\n}": types.TiersWithSupportersDocument,
    "query TopSupporter($platform: Platform) {\n  topSupporter(platform: $platform) {\n    ...SupporterFields\n  }\n}": types.TopSupporterDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ChannelTotals($platform: Platform) {\n  totals(platform: $platform) {\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n      tiers {\n        tierId\n        title\n        members\n        monthlyCents\n      }\n    }\n  }\n}\n\nquery ChannelHistory($from: DateTime!, $to: DateTime, $interval: HistoryInterval, $platform: Platform) {\n  history(from: $from, to: $to, interval: $interval, platform: $platform) {\n    at\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n    }\n  }\n}\n\nquery SupporterChanges($since: DateTime!, $until: DateTime, $kinds: [SupporterChangeKind!], $platform: Platform, $first: Int, $after: String) {\n  supporterChanges(\n    since: $since\n    until: $until\n    kinds: $kinds\n    platform: $platform\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        kind\n        platform\n        supporterId\n        name\n        at\n        before {\n          tierId\n          tierTitle\n          amountCents\n        }\n        after {\n          tierId\n          tierTitle\n          amountCents\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery SupportersPage($platform: Platform, $orderBy: SupporterOrder, $first: Int, $after: String) {\n  supportersConnection(\n    platform: $platform\n    orderBy: $orderBy\n    first: $first\n    after: $after\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        ...SupporterFields\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery ChannelGoals {\n  goals {\n    id\n    title\n    measure\n    platform\n    target\n    value\n    progress\n    reached\n    reachedAt\n  }\n}\n\nsubscription GoalReached {\n  goalReached {\n    id\n    value\n    at\n    goal {\n      id\n      title\n      target\n    }\n  }\n}"): (typeof documents)["query ChannelTotals($platform: Platform) {\n  totals(platform: $platform) {\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n      tiers {\n        tierId\n        title\n        members\n        monthlyCents\n      }\n    }\n  }\n}\n\nquery ChannelHistory($from: DateTime!, $to: DateTime, $interval: HistoryInterval, $platform: Platform) {\n  history(from: $from, to: $to, interval: $interval, platform: $platform) {\n    at\n    members\n    monthlyCents\n    subscribers\n    platforms {\n      platform\n      members\n      monthlyCents\n    }\n  }\n}\n\nquery SupporterChanges($since: DateTime!, $until: DateTime, $kinds: [SupporterChangeKind!], $platform: Platform, $first: Int, $after: String) {\n  supporterChanges(\n    since: $since\n    until: $until\n    kinds: $kinds\n    platform: $platform\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        kind\n        platform\n        supporterId\n        name\n        at\n        before {\n          tierId\n          tierTitle\n          amountCents\n        }\n        after {\n          tierId\n          tierTitle\n          amountCents\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery SupportersPage($platform: Platform, $orderBy: SupporterOrder, $first: Int, $after: String) {\n  supportersConnection(\n    platform: $platform\n    orderBy: $orderBy\n    first: $first\n    after: $after\n  ) {\n    totalCount\n    edges {\n      cursor\n      node {\n        ...SupporterFields\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}\n\nquery ChannelGoals {\n  goals {\n    id\n    title\n    measure\n    platform\n    target\n    value\n    progress\n    reached\n    reachedAt\n  }\n}\n\nsubscription GoalReached {\n  goalReached {\n    id\n    value\n    at\n    goal {\n      id\n      title\n      target\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query NotificationDeliveries($destination: String, $state: NotificationDeliveryState, $first: Int = 20, $after: String) {\n  notificationDeliveries(\n    destination: $destination\n    state: $state\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        eventId\n        kind\n        destination\n        state\n        attempts\n        recordedAt\n        lastAttemptAt\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query NotificationDeliveries($destination: String, $state: NotificationDeliveryState, $first: Int = 20, $after: String) {\n  notificationDeliveries(\n    destination: $destination\n    state: $state\n    first: $first\n    after: $after\n  ) {\n    edges {\n      cursor\n      node {\n        eventId\n        kind\n        destination\n        state\n        attempts\n        recordedAt\n        lastAttemptAt\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription StatsChanged {\n  statsChanged {\n    subscribers\n    fetchedAt\n    stale\n  }\n}"): (typeof documents)["subscription StatsChanged {\n  statsChanged {\n    subscribers\n    fetchedAt\n    stale\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ChannelStatistics {\n  stats {\n    subscribers\n    fetchedAt\n    stale\n  }\n}"): (typeof documents)["query ChannelStatistics {\n  stats {\n    subscribers\n    fetchedAt\n    stale\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query PatronById($id: String!) {\n  patron(id: $id) {\n    ...SupporterFields\n  }\n}\n\nquery MemberById($id: String!) {\n  member(id: $id) {\n    ...SupporterFields\n  }\n}"): (typeof documents)["query PatronById($id: String!) {\n  patron(id: $id) {\n    ...SupporterFields\n  }\n}\n\nquery MemberById($id: String!) {\n  member(id: $id) {\n    ...SupporterFields\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription SupporterChanged($platform: Platform, $changes: [SupporterChange!]) {\n  supporterChanged(platform: $platform, changes: $changes) {\n    id\n    change\n    previousAmountCents\n    at\n    supporter {\n      ...SupporterFields\n    }\n  }\n}"): (typeof documents)["subscription SupporterChanged($platform: Platform, $changes: [SupporterChange!]) {\n  supporterChanged(platform: $platform, changes: $changes) {\n    id\n    change\n    previousAmountCents\n    at\n    supporter {\n      ...SupporterFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment SupporterFields on Supporter {\n  __typename\n  id\n  name\n  platform\n  amountCents\n  since\n  tier {\n    id\n    title\n  }\n  ... on Patron {\n    lifetimeCents\n  }\n  ... on ChannelMember {\n    daysAtTier\n  }\n}"): (typeof documents)["fragment SupporterFields on Supporter {\n  __typename\n  id\n  name\n  platform\n  amountCents\n  since\n  tier {\n    id\n    title\n  }\n  ... on Patron {\n    lifetimeCents\n  }\n  ... on ChannelMember {\n    daysAtTier\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Supporters($platform: Platform, $orderBy: SupporterOrder = SINCE) {\n  supporters(platform: $platform, orderBy: $orderBy) {\n    ...SupporterFields\n  }\n}"): (typeof documents)["query Supporters($platform: Platform, $orderBy: SupporterOrder = SINCE) {\n  supporters(platform: $platform, orderBy: $orderBy) {\n    ...SupporterFields\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query TiersWithSupporters($platform: Platform) {\n  tiers(platform: $platform) {\n    id\n    title\n    platform\n    amountCents\n    supporters {\n      __typename\n      id\n      name\n      amountCents\n      since\n    }\n  }\n}"): (typeof documents)["query TiersWithSupporters($platform: Platform) {\n  tiers(platform: $platform) {\n    id\n    title\n    platform\n    amountCents\n    supporters {\n      __typename\n      id\n      name\n      amountCents\n      since\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query TopSupporter($platform: Platform) {\n  topSupporter(platform: $platform) {\n    ...SupporterFields\n  }\n}"): (typeof documents)["query TopSupporter($platform: Platform) {\n  topSupporter(platform: $platform) {\n    ...SupporterFields\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;