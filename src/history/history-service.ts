/**
 * The channel over time, as the app composes it: the database (opened beside the first refresh),
 * the recorder of every snapshot this process writes, the goals, and the reads the graph, the REST
 * API and the dashboard share. Reads of the history throw HistoryUnavailableError while the database
 * is opening or unreachable, HistoryQueryError (or CursorError) for a question asked wrong; the
 * goals' progress comes from the snapshots in memory and needs no database.
 */
import type { ChannelEventLog } from '../channel/supporter-events.js';
import type { Platform } from '../channel/models.js';
import type { SnapshotStore } from '../channel/snapshot-store.js';
import { decodeCursor, encodeCursor } from '../lib/cursor.js';
import { createGoalTracker, goalValue, readGoalStates, type Goal, type GoalReached } from './goals.js';
import { createHistoryDatabase, HistoryUnavailableError, type HistoryDatabase, type HistoryDatabaseHealth } from './history-database.js';
import { HistoryQueryError, MAX_CHANGES_PAGE, readChanges, readHistory, type ChangeRow, type ChangesQuery, type HistoryPoint, type HistoryRange } from './history-queries.js';
import { HistoryRecorder, type RecordedSnapshot, type RecordingHook } from './recorder.js';
import { totalsOf, type PlatformTotals } from './snapshot-diff.js';

export { HistoryUnavailableError } from './history-database.js';
export { HistoryQueryError } from './history-queries.js';

/** The totals now (`totals` of the graph, GET /totals), from the snapshots. */
export interface TotalsView {
  members: number;
  monthlyCents: number;
  platforms: PlatformTotals[];
  subscribers: number | null;
}

/** A goal and its progress. */
export interface GoalView extends Goal {
  value: number;
  progress: number;
  reached: boolean;
  /** Undefined when the history is unavailable (then null in answers, with `historyAvailable` false). */
  reachedAt: Date | null;
}

/** A page of changes as a Relay connection: each change with its cursor, and the paging. */
export interface ChangesPage {
  edges: Array<{ node: ChangeRow; cursor: string }>;
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

export interface ChannelHistory {
  history(range: HistoryRange): Promise<HistoryPoint[]>;
  changes(query: Omit<ChangesQuery, 'after' | 'limit'> & { first: number; after?: string | undefined }): Promise<ChangesPage>;
  goals(): Promise<{ goals: GoalView[]; historyAvailable: boolean }>;
  /** Adds a hook run in each recording's transaction (src/history/recorder.ts). */
  addRecordingHook(hook: RecordingHook): () => void;
  /** The goals a recording crossed, for a hook added with addRecordingHook (inside the same transaction). */
  goalsReachedIn(recorded: RecordedSnapshot): readonly GoalReached[];
  readonly recorder: HistoryRecorder;
  /** The database the history is kept in, for what keeps its own tables there (the notifications' outbox). */
  readonly database: HistoryDatabase;
  health(): HistoryDatabaseHealth;
  close(): Promise<void>;
}

export interface ChannelHistoryOptions {
  store: Pick<SnapshotStore, 'onChange' | 'current'>;
  events: Pick<ChannelEventLog, 'announce'>;
  /** DATABASE_URL; unset: PGlite under `dataDir`. */
  databaseUrl?: string | undefined;
  /** Where PGlite keeps its files; unset (and no URL): in memory. */
  dataDir?: string | undefined;
  goals?: readonly Goal[] | undefined;
  logger: Pick<Console, 'info' | 'warn' | 'error'>;
  now?: () => number;
}

const ALL: readonly Platform[] = ['membership', 'video'];
const CHANGES_LIST = 'changes';

/** Opens the database in the background and starts recording; returns at once. */
export function createChannelHistory(options: ChannelHistoryOptions): ChannelHistory {
  const { store, logger } = options;
  const goals = options.goals ?? [];
  const database: HistoryDatabase = createHistoryDatabase({
    ...(options.databaseUrl === undefined ? {} : { url: options.databaseUrl }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    logger,
  });
  const recorder = new HistoryRecorder({ database, store, logger, ...(options.now === undefined ? {} : { now: options.now }) });
  const tracker = goals.length > 0 ? createGoalTracker(goals) : undefined;
  if (tracker !== undefined) {
    recorder.addHook(tracker.hook);
    recorder.onRecorded((recorded) => {
      const reached = tracker.takeReached(recorded);
      for (const { goal, value } of reached) logger.info(`goal reached: ${goal.title} (${value} of ${goal.target})`);
      options.events.announce(reached.map(({ goal, value, at }) => ({ type: 'goal.reached', goal, value, at: at.toISOString() })));
    });
  }
  recorder.start();

  /** Runs a read on the open database; a failure of the database itself becomes HistoryUnavailableError. */
  const read = async <T>(run: (db: ReturnType<HistoryDatabase['get']>['db']) => Promise<T>): Promise<T> => {
    const { db } = database.get();
    try {
      const result = await run(db);
      database.succeeded();
      return result;
    } catch (error) {
      if (error instanceof HistoryQueryError) throw error;
      throw database.failed(error);
    }
  };

  return {
    history: (range) => read((db) => readHistory(db, range)),
    async changes(query) {
      if (!Number.isSafeInteger(query.first) || query.first < 1 || query.first > MAX_CHANGES_PAGE) {
        throw new HistoryQueryError(`first (limit) must be a whole number from 1 to ${MAX_CHANGES_PAGE}, got ${query.first}`);
      }
      let after: ChangesQuery['after'];
      if (query.after !== undefined) {
        const [at, id] = decodeCursor(CHANGES_LIST, query.after, ['number', 'number']) as [number, number];
        after = { observedAt: new Date(at), id };
      }
      const { rows, more } = await read((db) => readChanges(db, { ...query, after, limit: query.first }));
      const edges = rows.map((node) => ({ node, cursor: encodeCursor(CHANGES_LIST, [node.observedAt.getTime(), node.id]) }));
      return {
        edges,
        pageInfo: { startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: more, hasPreviousPage: query.after !== undefined },
      };
    },
    async goals() {
      const byPlatform = new Map<Platform, PlatformTotals>();
      for (const platform of ALL) {
        const served = store.current(platform);
        if (served !== null) byPlatform.set(platform, totalsOf(served.data));
      }
      let states: Awaited<ReturnType<typeof readGoalStates>> | undefined;
      if (goals.length > 0) {
        try {
          states = await read((db) => readGoalStates(db));
        } catch (error) {
          if (!(error instanceof HistoryUnavailableError)) throw error;
        }
      }
      return {
        historyAvailable: goals.length === 0 || states !== undefined,
        goals: goals.map((goal) => {
          const value = goalValue(goal, byPlatform);
          return { ...goal, value, progress: value / goal.target, reached: value >= goal.target, reachedAt: states?.get(goal.id)?.reachedAt ?? null };
        }),
      };
    },
    addRecordingHook: (hook) => recorder.addHook(hook),
    goalsReachedIn: (recorded) => tracker?.reachedIn(recorded) ?? [],
    recorder,
    database,
    health: () => database.health(),
    async close() {
      await recorder.close();
      await database.close();
    },
  };
}
