/**
 * A real redis-server for tests, on a free 127.0.0.1 port, without persistence
 * (`--save '' --appendonly no`), stopped by PID. `restart()` brings it back on the same port, empty —
 * what a replica sees when Redis is restarted under load.
 *
 * `{ tls: true }`: TLS only (`--port 0 --tls-port <free>`, `rediss://`), with a server certificate for
 * 127.0.0.1 signed by a throwaway CA made with `openssl` in a temporary directory (`caFile`);
 * clients are not asked for a certificate (`--tls-auth-clients no`). Debian's redis-server is built
 * with TLS.
 *
 *   describeWithBinary(REDIS_SERVER, 'token store on Redis', (path) => {
 *     let redis: RunningRedis;
 *     beforeAll(async () => { redis = await startRedisServer(path); });
 *     afterAll(() => redis.stop());
 *   });
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { promisify } from 'node:util';
import { eventually } from './eventually.js';
import { findSystemBinary } from './system-binary.js';

export const REDIS_SERVER = findSystemBinary({ name: 'redis-server', command: 'redis-server', envVar: 'REDIS_SERVER_PATH', install: 'apt-get install redis-server' });
export const OPENSSL = findSystemBinary({ name: 'openssl', command: 'openssl', envVar: 'OPENSSL_PATH', install: 'apt-get install openssl' });

export interface RedisServerOptions {
  /** TLS only, with a certificate from a throwaway CA (needs `openssl`: OPENSSL.path). */
  tls?: boolean;
}

export interface RunningRedis {
  /** `redis://127.0.0.1:<port>`, or `rediss://…` with TLS. */
  url: string;
  port: number;
  /** With TLS: the PEM file of the CA that signed the server's certificate (trust it to connect). */
  caFile?: string;
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

/** Resolves once the server answers PING with PONG (over TLS, trusting `ca`, when given). */
function answersPing(port: number, ca: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = ca === undefined ? createConnection({ host: '127.0.0.1', port }) : connectTls({ host: '127.0.0.1', port, ca });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once(ca === undefined ? 'connect' : 'secureConnect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString('latin1').startsWith('+PONG')));
  });
}

interface TlsFiles {
  dir: string;
  caFile: string;
  ca: string;
  args: string[];
}

/** A throwaway CA and a server certificate for 127.0.0.1 (and localhost) signed by it, valid for a day. */
async function makeTlsFiles(): Promise<TlsFiles> {
  const openssl = OPENSSL.path;
  if (openssl === undefined) throw new Error(`a TLS redis-server needs openssl (${OPENSSL.lookedFor}; ${OPENSSL.install})`);
  const dir = await mkdtemp(join(tmpdir(), 'redis-tls-'));
  const file = (name: string): string => join(dir, name);
  const run = (args: string[]): Promise<unknown> => promisify(execFile)(openssl, args);
  await run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=channel-graph test CA', '-keyout', file('ca.key'), '-out', file('ca.crt')]);
  await run(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr')]);
  await writeFile(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await run(['x509', '-req', '-days', '1', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-extfile', file('server.ext'), '-out', file('server.crt')]);
  return {
    dir,
    caFile: file('ca.crt'),
    ca: await readFile(file('ca.crt'), 'utf8'),
    args: ['--tls-cert-file', file('server.crt'), '--tls-key-file', file('server.key'), '--tls-ca-cert-file', file('ca.crt'), '--tls-auth-clients', 'no'],
  };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function spawnRedis(path: string, port: number, tls: TlsFiles | undefined): Promise<ChildProcess> {
  const listen = tls === undefined ? ['--port', String(port)] : ['--port', '0', '--tls-port', String(port), ...tls.args];
  const child = spawn(path, [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
  });
  const answering = async (): Promise<boolean> => {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr}`);
    return answersPing(port, tls?.ca);
  };
  try {
    await eventually(`redis-server to answer PING on port ${port}`, answering, { timeoutMs: START_DEADLINE_MS, intervalMs: 50, detail: () => stderr });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}

/** Starts redis-server (`path`, from REDIS_SERVER) on a free port. */
export async function startRedisServer(path: string, options: RedisServerOptions = {}): Promise<RunningRedis> {
  const port = await freePort();
  const tls = options.tls === true ? await makeTlsFiles() : undefined;
  let child: ChildProcess | undefined;
  try {
    child = await spawnRedis(path, port, tls);
  } catch (error) {
    if (tls !== undefined) await rm(tls.dir, { recursive: true, force: true });
    throw error;
  }
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child === undefined) return;
    const ending = child;
    child = undefined;
    ending.kill(signal);
    await exited(ending);
  };
  const removeTlsFiles = async (): Promise<void> => {
    if (tls !== undefined) await rm(tls.dir, { recursive: true, force: true });
  };
  return {
    url: `${tls === undefined ? 'redis' : 'rediss'}://127.0.0.1:${port}`,
    port,
    ...(tls === undefined ? {} : { caFile: tls.caFile }),
    get pid() {
      return child?.pid ?? -1;
    },
    stop: async () => {
      await end('SIGTERM');
      await removeTlsFiles();
    },
    kill: () => end('SIGKILL'),
    async restart() {
      await end('SIGTERM');
      child = await spawnRedis(path, port, tls);
    },
  };
}
