/**
 * Migrations at start: db/migrations/*.sql in name order, forward only. Each runs in its own
 * transaction under a transaction-level advisory lock, and is recorded in `schema_migration` with the
 * checksum of its text: two replicas starting together apply each migration once (the second waits
 * for the lock, then finds it recorded), a migration that fails leaves nothing of itself, and a
 * migration edited after it was applied stops the start (a released migration is never edited).
 */
import { sql, type Kysely } from 'kysely';

export interface Migration {
  /** The file name without `.sql`; the order migrations run in. */
  name: string;
  /** sha256 of the text, hex. */
  checksum: string;
  sql: string;
}

/** An applied migration differs from the one of this version: the database is not what this code expects. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/** The advisory lock key of migrations (any constant of our own: 'channelgr' as a number). */
const MIGRATION_LOCK = 0x6368616e6e656c;

/** Applies the migrations not applied yet; resolves with their names. */
export async function migrate<Tables>(db: Kysely<Tables>, migrations: readonly Migration[]): Promise<string[]> {
  const applied: string[] = [];
  for (const migration of migrations) {
    const ran = await db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(tx);
      await sql.raw('CREATE TABLE IF NOT EXISTS schema_migration (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())').execute(tx);
      const { rows } = await sql<{ checksum: string }>`SELECT checksum FROM schema_migration WHERE name = ${migration.name}`.execute(tx);
      const [done] = rows;
      if (done !== undefined) {
        if (done.checksum !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} was applied with different text (checksum ${done.checksum.slice(0, 12)}, now ${migration.checksum.slice(0, 12)}): migrations are forward only, add a new one instead`);
        }
        return false;
      }
      await sql.raw(migration.sql).execute(tx);
      await sql`INSERT INTO schema_migration (name, checksum) VALUES (${migration.name}, ${migration.checksum})`.execute(tx);
      return true;
    });
    if (ran) applied.push(migration.name);
  }
  return applied;
}
