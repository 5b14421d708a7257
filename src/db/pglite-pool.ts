/**
 * PGlite (Postgres compiled to WebAssembly, in this process) as the connection pool of kysely's
 * PostgresDialect. Kysely ships no PGlite dialect, and PGlite is a single connection: this pool lends
 * it to one user at a time (a transaction holds it from BEGIN to COMMIT), as a pool of one would.
 *
 * A statement without parameters goes through PGlite's simple-query path (`exec`), as node-postgres
 * sends it: a migration file of several statements runs as one call on both.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

type Command = PostgresQueryResult<unknown>['command'];

export function createPGlitePool(pglite: PGlite): PostgresPool {
  /** Resolves when the connection is free; each borrower chains its release onto it. */
  let free: Promise<void> = Promise.resolve();
  const client: Omit<PostgresPoolClient, 'release'> = {
    async query<R>(sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
      if (parameters.length === 0) {
        const results = await pglite.exec(sqlText);
        const last = results.at(-1);
        return { command: (last?.command ?? 'SELECT') as Command, rowCount: last?.affectedRows ?? 0, rows: (last?.rows ?? []) as R[] };
      }
      const result = await pglite.query<R>(sqlText, [...parameters]);
      return { command: (result.command ?? 'SELECT') as Command, rowCount: result.affectedRows ?? 0, rows: result.rows };
    },
  } as Omit<PostgresPoolClient, 'release'>;
  return {
    async connect() {
      let release!: () => void;
      const previous = free;
      free = new Promise<void>((resolve) => {
        release = resolve;
      });
      await previous;
      let released = false;
      return {
        ...client,
        release() {
          if (released) return;
          released = true;
          release();
        },
      };
    },
    async end() {
      await free;
    },
  };
}
