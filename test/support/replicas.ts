/**
 * Replicas of the service as separate processes (`src/main.ts` as `npm start` runs it: built, on
 * node with the start script's flags; test/support/built-module.ts), each with its own port and
 * DATA_DIR, in live mode against one sandbox and sharing one Redis — what several replicas behind a
 * load balancer are. Only the variables given reach a replica (plus PATH), so the caller's
 * environment cannot change what is tested.
 *
 *   const replicas = await startReplicas(3, { sandbox, redisUrl: redis.url, dir });
 *   ...
 *   await stopReplicas(replicas);
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { builtModule, START_NODE_FLAGS } from './built-module.js';
import { eventually } from './eventually.js';
import { liveModeEnv } from './live-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = builtModule('src/main.ts');
const START_DEADLINE_MS = 60_000;

export interface Replica {
  /** 0, 1, 2… in start order. */
  index: number;
  child: ChildProcess;
  pid: number;
  /** Base URL, once it listens. */
  url: string;
  /** stdout and stderr so far (JSON log lines). */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ReplicaOptions {
  sandbox: RunningSandbox;
  redisUrl: string;
  /** A temporary directory: each replica's DATA_DIR is a subdirectory, members.json is written there. */
  dir: string;
  /** More variables (REFRESH_INTERVAL_SECONDS, UPSTREAM_TIMEOUT_MS…). */
  env?: Record<string, string>;
}

function startReplica(index: number, options: ReplicaOptions, membersConfig: string): Promise<Replica> {
  const child = spawn(process.execPath, [...START_NODE_FLAGS, MAIN], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      ENV_FILE: join(options.dir, 'absent.env'),
      PORT: '0',
      HOST: '127.0.0.1',
      ...liveModeEnv(options.sandbox),
      MEMBERS_CONFIG: membersConfig,
      DATA_DIR: join(options.dir, `replica-${index}`),
      REDIS_URL: options.redisUrl,
      // Replicas share history through DATABASE_URL; these tests are about Redis, so none is opened.
      HISTORY: 'false',
      ...options.env,
    },
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const listening = (): string | undefined => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`replica ${index} exited before listening:\n${output}`);
    return /channel api listening on (http:\/\/\S+)/.exec(output)?.[1];
  };
  return eventually(`replica ${index} to listen`, listening, { timeoutMs: START_DEADLINE_MS, detail: () => output }).then(
    (url) => ({ index, child, pid: child.pid ?? -1, url, output: () => output, exited }),
    (error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    },
  );
}

/** Starts `count` replicas one after another (as a rolling deploy does) and resolves once all listen. */
export async function startReplicas(count: number, options: ReplicaOptions): Promise<Replica[]> {
  await mkdir(options.dir, { recursive: true });
  const membersConfig = join(options.dir, 'members.json');
  await writeFile(membersConfig, JSON.stringify(options.sandbox.credentials.members));
  const replicas: Replica[] = [];
  try {
    for (let index = 0; index < count; index += 1) replicas.push(await startReplica(index, options, membersConfig));
  } catch (error) {
    await stopReplicas(replicas);
    throw error;
  }
  return replicas;
}

/** SIGTERM to every replica still running (SIGKILL 15 s later), and waits for all to exit. */
export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(
    replicas.map(async (replica) => {
      if (replica.child.exitCode !== null || replica.child.signalCode !== null) return;
      replica.child.kill('SIGTERM');
      const killer = setTimeout(() => replica.child.kill('SIGKILL'), 15_000);
      await replica.exited;
      clearTimeout(killer);
    }),
  );
}
