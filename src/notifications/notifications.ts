/**
 * The notifications as the app composes them: the outbox in the history's database, filled by a hook
 * in each recording's transaction (the supporter changes it records and the goals it crossed), and
 * the delivery worker, woken after each recording commits. docs/notifications.md.
 */
import type { Dispatcher } from 'undici';
import type { GoalReached } from '../history/goals.js';
import type { ChannelHistory } from '../history/history-service.js';
import type { RecordedSnapshot } from '../history/recorder.js';
import type { SupporterChangeRecord } from '../history/snapshot-diff.js';
import type { NotificationsConfig } from './destinations.js';
import type { NotificationInput, NotificationTier } from './events.js';
import { decodeCursor, encodeCursor } from '../lib/cursor.js';
import { MAX_DELIVERIES_PAGE, NotificationOutbox, type DeliveryState, type DeliveryView } from './outbox.js';
import { createSafeAgent, type Resolver } from './safe-agent.js';
import { DeliveryWorker, type DeliveryObserver } from './worker.js';

const tierOf = (level: SupporterChangeRecord['before']): NotificationTier | null => (level === null || level.tierId === null ? null : { id: level.tierId, title: level.tierTitle });

/** A recorded change as the event it is: the supporter after it (as last seen for `left`), and before it when it changed level. */
export function supporterChangeInput(change: SupporterChangeRecord, at: Date): NotificationInput {
  const now = change.after ?? change.before;
  return {
    kind: `supporter.${change.kind}`,
    at: at.toISOString(),
    supporter: { id: change.supporterId, platform: change.platform, name: change.name, tier: tierOf(now), amountCents: now?.amountCents ?? 0 },
    ...(change.kind === 'joined' || change.kind === 'left' || change.before === null ? {} : { previous: { tier: tierOf(change.before), amountCents: change.before.amountCents } }),
  };
}

export function goalReachedInput({ goal, value, at }: GoalReached): NotificationInput {
  return {
    kind: 'goal.reached',
    at: at.toISOString(),
    goal: { id: goal.id, title: goal.title, metric: goal.measure === 'members' ? 'members' : 'monthly_amount', platform: goal.platform, target: goal.target, current: value, progress: value / goal.target },
  };
}

/** The list a deliveries cursor belongs to. */
const DELIVERIES_LIST = 'notification-deliveries';

export { MAX_DELIVERIES_PAGE };

/** How often delivered and dead deliveries past their retention are removed. */
const PRUNE_EVERY_MS = 3_600_000;

type NotificationsLogger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface NotificationsOptions {
  /** notifications.json; undefined: no destination (the deliveries view still answers). */
  config: NotificationsConfig | undefined;
  /** NOTIFICATIONS_ALLOW_LOOPBACK. */
  allowLoopback: boolean;
  history: Pick<ChannelHistory, 'addRecordingHook' | 'goalsReachedIn' | 'recorder' | 'database'>;
  logger: NotificationsLogger;
  observer?: DeliveryObserver;
  /** Host names are resolved by this (default the system's): tests give a table. */
  resolve?: Resolver;
  pollIntervalMs?: number;
  now?: () => number;
}

/** A page of the deliveries view, newest first, as a Relay connection. */
export interface DeliveriesPage {
  edges: Array<{ node: DeliveryView; cursor: string }>;
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

export interface DeliveriesQuery {
  destination?: string | undefined;
  state?: DeliveryState | undefined;
  /** 1 to MAX_DELIVERIES_PAGE (checked by the caller, which says how). */
  first: number;
  /** The endCursor of the previous page; CursorError when it is not one of this list's. */
  after?: string | undefined;
}

export interface Notifications {
  readonly outbox: NotificationOutbox;
  readonly worker: DeliveryWorker;
  /** The newest deliveries (the REST and GraphQL views); HistoryUnavailableError while the database is not open. */
  deliveries(query: DeliveriesQuery): Promise<DeliveriesPage>;
  /** Dead letters back to pending (the operator's replay), sent at once; resolves with how many. */
  replayDead(filter: { destination?: string | undefined; eventId?: string | undefined }): Promise<number>;
  /**
   * Drains: sends what is due until nothing is or `deadlineMs` has passed, then stops (what is left is
   * sent after the next start). Call after the recorder has stopped and before the database closes.
   * Every call returns the same promise.
   */
  close(deadlineMs: number): Promise<void>;
}

const EMPTY_CONFIG: NotificationsConfig = { destinations: [], delivery: { attemptTimeoutMs: 10_000, firstRetryDelayMs: 5_000, maxRetryDelayMs: 3_600_000, retryForMs: 86_400_000 } };

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createNotifications(options: NotificationsOptions): Notifications {
  const config = options.config ?? EMPTY_CONFIG;
  const { history, logger } = options;
  const db = () => history.database.get().db;
  const outbox = new NotificationOutbox({ db, destinations: config.destinations, ...(options.now === undefined ? {} : { now: options.now }) });
  const dispatcher: Dispatcher = createSafeAgent({
    allowLoopback: options.allowLoopback,
    connectTimeoutMs: config.delivery.attemptTimeoutMs,
    ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
  });
  const worker = new DeliveryWorker({
    store: outbox,
    config,
    dispatcher,
    logger,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const removeHook = history.addRecordingHook(async (tx, recorded: RecordedSnapshot) => {
    const inputs = [...recorded.changes.map((change) => supporterChangeInput(change, recorded.observedAt)), ...history.goalsReachedIn(recorded).map(goalReachedInput)];
    await outbox.enqueue(tx, inputs);
  });
  const stopWaking = history.recorder.onRecorded(() => worker.wake());
  /** As the history's own reads: a failure of the database marks it unreachable and becomes HistoryUnavailableError (503). */
  const onDatabase = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      const result = await run();
      history.database.succeeded();
      return result;
    } catch (error) {
      throw history.database.failed(error);
    }
  };
  let pruneTimer: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  const prune = (): void => {
    outbox.prune().then(
      (removed) => removed > 0 && logger.info(`notifications: removed ${removed} deliveries past their retention`),
      (error: unknown) => logger.warn(`notifications: removing old deliveries failed (${describe(error)})`),
    );
  };
  if (config.destinations.length > 0) {
    history.database.opened().then(
      () => {
        worker.start();
        prune();
        pruneTimer = setInterval(prune, PRUNE_EVERY_MS);
        pruneTimer.unref();
      },
      () => undefined,
    );
  }
  return {
    outbox,
    worker,
    async deliveries(query) {
      const before = query.after === undefined ? undefined : (decodeCursor(DELIVERIES_LIST, query.after, ['number'])[0] as number);
      // One more than asked: whether there is a next page.
      const rows = await onDatabase(() => outbox.recent({ destination: query.destination, state: query.state, limit: query.first + 1, before }));
      const edges = rows.slice(0, query.first).map((node) => ({ node, cursor: encodeCursor(DELIVERIES_LIST, [node.id]) }));
      return {
        edges,
        pageInfo: { startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: rows.length > query.first, hasPreviousPage: query.after !== undefined },
      };
    },
    async replayDead(filter) {
      const replayed = await onDatabase(() => outbox.replayDead(filter));
      if (replayed > 0) {
        logger.info(`notifications: ${replayed} dead letters replayed${filter.destination === undefined ? '' : ` (destination ${filter.destination})`}${filter.eventId === undefined ? '' : ` (event ${filter.eventId})`}`);
        worker.wake();
      }
      return replayed;
    },
    close(deadlineMs) {
      closing ??= (async () => {
        removeHook();
        stopWaking();
        clearInterval(pruneTimer);
        try {
          const drained = await worker.close(deadlineMs);
          if (!drained) logger.info('notifications: the shutdown deadline came before every due delivery was sent; the rest are sent after the next start');
        } finally {
          await dispatcher.close();
        }
      })();
      return closing;
    },
  };
}
