/**
 * A real redis-server for tests, on a free 127.0.0.1 port, without persistence
 * (`--save '' --appendonly no`), stopped by PID. `restart()` brings it back on the same port, empty —
 * what a replica sees when Redis is restarted under load.
 *
 *   describeWithBinary(REDIS_SERVER, 'token store on Redis', (path) => {
 *     let redis: RunningRedis;
 *     beforeAll(async () => { redis = await startRedisServer(path); });
 *     afterAll(() => redis.stop());
 *   });
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { findSystemBinary } from './system-binary.js';

export const REDIS_SERVER = findSystemBinary({ name: 'redis-server', command: 'redis-server', envVar: 'REDIS_SERVER_PATH', install: 'apt-get install redis-server' });

export interface RunningRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** PID of the redis-server process now running. */
  readonly pid: number;
  /** SIGTERM, and waits for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), and waits for the process to exit. */
  kill(): Promise<void>;
  /** Stops it (if running) and starts a new, empty one on the same port. */
  restart(): Promise<void>;
}

const START_DEADLINE_MS = 10_000;

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

/** Resolves once the server answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString('latin1').startsWith('+PONG')));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function spawnRedis(path: string, port: number): Promise<ChildProcess> {
  const child = spawn(path, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
  });
  const started = Date.now();
  while (Date.now() - started < START_DEADLINE_MS) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr}`);
    if (await answersPing(port)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING on port ${port} within ${START_DEADLINE_MS} ms: ${stderr}`);
}

/** Starts redis-server (`path`, from REDIS_SERVER) on a free port. */
export async function startRedisServer(path: string): Promise<RunningRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnRedis(path, port);
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child === undefined) return;
    const ending = child;
    child = undefined;
    ending.kill(signal);
    await exited(ending);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid ?? -1;
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    async restart() {
      await end('SIGTERM');
      child = await spawnRedis(path, port);
    },
  };
}
