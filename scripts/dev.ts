/**
 * `npm run dev [-- <entry>]` (through scripts/dev.mjs, which starts the dev build and the first
 * server process first): the schema-first loop in one terminal, every failure shown where the user
 * is looking, one banner with the URLs once the server answers.
 * - [codegen] graphql-codegen on codegen.ts (SDL, operations and `openapi/*.yaml`) in a child process
 *   of its own (scripts/dev-codegen.ts): a save regenerates the outputs it touches; generated/ is
 *   regenerated when deleted. A failed run is printed as `file:line:column message`, and the server
 *   keeps what it serves. Its start-up check (generated/ against its fingerprint) is made here, so
 *   that the process can start after the first typecheck when there is nothing to generate.
 * - [schema] every regeneration is classified against the last release, as `npm run schema:check` does.
 * - [server] the server (`src/main.ts`, or `<entry>`) with NODE_ENV=development unless NODE_ENV is set
 *   (scripts/dev-server.ts), in plain Node from the dev build (.dev-build/): a regenerated SDL is
 *   swapped into the running server; a change to its code (src/, each package's src/, examples/)
 *   rebuilds and starts a new server, which replaces the running one only if the code builds and loads.
 * - [types] the native TypeScript compiler (`tsgo --watch`, @typescript/native-preview; `tsc --watch`
 *   where it is not installed) on the whole tree, packages included (tsconfig.dev.json), started once
 *   the server's first start is over, at a lower CPU priority than the server: a resolver missing
 *   for a new field is named as `Type.field` with the file to add it to. `npm run typecheck` (tsc -b)
 *   stays the authority, as in CI.
 * Server log lines (pino's JSON) are printed by pino-pretty when this terminal is one. Only one
 * `npm run dev` runs per working tree (scripts/dev-lock.ts). Ctrl-C (SIGINT) or SIGTERM stops every
 * child and exits 0 once they are all gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { DevServerReport } from '../src/lib/dev-loop.js';
import type { CodegenMessage, CodegenRequest } from './dev-codegen.js';
import type * as DevDiagnosis from './dev-diagnosis.js';
import { acquireDevLock } from './dev-lock.js';
import { DEV_BUILD_DIR, devEntry, devServerEnv } from './dev-start.mjs';
import { createDevServer } from './dev-server.js';
import { missingResolverHint } from './missing-resolvers.js';

const startedAt = performance.now();
const entry = devEntry();
/** Ctrl-C signals the whole process group: children get a moment to stop on their own first. */
const ownStopMs = 1_000;
/** How long a child may take to exit after SIGTERM before it is killed. */
const stopGraceMs = 5_000;
/** A save touches a few files within milliseconds (write, rename): one server restart per burst. */
const codeSettleMs = 40;
/** The directories whose code the server runs (a change there restarts it). */
// A package's sources, not the package: the type checker writes its declarations under packages/*/dist.
const PACKAGE_SOURCES = readdirSync('packages', { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join('packages', entry.name, 'src'));
const CODE_DIRS = ['src', ...PACKAGE_SOURCES, 'examples', dirname(entry)]
  .map((dir) => relative('.', dir) || '.')
  .filter((dir, index, dirs) => existsSync(dir) && !dirs.some((other, at) => at < index && (dir === other || dir.startsWith(`${other}/`))));
const CODE_FILE = /\.(?:[cm]?[jt]s|json)$/;
/** The checker's niceness: the server and codegen come first on a busy machine. */
const TYPES_NICENESS = 10;
/** tsgo's type checkers working in parallel (see startTypes). */
const NATIVE_CHECKERS = 2;
/** How tsc and tsgo in watch mode end a full check: `… - Found 0 errors. Watching for file changes.` */
const CHECK_DONE = / - Found \d+ errors?\./;

function log(label: string, line: string): void {
  process.stdout.write(`[${label}] ${line}\n`);
}

const lock = acquireDevLock(join('.dev-loop', 'dev.lock'));
if (!lock.acquired) {
  const { pid, since } = lock.owner;
  process.stderr.write(
    `[dev] refused: npm run dev is already running in this directory (pid ${pid}, since ${since}).\n` +
      '[dev] Two would regenerate generated/ at the same time and fight over the port. Stop the other one first\n' +
      `[dev] (Ctrl-C in its terminal, or kill ${pid}); a lock left by a process that is gone is taken over by itself.\n`,
  );
  process.exit(1);
}
const releaseLock = lock.release;

/** pino's JSON lines, as pino-pretty prints them, when a person is watching this terminal. */
const pretty = process.stdout.isTTY
  ? (await import('pino-pretty')).prettyFactory({ colorize: !process.env.NO_COLOR, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
  : undefined;
function printServerLine(line: string): void {
  if (pretty !== undefined && line.startsWith('{')) {
    try {
      process.stdout.write(`[server] ${pretty(JSON.parse(line) as object).trimEnd()}\n`);
      return;
    } catch {
      // Not a log line: printed as it is.
    }
  }
  log('server', line);
}

const children: ChildProcess[] = [];
const watchers: FSWatcher[] = [];
let stopping = false;

/** Starts a child with its output prefixed by `label` (blank lines dropped); `ipc` opens a message channel to it. */
function startChild(label: string, command: string, args: string[], options: { ipc?: boolean; onLine?: (line: string) => void } = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])] });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => line.trim() !== '' && (options.onLine ?? ((text: string) => log(label, text)))(line));
  }
  children.push(child);
  child.once('exit', () => children.splice(children.indexOf(child), 1));
  return child;
}

/** What says where a failure is and classifies the schema: loaded on the first report (the start does not wait for it). */
const diagnosis = (): Promise<typeof DevDiagnosis> => import('./dev-diagnosis.js');

const UP_TO_DATE = 'generated/ is up to date (its fingerprint matches its inputs)';

/** Reports of the codegen child, one at a time (a report may print several lines after awaiting). */
let reports: Promise<void> = Promise.resolve();
function onCodegenMessage(message: CodegenMessage): void {
  reports = reports.then(async () => {
    if (message.kind === 'up-to-date') log('codegen', UP_TO_DATE);
    else if (message.kind === 'failed') for (const line of await (await diagnosis()).failureLines(message.message)) log('codegen', line);
    else if (message.kind === 'regenerated') {
      log('codegen', message.written.length === 0 ? `regenerated in ${message.ms} ms, no file changed` : `regenerated in ${message.ms} ms: ${message.written.join(', ')}`);
      // The server imports the trusted documents' manifest (JSON): a new one needs a new server.
      const imported = message.written.filter((file) => file.endsWith('.json'));
      if (imported.length > 0) server.restart(`${imported.join(', ')} regenerated`);
      else server.reloadSchema();
      for (const line of await (await diagnosis()).classification()) log('schema', line);
    }
  });
}

/**
 * The start, in turns: on a machine of two cores each of these slows the one before it down. First
 * the server (the first answer); once its start is over (it listens, or it failed), the checker's
 * first full check (the first type errors); once that is done (or the checker ended), the codegen
 * process when generated/ was current (see checkGenerated), and what only makes later steps faster:
 * the standby server process's loading of the dependencies (the next code edit's restart) and
 * codegen's warm-up (the first SDL save's regeneration).
 */
let startPhase: 'server' | 'types' | 'warm' = 'server';
function afterFirstServerStart(): void {
  if (startPhase !== 'server' || stopping) return;
  startPhase = 'types';
  startTypes();
}

/**
 * codegen's start-up check, made here: when generated/ is what its inputs give (its fingerprint), the
 * codegen process, which only watches from then on, starts with the warm-up, once the first check is
 * done: on two cores one more process loading beside the server delays its first answer by about
 * half a second, and beside the checker its first check. It looks again when it starts, so a save
 * made before is regenerated then. When generated/ is not current, codegen starts at once, to generate.
 */
let generatedWasCurrent = false;
async function checkGenerated(): Promise<void> {
  try {
    const { generatedIsCurrent } = await import('./codegen-fingerprint.js');
    generatedWasCurrent = await generatedIsCurrent(process.cwd());
  } catch {
    // The codegen process checks again, and says what is wrong.
    generatedWasCurrent = false;
  }
  if (stopping) return;
  if (!generatedWasCurrent) return startCodegen();
  log('codegen', UP_TO_DATE);
  if (startPhase === 'warm') startCodegen(true);
}
function afterFirstTypecheck(): void {
  if (startPhase !== 'types' || stopping) return;
  startPhase = 'warm';
  server.preloadStandbys();
  if (generatedWasCurrent && codegen === undefined) startCodegen(true);
  else if (codegen?.connected) codegen.send({ kind: 'warm-up' } satisfies CodegenRequest);
}

/** Restarted when it ends unexpectedly; given up after three such ends within a minute. */
let codegenEnds: number[] = [];
let codegen: ChildProcess | undefined;
/** `saidCurrent`: this loop has said generated/ is up to date, and the process need not say it again. */
function startCodegen(saidCurrent = false): void {
  const child = startChild('codegen', process.execPath, ['--import', 'tsx', join('scripts', 'dev-codegen.ts'), ...(saidCurrent ? ['--said-current'] : [])], { ipc: true });
  codegen = child;
  if (startPhase === 'warm') child.send({ kind: 'warm-up' } satisfies CodegenRequest);
  child.on('message', onCodegenMessage);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    codegenEnds = [...codegenEnds.filter((at) => at > Date.now() - 60_000), Date.now()];
    if (codegenEnds.length >= 3) return log('codegen', `exited (${signal ?? `code ${code}`}) three times within a minute: not restarted; the server keeps serving (Ctrl-C, then npm run dev again)`);
    log('codegen', `exited (${signal ?? `code ${code}`}); restarting it (the server keeps serving)`);
    startCodegen();
  });
}

/** The native compiler's executable (the platform package @typescript/native-preview installs), if any. */
function nativeCompiler(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`@typescript/native-preview-${process.platform}-${process.arch}/package.json`);
    const exe = join(dirname(manifest), 'lib', process.platform === 'win32' ? 'tsgo.exe' : 'tsgo');
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

function startTypes(): void {
  const watchArgs = ['--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false', '-p', 'tsconfig.dev.json'];
  const native = nativeCompiler();
  // Two checkers, not tsgo's four: on two cores four do more work in all (each resolves the libraries'
  // types again) for a first check no sooner, and the work they add is taken from the server.
  const [command, args] = native !== undefined ? [native, [...watchArgs, '--checkers', String(NATIVE_CHECKERS)]] : [process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), ...watchArgs]];
  const child = startChild('types', command, args, {
    onLine: (line) => {
      log('types', line);
      const hint = missingResolverHint(line);
      if (hint !== undefined) log('types', `  ↳ ${hint}`);
      if (CHECK_DONE.test(line)) afterFirstTypecheck();
    },
  });
  child.once('exit', afterFirstTypecheck);
  if (child.pid !== undefined) setPriority(child.pid, TYPES_NICENESS);
}

const server = createDevServer({
  entry,
  env: devServerEnv(),
  print: printServerLine,
  onStartFailed: afterFirstServerStart,
  onReport: (report: DevServerReport, startedInMs?: number) => {
    if (report.kind === 'listening') {
      onListening(report.urls, startedInMs ?? 0);
      afterFirstServerStart();
    } else if (report.outcome === 'kept') log('server', `schema not swapped, the previous one is still served: ${report.error}`);
    else if (report.outcome === 'swapped') log('server', `new schema served in ${report.ms} ms (process, snapshots, subscriptions and sandbox kept)`);
  },
});

let shownUrls: string | undefined;
function onListening(urls: ReadonlyArray<{ name: string; url: string }>, startedInMs: number): void {
  const listed = urls.map(({ name, url }) => `${name} ${url}`).join(', ');
  if (shownUrls !== undefined) {
    log('server', `restarted in ${startedInMs} ms${listed === shownUrls ? '' : ` (now at ${listed})`}`);
    shownUrls = listed;
    return;
  }
  shownUrls = listed;
  const width = Math.max(...urls.map(({ name }) => name.length));
  log('dev', `ready in ${Math.round(performance.now() - startedAt)} ms (Ctrl-C stops)`);
  for (const { name, url } of urls) log('dev', `  ${name.padEnd(width)}  ${url}`);
  log('dev', `  watching SDL, operations and contracts (codegen.ts), the server's code (${CODE_DIRS.join('/, ')}/), types (${nativeCompiler() !== undefined ? 'tsgo' : 'tsc'})`);
}

/** A change to the server's code: one restart per burst of saves, naming the files. */
function watchCode(): void {
  const changed = new Set<string>();
  let settle: NodeJS.Timeout | undefined;
  for (const dir of CODE_DIRS) {
    watchers.push(
      watch(dir, { recursive: true }, (_event, name) => {
        if (name === null || !CODE_FILE.test(name) || name.includes('node_modules') || name.startsWith(DEV_BUILD_DIR)) return;
        changed.add(relative('.', resolve(dir, name)));
        clearTimeout(settle);
        settle = setTimeout(() => {
          const files = [...changed];
          changed.clear();
          server.restart(`${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''} changed`);
        }, codeSettleMs);
      }),
    );
  }
}

/** Waits for the child to exit on its own, then SIGTERM, then SIGKILL. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const terminate = setTimeout(() => child.kill('SIGTERM'), ownStopMs);
    const kill = setTimeout(() => child.kill('SIGKILL'), ownStopMs + stopGraceMs);
    child.once('exit', () => {
      clearTimeout(terminate);
      clearTimeout(kill);
      resolve();
    });
  });
}

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('dev', `${signal}: stopping codegen, typecheck and server`);
  for (const watcher of watchers) watcher.close();
  await Promise.all([...children.map(stopChild), server.stop(stopGraceMs)]);
  releaseLock();
  log('dev', 'stopped');
  process.exit(0);
}

// `on`, not `once`: a second signal (npm relays one more) must not kill us mid-stop.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
process.once('exit', releaseLock);
watchCode();
void checkGenerated();
