/**
 * The [server] part of `npm run dev`: the server (`src/main.ts` or another entry) in a child process
 * with an IPC channel, and what happens to it:
 * - an SDL regeneration: `reload-schema` (src/lib/dev-loop.ts): the running server swaps its schema,
 *   and keeps its snapshots, subscriptions and sandbox (an entry that does not join the dev loop is
 *   restarted instead);
 * - a change to its code: the dev build is brought up to date, then a new server process, the
 *   standby started after the last start (scripts/dev-standby.mjs; with the runtime dependencies
 *   loaded once `preloadStandbys` was called), imports the code as it is now; only once that worked
 *   is the running server stopped (SIGTERM: it closes as in production, snapshots saved) and the new
 *   one started, so code that does not build or throws at import leaves the last good server
 *   answering. A server that starts answers from the snapshots on disk at once and refreshes them
 *   behind (src/channel/snapshot-store.ts).
 * Changes that come during a restart make one more restart after it.
 *
 * The dev build (scripts/dev-start.mjs): an entry among the service's modules (src/, examples/) runs
 * from the product's own transpile into .dev-build/ (esbuild, source maps beside) in plain Node.
 * Under a TypeScript loader (tsx) every module a start loads, the dependencies' too, passes through
 * the loader's hooks: about a second of a two-core machine's start. An entry outside the build (a
 * file of one's own elsewhere) runs under tsx.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { DevServerReport } from '../src/lib/dev-loop.js';
import { buildDev, DEV_BUILD_DIR, forkStandby, takeEarlyStandby } from './dev-start.mjs';
import { describeImportFailure } from './dev-import-failure.js';

/** What dev-server.ts asks of a standby (scripts/dev-standby.mjs). */
type StandbyRequest = { kind: 'preload'; entry: string } | { kind: 'run'; entry: string } | { kind: 'start' };
/** What a standby tells dev-server.ts: its error is the one its code threw, as it crossed the channel. */
type StandbyReport = { kind: 'standing-by' } | { kind: 'imported' } | { kind: 'failed'; error: { name: string; message: string; stack: string } };

/** `entry`'s path in the project (the dev build's possible module of it), or undefined for an entry elsewhere. */
function projectPathOf(entry: string): string | undefined {
  const path = relative(process.cwd(), resolve(entry));
  return path.startsWith('..') || isAbsolute(path) ? undefined : path;
}

/** The dev build's module of the entry at `path` in the project, if the build has one (a module of src/ or examples/). */
function builtModuleOf(path: string): string | undefined {
  if (!path.endsWith('.ts')) return undefined;
  const built = join(DEV_BUILD_DIR, `${path.slice(0, -'.ts'.length)}.js`);
  return existsSync(built) ? built : undefined;
}

export interface DevServerOptions {
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Every line the server processes write, and the supervisor's own. */
  print: (line: string) => void;
  /** Told of every server start (its URLs) and schema reload. */
  onReport: (report: DevServerReport, startedInMs?: number) => void;
  /** Told when a start ends without a server listening: its code did not load, or it exited before it listened. */
  onStartFailed?: () => void;
}

export interface DevServer {
  /** The server's code changed: a new server replaces the running one once it imports. */
  restart(reason: string): void;
  /** The SDL was regenerated: the running server serves it (a server starting reads it anyway). */
  reloadSchema(): void;
  /**
   * From now on the standby process loads the runtime dependencies while it waits for the next code
   * change. Until then it only waits: on a machine of two cores that loading beside the first
   * typecheck slows the check down by seconds.
   */
  preloadStandbys(): void;
  /** Stops every server process (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs: number): Promise<void>;
}

interface ServerProcess {
  child: ChildProcess;
  /** True once the child has reported `kind`; false if it exited before. */
  next(kind: StandbyReport['kind']): Promise<boolean>;
  exited: Promise<void>;
}

const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

export function createDevServer(options: DevServerOptions): DevServer {
  const { entry, env, print, onReport, onStartFailed } = options;
  let running: ServerProcess | undefined;
  let standby: ServerProcess | undefined;
  let stopping = false;
  /** The restart under way, and whether another was asked for meanwhile (and why). */
  let cycle: Promise<void> | undefined;
  let again: string | undefined;
  let startedAt = 0;
  let preloading = false;
  /** Server processes stopped on purpose (their exit is no news). */
  const retiring = new WeakSet<ChildProcess>();
  /** Server processes that said they swap a regenerated SDL in (src/lib/dev-loop.ts); others are restarted. */
  const reloadable = new WeakSet<ChildProcess>();
  /** Server processes that have listened. */
  const listened = new WeakSet<ChildProcess>();
  /** The dev build's module of the entry, once a build made one; until then, and for an entry outside the build, the standby runs the entry under tsx. */
  let builtEntry: string | undefined;
  /** An entry in the project may be in the build; one elsewhere is never. */
  const entryInProject = projectPathOf(entry);

  /** A new server process, or the one `npm run dev` started before dev.ts loaded (scripts/dev.mjs), with what it reported meanwhile. */
  function spawnServerProcess(): ServerProcess {
    const early = takeEarlyStandby();
    const child = early?.child ?? forkStandby(env);
    for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream }).on('line', (line) => line.trim() !== '' && print(line));
    const exited = hasExited(child) ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const reached = new Set<StandbyReport['kind']>();
    // The restart and the preload can both wait for the same report.
    const waiting = new Map<StandbyReport['kind'], Array<(reached: boolean) => void>>();
    const onMessage = (message: StandbyReport | DevServerReport): void => {
      if (message.kind === 'standing-by' || message.kind === 'imported') {
        reached.add(message.kind);
        for (const reach of waiting.get(message.kind) ?? []) reach(true);
        return;
      }
      if (message.kind === 'failed') return print(describeImportFailure(Object.assign(new Error(message.error.message), message.error)));
      if (message.kind === 'listening') listened.add(child);
      if (message.kind === 'listening' && message.reloadsSchema) reloadable.add(child);
      onReport(message, message.kind === 'listening' ? Math.round(performance.now() - startedAt) : undefined);
    };
    child.on('message', onMessage);
    for (const report of early?.reports ?? []) onMessage(report as StandbyReport);
    child.once('exit', (code, signal) => {
      for (const reach of [...waiting.values()].flat()) reach(false);
      if (stopping || retiring.has(child) || running?.child !== child) return;
      print(`exited (${signal ?? `code ${code}`}); it starts again on the next change to its code`);
      if (!listened.has(child)) onStartFailed?.();
    });
    const next = (kind: StandbyReport['kind']): Promise<boolean> => {
      if (reached.has(kind)) return Promise.resolve(true);
      return hasExited(child) ? Promise.resolve(false) : new Promise((resolve) => waiting.set(kind, [...(waiting.get(kind) ?? []), resolve]));
    };
    return { child, next, exited };
  }

  const send = (server: ServerProcess, request: StandbyRequest | { kind: 'reload-schema' }): void => {
    if (server.child.connected) server.child.send(request, (error) => error && undefined);
  };

  async function stopProcess(server: ServerProcess, graceMs: number): Promise<void> {
    retiring.add(server.child);
    if (hasExited(server.child)) return;
    server.child.kill('SIGTERM');
    const kill = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
    await server.exited;
    clearTimeout(kill);
  }

  function notStarted(reason: string): void {
    print(running === undefined ? `${entry} did not load (above); it is tried again on the next change to its code` : `not restarted (${reason}): the code does not load (above); the last good server still answers`);
    onStartFailed?.();
  }

  async function replace(reason: string): Promise<void> {
    startedAt = performance.now();
    const next = standby ?? spawnServerProcess();
    standby = undefined;
    if (entryInProject !== undefined) {
      // The dependencies load while the build runs: they are most of a start, and no build changes them.
      void next.next('standing-by').then((ready) => ready && send(next, { kind: 'preload', entry }));
      const build = await buildDev();
      if (stopping) return;
      for (const line of build.output.split('\n')) if (line.trim() !== '') print(line);
      if (!build.ok) {
        standby = next;
        return notStarted(reason);
      }
      builtEntry = builtModuleOf(entryInProject);
    }
    const ready = await next.next('standing-by');
    const imported = ready && (send(next, { kind: 'run', entry: builtEntry ?? entry }), await next.next('imported'));
    if (stopping) return;
    if (!imported) notStarted(reason);
    else {
      if (running !== undefined) await stopProcess(running, 5_000);
      running = next;
      send(next, { kind: 'start' });
    }
  }

  /** Tells the standby to load the runtime dependencies, once it listens to what it is told. */
  async function preload(server: ServerProcess): Promise<void> {
    if (preloading && (await server.next('standing-by'))) send(server, { kind: 'preload', entry });
  }

  /** The next standby starts while the developer reads the answer, not during a restart. */
  function prepareStandby(): void {
    if (stopping || standby !== undefined || cycle !== undefined) return;
    standby = spawnServerProcess();
    void preload(standby);
  }

  function restart(reason: string): void {
    if (stopping) return;
    if (cycle !== undefined) {
      again = reason;
      return;
    }
    cycle = replace(reason).finally(() => {
      cycle = undefined;
      const pending = again;
      again = undefined;
      if (pending !== undefined) restart(pending);
      else prepareStandby();
    });
  }

  restart('start');
  return {
    restart,
    preloadStandbys() {
      preloading = true;
      if (standby !== undefined) void preload(standby);
    },
    reloadSchema() {
      if (running === undefined || hasExited(running.child)) return;
      if (reloadable.has(running.child)) send(running, { kind: 'reload-schema' });
      else restart('SDL regenerated, and the server does not swap schemas');
    },
    async stop(graceMs) {
      stopping = true;
      await Promise.all([running, standby].filter((server) => server !== undefined).map((server) => stopProcess(server, graceMs)));
    },
  };
}
