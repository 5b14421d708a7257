import type { StatsSnapshot, SupportersSnapshot } from '../channel/models.js';
import { orderSupporters, type SupporterOrder } from '../channel/order.js';
import type { SourceHealth, SourceName } from '../channel/snapshot-store.js';
import type { ChannelApiComponents as components, ChannelApiPaths as paths } from '@channel-graph/client/rest';

/**
 * Maps domain snapshots onto the REST bodies of `openapi/channel-api.yaml`. The body types are taken
 * from the generated `paths`, so a field renamed in the contract fails to compile here.
 */
type JsonBody<Path extends keyof paths, Method extends 'get' | 'post'> = paths[Path][Method] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** Both supporters endpoints (/membership/pledges, /video/members) share one body schema. */
export type SupportersBody = JsonBody<'/membership/pledges', 'get'>;
export type StatsBody = JsonBody<'/video/stats', 'get'>;
export type HealthBody = JsonBody<'/healthz', 'get'>;

export function toSupportersBody(snapshot: SupportersSnapshot, stale: boolean, order: SupporterOrder): SupportersBody {
  const levels: SupportersBody['levels'] = {};
  for (const tier of snapshot.tiers) levels[tier.id] = tier.title;
  return {
    users: orderSupporters(snapshot.supporters, order).map((supporter) => ({
      id: supporter.id,
      name: supporter.name,
      level: { level_id: supporter.tierId, amount_cents: supporter.amountCents, created_at: supporter.since },
    })),
    levels,
    fetched_at: snapshot.fetchedAt,
    stale,
  };
}

export function toStatsBody(snapshot: StatsSnapshot, stale: boolean): StatsBody {
  return { subscribers: snapshot.subscribers, fetched_at: snapshot.fetchedAt, stale };
}

/** Whether Redis (REDIS_URL) is reachable and its last error. */
export interface RedisHealthEntry {
  reachable: boolean;
  lastError: string | null;
}

export function toHealthBody(mode: components['schemas']['Mode'], health: Record<SourceName, SourceHealth>, redis?: RedisHealthEntry): HealthBody {
  const source = (entry: SourceHealth): HealthBody['sources']['membership'] => ({
    fetched_at: entry.fetchedAt,
    age_seconds: entry.ageSeconds,
    stale: entry.stale,
    last_error: entry.lastError,
  });
  const degraded = Object.values(health).some((entry) => entry.fetchedAt === null || entry.stale) || redis?.reachable === false;
  return {
    status: degraded ? 'degraded' : 'ok',
    mode,
    ...(redis !== undefined && { redis: { reachable: redis.reachable, last_error: redis.lastError } }),
    sources: { membership: source(health.membership), video: source(health.video), stats: source(health.stats) },
  };
}
