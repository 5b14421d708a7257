/**
 * Goals: a number of members or a monthly amount, of one platform or of both, to reach. Read from
 * the goals file (GOALS_FILE), validated at start. Their progress is computed from the snapshots in
 * memory; whether each was reached is kept in the database (`goal_state`), updated in the recording's
 * transaction, so that crossing a goal is announced once (`goal.reached`) — also across restarts and
 * replicas — and a dip below the target recovered within the hour is not announced again.
 */
import { sql, type Transaction } from 'kysely';
import { z } from 'zod';
import type { Platform } from '../channel/models.js';
import type { Tables } from '../db/database.js';
import type { RecordedSnapshot } from './recorder.js';
import type { PlatformTotals } from './snapshot-diff.js';

export type GoalMeasure = 'members' | 'monthlyCents';

export interface Goal {
  id: string;
  title: string;
  measure: GoalMeasure;
  /** One platform, or null for both together. */
  platform: Platform | null;
  target: number;
}

/** A goal crossed: what `goal.reached` carries. */
export interface GoalReached {
  goal: Goal;
  /** The figure that reached the target. */
  value: number;
  at: Date;
}

export const MAX_GOALS = 100;
/** The advisory lock key of the goals' evaluation ('goals' as a number). */
const GOALS_LOCK = 0x676f616c73;
/** A dip below the target shorter than this is not a new crossing. */
export const REACHED_AGAIN_AFTER_MS = 3_600_000;

const goalSchema = z.strictObject({
  id: z.string({ error: 'an id (letters, digits, - and _, at most 64)' }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'an id (letters, digits, - and _, at most 64)' }),
  title: z.string({ error: 'a title (1 to 200 characters)' }).min(1, { error: 'a title (1 to 200 characters)' }).max(200, { error: 'a title (1 to 200 characters)' }),
  measure: z.enum(['members', 'monthlyCents'], { error: '"members" or "monthlyCents"' }),
  platform: z.enum(['membership', 'video', 'all'], { error: '"membership", "video" or "all"' }).default('all'),
  target: z.number({ error: 'a positive whole number' }).int({ error: 'a positive whole number' }).positive({ error: 'a positive whole number' }).max(1e12, { error: 'a positive whole number up to 10^12' }),
});

export const goalsFileSchema = z
  .strictObject({ goals: z.array(goalSchema, { error: 'a list of goals' }).max(MAX_GOALS, { error: `at most ${MAX_GOALS} goals` }) })
  .superRefine((file, context) => {
    const seen = new Set<string>();
    file.goals.forEach((goal, index) => {
      if (seen.has(goal.id)) context.addIssue({ code: 'custom', path: ['goals', index, 'id'], message: `a unique id ("${goal.id}" is used twice)` });
      seen.add(goal.id);
    });
  })
  .transform((file): Goal[] => file.goals.map((goal) => ({ ...goal, platform: goal.platform === 'all' ? null : goal.platform })));

/** A goal's figure from the platforms' totals (both platforms for a goal of both; a platform without totals counts 0). */
export function goalValue(goal: Goal, totals: ReadonlyMap<Platform, Pick<PlatformTotals, 'members' | 'monthlyCents'>>): number {
  const platforms: readonly Platform[] = goal.platform === null ? ['membership', 'video'] : [goal.platform];
  return platforms.reduce((sum, platform) => sum + (totals.get(platform)?.[goal.measure] ?? 0), 0);
}

/**
 * The recording hook of the goals: after a platform's recording, each goal that depends on it is
 * compared with its target (a goal of both platforms with the other's last recorded totals), its
 * state updated, and what was crossed returned to announce once the transaction has committed.
 */
export function createGoalTracker(goals: readonly Goal[]): {
  hook: (tx: Transaction<Tables>, recorded: RecordedSnapshot) => Promise<void>;
  /** The goals the committed recording crossed (each asked once). */
  takeReached: (recorded: RecordedSnapshot) => GoalReached[];
  /** The goals a recording crossed, asked by a later hook inside its transaction (before it commits). */
  reachedIn: (recorded: RecordedSnapshot) => readonly GoalReached[];
} {
  const reached = new WeakMap<RecordedSnapshot, GoalReached[]>();
  return {
    async hook(tx, recorded) {
      if (recorded.source === 'stats' || !('platform' in recorded.totals)) return;
      const platform = recorded.totals.platform;
      const concerned = goals.filter((goal) => goal.platform === null || goal.platform === platform);
      if (concerned.length === 0) return;
      // One evaluation of the goals at a time (recordings of two platforms run side by side): after the
      // lock, the other platform's totals read are those its recording committed.
      await sql`SELECT pg_advisory_xact_lock(${GOALS_LOCK})`.execute(tx);
      const totals = new Map<Platform, Pick<PlatformTotals, 'members' | 'monthlyCents'>>([[platform, recorded.totals]]);
      if (concerned.some((goal) => goal.platform === null)) {
        const other: Platform = platform === 'membership' ? 'video' : 'membership';
        const last = await tx.selectFrom('totals_sample').select(['members', 'monthly_cents']).where('source', '=', other).orderBy('observed_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
        if (last !== undefined) totals.set(other, { members: last.members ?? 0, monthlyCents: last.monthly_cents ?? 0 });
      }
      const states = new Map(
        (await tx.selectFrom('goal_state').selectAll().where('goal_id', 'in', concerned.map((goal) => goal.id)).forUpdate().execute()).map((row) => [row.goal_id, row]),
      );
      const at = recorded.observedAt;
      const crossed: GoalReached[] = [];
      for (const goal of concerned) {
        const value = goalValue(goal, totals);
        const state = states.get(goal.id);
        const above = value >= goal.target;
        if (state === undefined || state.reached_at === null) {
          if (!above) continue;
          await tx.insertInto('goal_state').values({ goal_id: goal.id, reached_at: at, below_since: null })
            .onConflict((conflict) => conflict.column('goal_id').doUpdateSet({ reached_at: at, below_since: null })).execute();
          crossed.push({ goal, value, at });
        } else if (!above) {
          if (state.below_since === null) await tx.updateTable('goal_state').set({ below_since: at }).where('goal_id', '=', goal.id).execute();
        } else if (state.below_since !== null) {
          const again = at.getTime() - state.below_since.getTime() >= REACHED_AGAIN_AFTER_MS;
          await tx.updateTable('goal_state').set({ below_since: null, ...(again ? { reached_at: at } : {}) }).where('goal_id', '=', goal.id).execute();
          if (again) crossed.push({ goal, value, at });
        }
      }
      if (crossed.length > 0) reached.set(recorded, crossed);
    },
    reachedIn: (recorded) => reached.get(recorded) ?? [],
    takeReached(recorded) {
      const list = reached.get(recorded) ?? [];
      reached.delete(recorded);
      return list;
    },
  };
}

/** When each goal was last reached, by id (goals never reached, or below their target for good, are absent). */
export async function readGoalStates(db: { selectFrom: Transaction<Tables>['selectFrom'] }): Promise<Map<string, { reachedAt: Date | null; belowSince: Date | null }>> {
  const rows = await db.selectFrom('goal_state').selectAll().execute();
  return new Map(rows.map((row) => [row.goal_id, { reachedAt: row.reached_at, belowSince: row.below_since }]));
}
