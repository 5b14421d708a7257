/**
 * The SQL contract's part of `npm run schema:check`: what the migrations added since the last
 * release (released/db-migrations.json, or db/migrations at a git revision) does to the tables.
 * A released migration edited or removed is breaking (forward only); the new ones are applied, after
 * the released ones, to an in-memory PGlite, and the tables' columns before and after are compared:
 * a table or column dropped, or a column's type changed other than widened, is breaking; anything
 * added is safe. Accepting a breaking change takes a reason, as for the SDL.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Migration } from '../src/db/migrate.js';
import { readMigrations } from './codegen-db.js';
import type { ContractChange } from './schema-changes.js';

export const MIGRATIONS_DIR = 'db/migrations';
export const RELEASED_MIGRATIONS_PATH = 'released/db-migrations.json';

/** A column as information_schema describes it. */
export interface ColumnShape {
  table: string;
  column: string;
  /** `integer`, `text`, `character varying(40)`, `numeric(10,2)`, `USER-DEFINED:platform`… */
  type: string;
}

/** Type changes that lose nothing: a wider integer, text from a bounded string. */
const WIDENINGS: ReadonlyArray<readonly [string, string]> = [
  ['smallint', 'integer'], ['smallint', 'bigint'], ['integer', 'bigint'], ['real', 'double precision'],
];

function widened(before: string, after: string): boolean {
  if (WIDENINGS.some(([from, to]) => from === before && to === after)) return true;
  const varchar = /^character varying\((\d+)\)$/;
  const [, was] = varchar.exec(before) ?? [];
  if (was === undefined) return false;
  if (after === 'text' || after === 'character varying') return true;
  const [, now] = varchar.exec(after) ?? [];
  return now !== undefined && Number(now) >= Number(was);
}

const change = (level: ContractChange['level'], action: string, path: string, message: string): ContractChange => ({
  id: `db ${action} ${path}`, level, contract: 'db', path, message,
});

/** The changes from one set of columns to another. */
export function columnChanges(before: readonly ColumnShape[], after: readonly ColumnShape[]): ContractChange[] {
  const key = (shape: ColumnShape): string => `${shape.table}.${shape.column}`;
  const afterByKey = new Map(after.map((shape) => [key(shape), shape]));
  const beforeByKey = new Map(before.map((shape) => [key(shape), shape]));
  const tablesAfter = new Set(after.map((shape) => shape.table));
  const tablesBefore = new Set(before.map((shape) => shape.table));
  const changes: ContractChange[] = [];
  for (const table of tablesBefore) if (!tablesAfter.has(table)) changes.push(change('breaking', 'drop-table', table, `table ${table} was dropped`));
  for (const shape of before) {
    if (!tablesAfter.has(shape.table)) continue;
    const now = afterByKey.get(key(shape));
    if (now === undefined) changes.push(change('breaking', 'drop-column', key(shape), `column ${key(shape)} was dropped`));
    else if (now.type !== shape.type) {
      const safe = widened(shape.type, now.type);
      changes.push(change(safe ? 'safe' : 'breaking', 'change-type', key(shape), `column ${key(shape)} changed from ${shape.type} to ${now.type}${safe ? ' (widened)' : ' (narrowed or converted)'}`));
    }
  }
  for (const table of tablesAfter) if (!tablesBefore.has(table)) changes.push(change('safe', 'add-table', table, `table ${table} was added`));
  for (const shape of after) if (tablesBefore.has(shape.table) && !beforeByKey.has(key(shape))) changes.push(change('safe', 'add-column', key(shape), `column ${key(shape)} was added`));
  return changes;
}

/** The columns of the public schema after applying `migrations` to a new in-memory PGlite. */
export async function columnsAfter(migrations: readonly Migration[]): Promise<ColumnShape[]> {
  const [{ PGlite }, { Kysely, PostgresDialect, sql }, { createPGlitePool }, { migrate }] = await Promise.all([
    import('@electric-sql/pglite'), import('kysely'), import('../src/db/pglite-pool.js'), import('../src/db/migrate.js'),
  ]);
  const pglite = await PGlite.create();
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: createPGlitePool(pglite) }) });
  try {
    await migrate(db, migrations);
    const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; udt_name: string; character_maximum_length: number | null; numeric_precision: number | null; numeric_scale: number | null }>`
      SELECT table_name, column_name, data_type, udt_name, character_maximum_length, numeric_precision, numeric_scale
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_migration' ORDER BY table_name, ordinal_position`.execute(db);
    return rows.map((row) => ({
      table: row.table_name,
      column: row.column_name,
      type: row.data_type === 'USER-DEFINED' ? `USER-DEFINED:${row.udt_name}`
        : row.character_maximum_length !== null ? `${row.data_type}(${row.character_maximum_length})`
          : row.data_type === 'numeric' && row.numeric_precision !== null ? `numeric(${row.numeric_precision},${row.numeric_scale ?? 0})` : row.data_type,
    }));
  } finally {
    await db.destroy();
    await pglite.close();
  }
}

/** The released migrations' names and checksums; undefined before the first release that had any. */
export async function releasedMigrations(): Promise<Array<Pick<Migration, 'name' | 'checksum'>> | undefined> {
  const text = await readFile(RELEASED_MIGRATIONS_PATH, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as Array<Pick<Migration, 'name' | 'checksum'>>);
}

/** What db/migrations changed since `released` (the released migrations' names and checksums). */
export async function migrationChanges(released: ReadonlyArray<Pick<Migration, 'name' | 'checksum'>> | undefined, dir = MIGRATIONS_DIR): Promise<ContractChange[]> {
  if (released === undefined || released.length === 0) return [];
  const current = readMigrations(dir);
  const byName = new Map(current.map((migration) => [migration.name, migration]));
  const changes: ContractChange[] = [];
  for (const migration of released) {
    const now = byName.get(migration.name);
    if (now === undefined) changes.push(change('breaking', 'remove-migration', migration.name, `released migration ${join(dir, `${migration.name}.sql`)} was removed`));
    else if (now.checksum !== migration.checksum) changes.push(change('breaking', 'edit-migration', migration.name, `released migration ${join(dir, `${migration.name}.sql`)} was edited (migrations are forward only: add a new one)`));
  }
  const releasedNames = new Set(released.map((migration) => migration.name));
  const added = current.filter((migration) => !releasedNames.has(migration.name));
  if (added.length === 0) return changes;
  const base = current.filter((migration) => releasedNames.has(migration.name));
  changes.push(...columnChanges(await columnsAfter(base), await columnsAfter(current)));
  return changes;
}
