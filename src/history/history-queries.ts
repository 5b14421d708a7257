/**
 * The history's reads, and the compaction of the totals. Every answer is bounded: a history holds
 * at most MAX_HISTORY_POINTS points, a page of changes at most MAX_CHANGES_PAGE.
 */
import { sql, type Kysely } from 'kysely';
import type { Platform } from '../channel/models.js';
import type { Tables } from '../db/database.js';
import type { ChangeKind } from './snapshot-diff.js';

export type HistoryInterval = 'hour' | 'day' | 'week' | 'month';

export const HISTORY_INTERVALS: readonly HistoryInterval[] = ['hour', 'day', 'week', 'month'];

/** The longest a bucket of each interval can be, to bound the points of an answer before reading. */
const INTERVAL_MS: Record<HistoryInterval, number> = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 28 * 86_400_000 };

/** Points of one history answer at most (a year by day is 366). */
export const MAX_HISTORY_POINTS = 1_000;
export const MAX_CHANGES_PAGE = 500;

/** A question the history cannot answer as asked (the client's mistake: a 4xx). */
export class HistoryQueryError extends Error {
  override readonly name = 'HistoryQueryError';
}

export interface TierPoint {
  tierId: string;
  title: string | null;
  members: number;
  monthlyCents: number;
}

/** One platform's totals at the end of an interval (its last sample in it). */
export interface PlatformPoint {
  platform: Platform;
  members: number;
  monthlyCents: number;
  tiers: TierPoint[];
}

export interface HistoryPoint {
  /** The start of the interval. */
  at: Date;
  /** The platforms asked for that have a sample in the interval. */
  platforms: PlatformPoint[];
  /** The subscriber count at the end of the interval; null without a sample. */
  subscribers: number | null;
}

export interface HistoryRange {
  from: Date;
  to: Date;
  interval: HistoryInterval;
  /** One platform, or both. */
  platforms: readonly Platform[];
}

/** Refuses a range the history will not answer: `from` after `to`, or more than MAX_HISTORY_POINTS intervals. */
export function checkHistoryRange(range: HistoryRange): void {
  const span = range.to.getTime() - range.from.getTime();
  if (span < 0) throw new HistoryQueryError(`"from" (${range.from.toISOString()}) is after "to" (${range.to.toISOString()})`);
  const points = Math.ceil(span / INTERVAL_MS[range.interval]);
  if (points > MAX_HISTORY_POINTS) {
    throw new HistoryQueryError(`the interval ${range.interval} is too fine for this range: it would give about ${points} points, at most ${MAX_HISTORY_POINTS} are answered (choose a longer interval or a shorter range)`);
  }
}

/** The totals by interval: for each interval of [from, to) and source, its last sample. */
export async function readHistory(db: Kysely<Tables>, range: HistoryRange): Promise<HistoryPoint[]> {
  checkHistoryRange(range);
  const sources = [...range.platforms, 'stats'] as const;
  const { rows } = await sql<{ id: number; source: 'membership' | 'video' | 'stats'; bucket: Date; members: number | null; monthly_cents: number | null; subscribers: number | null }>`
    SELECT DISTINCT ON (source, bucket) id, source, date_trunc(${range.interval}, observed_at, 'UTC') AS bucket, members, monthly_cents, subscribers
    FROM totals_sample
    WHERE observed_at >= ${range.from} AND observed_at < ${range.to} AND source IN (${sql.join(sources)})
    ORDER BY source, bucket, observed_at DESC, id DESC`.execute(db);
  const sampleIds = rows.filter((row) => row.source !== 'stats').map((row) => row.id);
  const tiers = new Map<number, TierPoint[]>();
  if (sampleIds.length > 0) {
    const tierRows = await db.selectFrom('totals_tier').select(['sample_id', 'tier_id', 'tier_title', 'members', 'monthly_cents']).where('sample_id', 'in', sampleIds).orderBy('sample_id').orderBy('tier_id').execute();
    for (const row of tierRows) {
      let list = tiers.get(row.sample_id);
      if (list === undefined) tiers.set(row.sample_id, (list = []));
      list.push({ tierId: row.tier_id, title: row.tier_title, members: row.members, monthlyCents: row.monthly_cents });
    }
  }
  const points = new Map<number, HistoryPoint>();
  for (const row of rows) {
    const key = row.bucket.getTime();
    let point = points.get(key);
    if (point === undefined) points.set(key, (point = { at: row.bucket, platforms: [], subscribers: null }));
    if (row.source === 'stats') point.subscribers = row.subscribers;
    else point.platforms.push({ platform: row.source, members: row.members ?? 0, monthlyCents: row.monthly_cents ?? 0, tiers: tiers.get(row.id) ?? [] });
  }
  return [...points.values()].sort((a, b) => a.at.getTime() - b.at.getTime());
}

export interface ChangeRow {
  id: number;
  observedAt: Date;
  platform: Platform;
  supporterId: string;
  kind: ChangeKind;
  name: string | null;
  tierIdBefore: string | null;
  tierTitleBefore: string | null;
  amountCentsBefore: number | null;
  tierIdAfter: string | null;
  tierTitleAfter: string | null;
  amountCentsAfter: number | null;
}

export interface ChangesQuery {
  since: Date;
  until?: Date | undefined;
  kinds?: readonly ChangeKind[] | undefined;
  platforms: readonly Platform[];
  /** Rows after this position (oldest first). */
  after?: { observedAt: Date; id: number } | undefined;
  /** At most MAX_CHANGES_PAGE. */
  limit: number;
}

/** Changes oldest first from `since` (inclusive) to `until` (exclusive), after the cursor's position: `limit + 1` rows tell whether there is a next page. */
export async function readChanges(db: Kysely<Tables>, query: ChangesQuery): Promise<{ rows: ChangeRow[]; more: boolean }> {
  if (query.until !== undefined && query.until < query.since) throw new HistoryQueryError(`"since" (${query.since.toISOString()}) is after "until" (${query.until.toISOString()})`);
  let select = db.selectFrom('supporter_change').selectAll().where('observed_at', '>=', query.since).where('platform', 'in', [...query.platforms]);
  if (query.until !== undefined) select = select.where('observed_at', '<', query.until);
  if (query.kinds !== undefined) {
    if (query.kinds.length === 0) return { rows: [], more: false };
    select = select.where('kind', 'in', [...query.kinds]);
  }
  const { after } = query;
  if (after !== undefined) select = select.where((eb) => eb.or([eb('observed_at', '>', after.observedAt), eb.and([eb('observed_at', '=', after.observedAt), eb('id', '>', after.id)])]));
  const rows = await select.orderBy('observed_at').orderBy('id').limit(query.limit + 1).execute();
  return {
    more: rows.length > query.limit,
    rows: rows.slice(0, query.limit).map((row) => ({
      id: row.id, observedAt: row.observed_at, platform: row.platform, supporterId: row.supporter_id, kind: row.kind, name: row.name,
      tierIdBefore: row.tier_id_before, tierTitleBefore: row.tier_title_before, amountCentsBefore: row.amount_cents_before,
      tierIdAfter: row.tier_id_after, tierTitleAfter: row.tier_title_after, amountCentsAfter: row.amount_cents_after,
    })),
  };
}

/** Samples older than this keep only the last of each hour… */
export const HOURLY_AFTER_MS = 7 * 86_400_000;
/** …and older than this only the last of each day. */
export const DAILY_AFTER_MS = 90 * 86_400_000;

/**
 * Compacts the totals as of `now`: after 7 days the last sample of each hour is kept, after 90 days
 * the last of each day (its tiers go with each deleted sample). Idempotent, so replicas may both run it.
 */
export async function compactTotals(db: Kysely<Tables>, now: Date): Promise<number> {
  let deleted = 0;
  for (const [unit, olderThanMs] of [['hour', HOURLY_AFTER_MS], ['day', DAILY_AFTER_MS]] as const) {
    const cutoff = new Date(now.getTime() - olderThanMs);
    const result = await sql`
      DELETE FROM totals_sample WHERE id IN (
        SELECT id FROM (
          SELECT id, row_number() OVER (PARTITION BY source, date_trunc(${unit}, observed_at, 'UTC') ORDER BY observed_at DESC, id DESC) AS rank
          FROM totals_sample WHERE observed_at < ${cutoff}
        ) ranked WHERE rank > 1
      )`.execute(db);
    deleted += Number(result.numAffectedRows ?? 0);
  }
  // Compaction deletes samples and every recording rewrites rows of the roster: PGlite runs no
  // autovacuum (one process, no background workers), so without this its tables would keep every
  // dead row version on disk and its planner would have no statistics. On PostgreSQL autovacuum
  // does the same; this costs it little. Not in a transaction (VACUUM cannot run in one).
  await sql`VACUUM (ANALYZE) totals_sample, totals_tier, recorded_supporter, recorded_snapshot, supporter_change`.execute(db);
  return deleted;
}
