/**
 * A real PostgreSQL server for tests (Debian's `postgresql` package): `initdb` in a temporary
 * directory, then `postgres` itself on a free 127.0.0.1 port with its socket in that directory, stopped
 * by PID. As root it runs as the `postgres` user (PostgreSQL refuses to run as root). `stop()` and
 * `start()` take it down and bring it back with its data (the database going away under the service);
 * `kill()` is a crash.
 *
 *   describeWithBinary(POSTGRES, 'history on PostgreSQL', (path) => {
 *     let postgres: RunningPostgres;
 *     beforeAll(async () => { postgres = await startPostgresServer(path); });
 *     afterAll(() => postgres.remove());
 *   });
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually.js';
import { findSystemBinary } from './system-binary.js';

export const POSTGRES = findSystemBinary({
  name: 'PostgreSQL 15',
  command: '/usr/lib/postgresql/15/bin/postgres',
  envVar: 'POSTGRES_PATH',
  install: 'apt-get install postgresql',
});

export interface RunningPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** PID of the server now running (-1 when stopped). */
  readonly pid: number;
  /** SIGINT (fast shutdown), and waits for the process to exit; the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** SIGKILL, and waits for the process to exit. */
  kill(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

const START_DEADLINE_MS = 20_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** As root, the `postgres` user's ids (PostgreSQL will not run as root); otherwise the current user's. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const run = promisify(execFile);
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a fresh server (`path`: the `postgres` binary, from POSTGRES) on a free port. */
export async function startPostgresServer(path: string): Promise<RunningPostgres> {
  const bin = dirname(path);
  const dir = await mkdtemp(join(tmpdir(), 'pg-test-'));
  const data = join(dir, 'data');
  const user = await serverUser();
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const ids = user ?? {};
  await promisify(execFile)(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], { ...ids });
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stderr = '';

  const launch = async (): Promise<void> => {
    const server = spawn(path, ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB', '-c', 'max_connections=40'], {
      ...ids,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    server.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
    });
    child = server;
    await eventually(`postgres to accept connections on port ${port}`, async () => {
      if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${stderr}`);
      return stderr.includes('database system is ready to accept connections') ? true : undefined;
    }, { timeoutMs: START_DEADLINE_MS, intervalMs: 50, detail: () => stderr });
  };
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child === undefined) return;
    const ending = child;
    child = undefined;
    ending.kill(signal);
    await exited(ending);
    stderr = '';
  };
  try {
    await launch();
  } catch (error) {
    await end('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    get pid() {
      return child?.pid ?? -1;
    },
    stop: () => end('SIGINT'),
    start: launch,
    kill: () => end('SIGKILL'),
    async remove() {
      await end('SIGINT');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
