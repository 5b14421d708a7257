/**
 * The service's SQL database: PostgreSQL, one dialect. Embedded PGlite under DATA_DIR by default (so
 * `npm start` needs nothing else), or a PostgreSQL server with DATABASE_URL (replicas share it).
 * Queries go through kysely, typed by generated/db/database.ts (codegen from db/migrations/).
 * Migrations run when it opens (migrate.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database as Tables } from '../../generated/db/database.js';
import { MIGRATIONS } from '../../generated/db/migrations.js';
import { migrate, type Migration } from './migrate.js';
import { createPGlitePool } from './pglite-pool.js';

export type { Database as Tables } from '../../generated/db/database.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly kind: DatabaseKind;
  /** Typed queries (kysely over the generated tables). */
  readonly db: Kysely<Tables>;
  /** Closes the connections (PGlite: stops the embedded server, its files consistent). */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** DATABASE_URL: a postgres:// or postgresql:// URL. Unset: PGlite under `dataDir`. */
  url?: string;
  /** Where PGlite keeps its files; unset with no `url`: in memory (tests, codegen). */
  dataDir?: string;
  /** Connections of the pool (DATABASE_URL); default 4. */
  maxConnections?: number;
  /** Deadline of connecting and of one statement, in milliseconds (DATABASE_URL); default 5,000. */
  timeoutMs?: number;
  /** The migrations to run; default db/migrations as generated. */
  migrations?: readonly Migration[];
}

/**
 * A small embedded server: the service's tables are a few megabytes, and PostgreSQL's defaults
 * (128 MB of shared buffers, 100 connections) would cost the process their memory for nothing.
 */
const PGLITE_SETTINGS = ['shared_buffers=8MB', 'max_connections=4', 'wal_buffers=256kB', 'work_mem=2MB', 'maintenance_work_mem=8MB', 'min_wal_size=32MB', 'max_wal_size=64MB'];

const INT8_OID = 20;

/** Opens the database and brings its schema up to date (forward only, each migration in a transaction, under an advisory lock). */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.url !== undefined ? await openPostgres(options.url, options) : await openPGlite(options.dataDir);
  try {
    await migrate(database.db, options.migrations ?? MIGRATIONS);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  return database;
}

/**
 * PGlite's first start in a directory runs initdb, seconds of WebAssembly that keep hundreds of
 * megabytes resident afterwards. A worker thread does it: the service's event loop keeps answering
 * meanwhile, and the memory goes with the worker.
 */
const CREATE_IN_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then(async ({ PGlite }) => {
  const pglite = await PGlite.create(workerData.dataDir, { postgresqlconf: workerData.settings });
  await pglite.close();
  parentPort.postMessage('created');
}).catch((error) => parentPort.postMessage(error instanceof Error ? error.message : String(error)));`;

async function createDataDir(dataDir: string): Promise<void> {
  const { Worker } = await import('node:worker_threads');
  const module = import.meta.resolve('@electric-sql/pglite');
  const worker = new Worker(CREATE_IN_WORKER, { eval: true, workerData: { module, dataDir, settings: PGLITE_SETTINGS } });
  try {
    const answer = await new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the database creation ended with code ${code}`)));
    });
    if (answer !== 'created') throw new Error(`the database could not be created under ${dataDir}: ${String(answer)}`);
  } finally {
    await worker.terminate();
  }
}

async function openPGlite(dataDir: string | undefined): Promise<Database> {
  // Loaded only here: a deployment with DATABASE_URL never loads the WebAssembly build.
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await createDataDir(dataDir);
  }
  const pglite = await PGlite.create(dataDir, { postgresqlconf: PGLITE_SETTINGS });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: createPGlitePool(pglite) }) });
  return {
    kind: 'pglite',
    db,
    async close() {
      await db.destroy();
      await pglite.close();
    },
  };
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const { default: pg } = await import('pg');
  const timeoutMs = options.timeoutMs ?? 5_000;
  // int8 (counts, sums, identities) as numbers, as PGlite reads them: every value stays below 2^53.
  const parseText = (oid: number): ((value: string) => unknown) => (oid === INT8_OID ? Number : (pg.types.getTypeParser(oid, 'text') as (value: string) => unknown));
  const types = { getTypeParser: parseText as typeof pg.types.getTypeParser };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    idleTimeoutMillis: 30_000,
    types,
  });
  // An idle connection that breaks (the server restarts) is dropped by the pool; without a listener the error would end the process.
  pool.on('error', () => {});
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { kind: 'postgres', db, close: () => db.destroy() };
}
