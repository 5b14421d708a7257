/**
 * The two databases the history runs on, for suites that must pass on both: embedded PGlite and a
 * real PostgreSQL server (test/support/postgres-server.ts, skipped or failed as system-binary.ts says
 * when it is missing). Each test gets a database of its own, already migrated: on PGlite a copy of a
 * data directory made once per file (PGlite's first start, its initdb, takes seconds), on
 * PostgreSQL a new database.
 *
 *   describeOnDatabases('history', (backend) => {
 *     it('records', async () => { const options = await backend.fresh(); … });
 *   });
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type DatabaseOptions } from '../../src/db/database.js';
import { POSTGRES, startPostgresServer, type RunningPostgres } from './postgres-server.js';
import { describeWithBinary } from './system-binary.js';

export interface DatabaseBackend {
  readonly name: 'PGlite' | 'PostgreSQL';
  /** Options of a new, empty database of this backend (its data removed after the file). */
  fresh(): Promise<Pick<DatabaseOptions, 'url' | 'dataDir'>>;
  /** PostgreSQL only: the server (to stop and start it under the service). */
  readonly server: RunningPostgres | undefined;
}

export function describeOnDatabases(title: string, body: (backend: DatabaseBackend) => void): void {
  describe(`${title} (PGlite)`, () => {
    let root: string;
    let template: string;
    let count = 0;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'pglite-test-'));
      template = join(root, 'template');
      await (await openDatabase({ dataDir: template })).close();
      // PGlite's initdb: a few seconds on a quiet machine, up to a minute under load.
    }, 180_000);
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });
    body({
      name: 'PGlite',
      server: undefined,
      async fresh() {
        const dataDir = join(root, `db-${++count}`);
        await cp(template, dataDir, { recursive: true });
        return { dataDir };
      },
    });
  });
  describeWithBinary(POSTGRES, `${title} (PostgreSQL)`, (path) => {
    let server: RunningPostgres | undefined;
    let count = 0;
    beforeAll(async () => {
      server = await startPostgresServer(path);
    }, 120_000);
    afterAll(async () => {
      await server?.remove();
    });
    body({
      name: 'PostgreSQL',
      get server() {
        return server;
      },
      async fresh() {
        if (server === undefined) throw new Error('no server');
        const name = `history_${++count}`;
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return { url: server.url.replace(/\/postgres$/, `/${name}`) };
      },
    });
  });
}
