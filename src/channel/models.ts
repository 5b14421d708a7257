/**
 * Domain models shared by the upstream adapters, the snapshot store, the REST handlers and the
 * GraphQL resolvers (codegen maps the SDL types onto these). Times are ISO-8601 strings so that a
 * snapshot round-trips through JSON on disk unchanged.
 */

/** The platform a supporter or tier comes from. */
export type Platform = 'membership' | 'video';

/** A support level offered on a platform. */
export interface Tier {
  id: string;
  platform: Platform;
  /** Title without decorative emoji; null when the platform gives none. */
  title: string | null;
  /** Monthly price in cents; null when the platform does not say. */
  amountCents: number | null;
}

/** A current supporter on one platform. */
export interface Supporter {
  id: string;
  platform: Platform;
  /** First name only. */
  name: string | null;
  /** Id of the tier the supporter is at; null when no tier matches. */
  tierId: string | null;
  /** What the supporter pays per month, in cents. */
  amountCents: number;
  /** When the supporter started at the current level (ISO-8601). */
  since: string;
  /** Membership platform only: lifetime support in cents. */
  lifetimeCents?: number | null;
  /** Video platform only: days at the current tier. */
  daysAtTier?: number | null;
}

/** One platform's supporters and tiers, as last read from the upstream. */
export interface SupportersSnapshot {
  platform: Platform;
  supporters: Supporter[];
  tiers: Tier[];
  /** When the data was read from the upstream (ISO-8601). */
  fetchedAt: string;
}

/** The video channel's statistics, as last read from the upstream. */
export interface StatsSnapshot {
  subscribers: number | null;
  /** When the data was read from the upstream (ISO-8601). */
  fetchedAt: string;
}

/** Statistics as served: the snapshot plus whether it is the last good one after a failure. */
export interface ChannelStatsView extends StatsSnapshot {
  stale: boolean;
}
