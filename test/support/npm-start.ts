/**
 * `npm start` in a project directory, as an operator runs it (or any other command that starts the
 * service: `startService`), timed from the spawn to the first answer of `GET /healthz` (any status:
 * the server answers). Sandbox mode: the variables that would configure a live channel are left out
 * of the child's environment, NODE_ENV and SANDBOX too (NODE_ENV=production would refuse the sandbox).
 * The child runs in its own process group, so stopping it reaches npm, its shell and the server.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { eventually } from './eventually.js';

/** Variables that configure the service: the child gets none of them from the caller. */
const CHANNEL_VARIABLES = /^(PORT|HOST|NODE_ENV|SANDBOX|DATA_DIR|MEMBERS_CONFIG|REFRESH_INTERVAL_SECONDS|(MEMBERSHIP|VIDEO|GRAPHQL|UPSTREAM|HTTP|SHUTDOWN|SANDBOX)_\w+)$/;
const POLL_MS = 10;

export interface NpmStartOptions {
  /** Give up (and stop the child) if /healthz has not answered by then; default 120 s. */
  timeoutMs?: number;
  env?: Record<string, string>;
}

export interface StartedServer {
  url: string;
  /** Milliseconds from the spawn of `npm start` to the first answer of /healthz. */
  firstAnswerMs: number;
  /** stdout and stderr so far. */
  output(): string;
  /**
   * The first match of `pattern` in the output, once it is there (log lines are written in batches,
   * so a line logged before the first answer may reach the pipe after it); rejects after `timeoutMs`.
   */
  outputMatching(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM to the process group; SIGKILL if it has not exited 15 s later. Resolves with the child's exit code once no process of the group is left. */
  stop(): Promise<number | null>;
}

/** A port that was free a moment ago (the child has to know it before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(group, signal);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once no process of the group is left; SIGKILLs what is left after 15 s. */
async function groupGone(group: number): Promise<void> {
  const gone = (): boolean => !signalGroup(group, 0);
  try {
    await eventually('the process group to exit', gone, { timeoutMs: 15_000, intervalMs: POLL_MS });
  } catch {
    signalGroup(group, 'SIGKILL');
    await eventually('the process group to exit after SIGKILL', gone, { intervalMs: POLL_MS });
  }
}

export function npmStart(dir: string, options: NpmStartOptions = {}): Promise<StartedServer> {
  return startService('npm', ['start'], dir, options);
}

export async function startService(command: string, args: readonly string[], dir: string, options: NpmStartOptions = {}): Promise<StartedServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CHANNEL_VARIABLES.test(name)));
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', NO_COLOR: '1' }, options.env);
  const started = performance.now();
  const child = spawn(command, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let exitCode: number | undefined | null;
  void exited.then((code) => (exitCode = code));

  const group = -(child.pid ?? 0);
  const stop = async (): Promise<number | null> => {
    if (exitCode !== undefined) {
      await groupGone(group);
      return exitCode;
    }
    process.kill(group, 'SIGTERM');
    const killer = setTimeout(() => signalGroup(group, 'SIGKILL'), 15_000);
    try {
      const code = await exited;
      // npm can exit before the server it started has finished closing (and writing its snapshots):
      // the caller may remove the directory next, so wait for the whole group.
      await groupGone(group);
      return code;
    } finally {
      clearTimeout(killer);
    }
  };

  const url = `http://127.0.0.1:${port}`;
  const what = `${command} ${args.join(' ')} in ${dir}`;
  const firstAnswer = async (): Promise<boolean> => {
    if (exitCode !== undefined) throw new Error(`${what} exited with ${exitCode}:\n${output}`);
    return answers(`${url}/healthz`);
  };
  try {
    await eventually(`${what} to answer GET /healthz`, firstAnswer, { timeoutMs: options.timeoutMs ?? 120_000, intervalMs: POLL_MS, detail: () => output });
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const outputMatching = (pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> =>
    eventually(`${what} to write something matching ${String(pattern)}`, () => pattern.exec(output) ?? undefined, { timeoutMs, intervalMs: POLL_MS, detail: () => output });
  return { url, firstAnswerMs: performance.now() - started, output: () => output, outputMatching, stop };
}
