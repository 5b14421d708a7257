/**
 * The history's database, opened in the background: the service answers from its snapshots at once,
 * and the database (PGlite's first start creates its files, a few seconds) opens beside the first
 * refresh. While it is not open, or unreachable, history reads fail with HistoryUnavailableError
 * (GraphQL: null and an error; REST: 503 with Retry-After) and the recorder keeps what it has to
 * record until it is back; an open that fails is tried again, backing off.
 */
import { openDatabase, type Database, type DatabaseOptions } from '../db/database.js';
import { MigrationError } from '../db/migrate.js';

/** History cannot be read or written now (the database is opening, or unreachable). */
export class HistoryUnavailableError extends Error {
  override readonly name = 'HistoryUnavailableError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface HistoryDatabaseHealth {
  state: 'opening' | 'open' | 'unreachable';
  /** The last error met, while it is not `open`. */
  lastError: string | null;
}

export interface HistoryDatabase {
  /** The open database; HistoryUnavailableError while it is opening or its open failed. */
  get(): Database;
  /** Resolves with the database once open (rejects only when closed first). */
  opened(): Promise<Database>;
  /** What a statement's failure says about the database: it is marked unreachable until one succeeds. */
  failed(error: unknown): HistoryUnavailableError;
  /** A statement succeeded: reachable. */
  succeeded(): void;
  health(): HistoryDatabaseHealth;
  close(): Promise<void>;
}

export interface HistoryDatabaseOptions extends Omit<DatabaseOptions, 'migrations'> {
  logger: Pick<Console, 'info' | 'warn' | 'error'>;
  /** First pause before an open is tried again, doubling up to 30 s; default 1 s. */
  retryMs?: number;
  /** Retry-After of a read that finds it unavailable; default 5 s. */
  retryAfterSeconds?: number;
}

const MAX_RETRY_MS = 30_000;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createHistoryDatabase(options: HistoryDatabaseOptions): HistoryDatabase {
  const { logger } = options;
  const retryAfterSeconds = options.retryAfterSeconds ?? 5;
  let database: Database | undefined;
  let state: HistoryDatabaseHealth = { state: 'opening', lastError: null };
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveOpened!: (database: Database) => void;
  let rejectOpened!: (error: Error) => void;
  const opened = new Promise<Database>((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  opened.catch(() => undefined);

  const attempt = async (delayMs: number): Promise<void> => {
    try {
      const open = await openDatabase(options);
      if (closed) {
        await open.close();
        return;
      }
      database = open;
      state = { state: 'open', lastError: null };
      logger.info(`history: the ${open.kind === 'pglite' ? `embedded database${options.dataDir === undefined ? '' : ` under ${options.dataDir}`}` : 'PostgreSQL database'} is open`);
      resolveOpened(open);
    } catch (error) {
      if (closed) return;
      state = { state: 'opening', lastError: describe(error) };
      // A migration that does not match is not a fault that passes: say so, and keep serving the rest.
      if (error instanceof MigrationError) {
        logger.error(`history: ${error.message}`);
        return;
      }
      logger.warn(`history: the database could not be opened (${describe(error)}); trying again in ${Math.round(delayMs / 1000)} s`);
      timer = setTimeout(() => void attempt(Math.min(delayMs * 2, MAX_RETRY_MS)), delayMs);
      timer.unref();
    }
  };
  void attempt(options.retryMs ?? 1_000);

  const unavailable = (reason: string, cause?: unknown): HistoryUnavailableError =>
    new HistoryUnavailableError(`history is unavailable: ${reason}`, retryAfterSeconds, cause === undefined ? undefined : { cause });

  return {
    get() {
      if (database === undefined) throw unavailable(state.lastError === null ? 'the database is opening' : `the database cannot be opened (${state.lastError})`);
      return database;
    },
    opened: () => opened,
    failed(error) {
      if (error instanceof HistoryUnavailableError) return error;
      // A statement the server refused (SQLSTATE outside connection exceptions, class 08, and
      // operator intervention, class 57) says nothing about whether it is reachable.
      const code = (error as { code?: unknown }).code;
      const refused = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57');
      if (database !== undefined && !refused) {
        if (state.state !== 'unreachable') logger.warn(`history: the database is unreachable: ${describe(error)}`);
        state = { state: 'unreachable', lastError: describe(error) };
      }
      return unavailable('the database is unreachable', error);
    },
    succeeded() {
      if (state.state === 'unreachable') {
        logger.info('history: the database is reachable again');
        state = { state: 'open', lastError: null };
      }
    },
    health: () => state,
    async close() {
      closed = true;
      clearTimeout(timer);
      rejectOpened(new Error('closed'));
      await database?.close();
    },
  };
}
