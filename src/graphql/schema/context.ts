import type { GraphQLError } from 'graphql';
import type { ChannelStatsView, Platform, Supporter, SupportersSnapshot, Tier } from '../../channel/models.js';
import { orderSupporters, type SupporterOrder } from '../../channel/order.js';
import type { SnapshotStore } from '../../channel/snapshot-store.js';

/** The part of the snapshot store the graph reads: the data, and a signal when it changes. */
export type ChannelGraphStore = Pick<SnapshotStore, 'read' | 'onChange' | 'current'>;

/**
 * One platform's snapshot with the lookups the resolvers need. Built once per snapshot (not per
 * request, not per field), so a list of N supporters resolving `tier` costs N map lookups. The
 * arrays are shared by every request: read them, never mutate them.
 */
export interface PlatformIndex {
  readonly snapshot: SupportersSnapshot;
  readonly tiersById: ReadonlyMap<string, Tier>;
  readonly supportersById: ReadonlyMap<string, Supporter>;
  /** Each tier's supporters, oldest first (the order `Tier.supporters` promises). */
  readonly supportersByTierId: ReadonlyMap<string, Supporter[]>;
  /** The platform's supporters in each order, sorted on first use. */
  ordered(order: SupporterOrder): Supporter[];
}

function indexSnapshot(snapshot: SupportersSnapshot): PlatformIndex {
  const oldestFirst = orderSupporters(snapshot.supporters, 'since');
  const supportersByTierId = new Map<string, Supporter[]>();
  for (const supporter of oldestFirst) {
    if (supporter.tierId === null) continue;
    const atTier = supportersByTierId.get(supporter.tierId);
    if (atTier) atTier.push(supporter);
    else supportersByTierId.set(supporter.tierId, [supporter]);
  }
  const orders = new Map<SupporterOrder, Supporter[]>([['since', oldestFirst]]);
  return {
    snapshot,
    tiersById: new Map(snapshot.tiers.map((tier) => [tier.id, tier])),
    supportersById: new Map(snapshot.supporters.map((supporter) => [supporter.id, supporter])),
    supportersByTierId,
    ordered(order) {
      let list = orders.get(order);
      if (!list) {
        list = orderSupporters(snapshot.supporters, order);
        orders.set(order, list);
      }
      return list;
    },
  };
}

/**
 * Indexes of the snapshots, shared by every request of one graph. Keyed by the snapshot object and
 * dropped whenever the store reports a change, so a snapshot updated in place (webhook) is re-indexed.
 */
export interface SnapshotIndexes {
  indexOf(snapshot: SupportersSnapshot): PlatformIndex;
  /** The supporters of the given platforms merged in one order (sorted once per set of snapshots). */
  ordered(platforms: readonly PlatformIndex[], order: SupporterOrder): Supporter[];
  /** Stops listening to the store. */
  close(): void;
}

export function createSnapshotIndexes(store: ChannelGraphStore): SnapshotIndexes {
  let indexes = new WeakMap<SupportersSnapshot, PlatformIndex>();
  let merged = new Map<SupporterOrder, { parts: readonly PlatformIndex[]; list: Supporter[] }>();
  const unsubscribe = store.onChange(() => {
    indexes = new WeakMap();
    merged = new Map();
  });
  return {
    indexOf(snapshot) {
      let index = indexes.get(snapshot);
      if (!index) {
        index = indexSnapshot(snapshot);
        indexes.set(snapshot, index);
      }
      return index;
    },
    ordered(platforms, order) {
      const [only] = platforms;
      if (platforms.length === 1 && only) return only.ordered(order);
      const cached = merged.get(order);
      if (cached && cached.parts.length === platforms.length && cached.parts.every((part, i) => part === platforms[i])) {
        return cached.list;
      }
      const list = orderSupporters(platforms.flatMap((index) => index.snapshot.supporters), order);
      merged.set(order, { parts: [...platforms], list });
      return list;
    },
    close: unsubscribe,
  };
}

/**
 * The per-request context of the channel graph. Every source is read from the store at most once per
 * request (the first resolver that needs it starts the read, the others share the promise), so one
 * response sees one consistent snapshot per source and a cold store is fetched once.
 */
export type ChannelGraphContext = {
  /** A platform's supporters and tiers; rejects with the store's UpstreamUnavailableError. */
  platform(platform: Platform): Promise<PlatformIndex>;
  /**
   * The platform's index without waiting: the one this request has read, else the store's snapshot
   * in memory (what `platform` would give at once), which becomes this request's read. Undefined
   * while a read is in flight or when the store has no snapshot yet (a cold start: use `platform`).
   * Resolvers answer synchronously through it: a promise per field per list item is most of what
   * executing a large answer allocates, and an execution whose resolvers all answered synchronously
   * is answered without a promise.
   */
  platformRead(platform: Platform): PlatformIndex | undefined;
  /** The video channel's statistics; rejects with the store's UpstreamUnavailableError. */
  stats(): Promise<ChannelStatsView>;
  /**
   * Errors of non-null list fields that resolved with the platforms that were available; appended to
   * the response's `errors` by the partial-errors plugin.
   */
  partialErrors: GraphQLError[];
  /**
   * Forgets what this context has read. A subscription executes every event with the one context of
   * its request, and each event must see the snapshots of its own time, not of the first event.
   */
  forgetReads(): void;
};

export function createChannelGraphContext(store: ChannelGraphStore, indexes: SnapshotIndexes): ChannelGraphContext {
  const platforms = new Map<Platform, Promise<PlatformIndex>>();
  const read = new Map<Platform, PlatformIndex>();
  let stats: Promise<ChannelStatsView> | undefined;
  return {
    platform(platform) {
      let reading = platforms.get(platform);
      if (!reading) {
        const now = read.get(platform);
        reading =
          now !== undefined
            ? Promise.resolve(now)
            : store.read(platform).then((served) => {
                const index = indexes.indexOf(served.data);
                read.set(platform, index);
                return index;
              });
        platforms.set(platform, reading);
      }
      return reading;
    },
    platformRead(platform) {
      const now = read.get(platform);
      if (now !== undefined || platforms.has(platform)) return now;
      const served = store.current(platform);
      if (served === null) return undefined;
      const index = indexes.indexOf(served.data);
      read.set(platform, index);
      return index;
    },
    stats() {
      stats ??= store.read('stats').then((served) => ({ ...served.data, stale: served.stale }));
      return stats;
    },
    partialErrors: [],
    forgetReads() {
      platforms.clear();
      read.clear();
      stats = undefined;
    },
  };
}
