/**
 * `npm run dev [-- <entry>]`: the schema-first loop in one terminal, each line prefixed by the part
 * that wrote it. Three standard tools do the work, and this file only joins them:
 * - [codegen] graphql-codegen's programmatic API on codegen.ts: every output once at start, then the
 *   outputs whose inputs a save touched (SDL, operations, `openapi/*.yaml`, or the output deleted). A
 *   failed run says where (`file:line:column`), and the server keeps what it serves.
 * - [server] the server (`src/main.ts`, or `<entry>`, with NODE_ENV=development unless NODE_ENV is
 *   set) in plain Node, from esbuild's bundle of it in `.dev-build/` (the dependencies stay in
 *   node_modules). A regenerated SDL is swapped into the running server (src/lib/dev-loop.ts): the
 *   same process, its snapshots, open subscriptions and sandbox kept. A save of anything the bundle
 *   reads (code, the trusted documents' manifest) rebuilds it, and only a bundle that changed
 *   restarts the server; code that does not build leaves the running server answering.
 * - [schema] after each regeneration, the schema classified against the last release (schema:check).
 * - [types] TypeScript 7's compiler in watch mode on the whole tree (tsconfig.dev.json): a resolver
 *   missing for a new field is named as `Type.field` with the file to add it to. `npm run typecheck`
 *   (tsc -b) stays the authority, as in CI.
 * Codegen's first run waits for the server's first answer (or failed start): it loads the CLI and its
 * plugins in this process, whose event loop also starts the server.
 * One @parcel/watcher subscription (the watcher the codegen CLI uses) sees every save.
 * Ctrl-C (SIGINT) or SIGTERM stops everything and exits 0.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import * as watcher from '@parcel/watcher';
import * as esbuild from 'esbuild';
import { glob } from 'tinyglobby';
import codegenConfig from '../codegen.js';
import type { DevServerReport } from '../src/lib/dev-loop.js';
import { acquireDevLock } from './dev-lock.js';
import { missingResolverHint } from './missing-resolvers.js';

const startedAt = performance.now();
const root = process.cwd();
const entry = relative(root, resolve(process.argv[2] ?? 'src/main.ts'));
const BUILD_DIR = '.dev-build';
/** Where the bundle of the entry is: the project's layout kept, so paths the code takes from import.meta.url hold. */
const bundle = join(BUILD_DIR, entry.replace(/\.[cm]?ts$/, '.js'));
/** How long the server may take to close after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;
/** Never watched: dependencies, builds, records. */
const IGNORED = ['.git', 'node_modules', BUILD_DIR, '.dev-loop', 'dist', '.test-dist', 'coverage', '.scratch', 'packages/*/dist', '**/*.tsbuildinfo', '.eslintcache'];

const log = (label: string, line: string): void => void process.stdout.write(`[${label}] ${line}\n`);
const elapsed = (since: number): number => Math.round(performance.now() - since);

if (entry.startsWith('..')) {
  process.stderr.write(`[dev] ${process.argv[2]} is outside the project: npm run dev serves an entry of the project\n`);
  process.exit(2);
}
// No tool keeps a second loop out of the tree: two would write generated/ at once and fight over the port.
const lock = acquireDevLock(join('.dev-loop', 'dev.lock'));
if (!lock.acquired) {
  const { pid, since } = lock.owner;
  process.stderr.write(`[dev] refused: npm run dev is already running in this directory (pid ${pid}, since ${since}); stop it first (Ctrl-C in its terminal, or kill ${pid})\n`);
  process.exit(1);
}
const releaseLock = lock.release;
process.once('exit', releaseLock);

/** The server logs JSON lines unless its own output is a terminal (here it is a pipe): pino-pretty's, when a person watches this one. */
const pretty = process.stdout.isTTY
  ? (await import('pino-pretty')).prettyFactory({ colorize: !process.env.NO_COLOR, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
  : undefined;
function printServerLine(line: string): void {
  if (pretty === undefined || !line.startsWith('{')) return log('server', line);
  try {
    log('server', pretty(JSON.parse(line) as object).trimEnd());
  } catch {
    log('server', line);
  }
}

/** Prints a child's lines (blank ones dropped) through `print`. */
function printLines(child: ChildProcess, print: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream }).on('line', (line) => line.trim() !== '' && print(line));
}

// ---- [server]: esbuild's bundle, and the process that runs it (esbuild builds; starting, restarting and swapping are ours) ----

let server: ChildProcess | undefined;
/** The running server said, once listening, that it swaps a regenerated SDL in; any other is restarted. */
let reloadable = false;
let shownUrls: string | undefined;
let stopping = false;
/** Settled once the first start is over: the server answers, or it did not build or start. */
let firstStartOver = (): void => undefined;
const firstStart = new Promise<void>((resolve) => (firstStartOver = resolve));

function onServerReport(report: DevServerReport, since: number): void {
  if (report.kind === 'listening') {
    reloadable = report.reloadsSchema;
    const listed = report.urls.map(({ name, url }) => `${name} ${url}`).join(', ');
    if (shownUrls === undefined) {
      const width = Math.max(...report.urls.map(({ name }) => name.length));
      log('dev', `ready in ${elapsed(startedAt)} ms (Ctrl-C stops)`);
      for (const { name, url } of report.urls) log('dev', `  ${name.padEnd(width)}  ${url}`);
    } else log('server', `restarted in ${elapsed(since)} ms (pid ${server?.pid}${listed === shownUrls ? '' : `, now at ${listed}`})`);
    shownUrls = listed;
    firstStartOver();
  } else if (report.outcome === 'swapped') log('server', `new schema served in ${report.ms} ms (pid ${server?.pid} kept: snapshots, subscriptions and sandbox kept)`);
  else if (report.outcome === 'kept') log('server', `schema not swapped, the previous one is still served: ${report.error}`);
}

function startServer(): void {
  const since = performance.now();
  reloadable = false;
  const child = fork(bundle, [], { execArgv: ['--enable-source-maps'], env: { ...process.env, NODE_ENV: process.env.NODE_ENV || 'development' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  server = child;
  printLines(child, printServerLine);
  child.on('message', (report: DevServerReport) => onServerReport(report, since));
  child.once('exit', (code, signal) => {
    if (server === child && !stopping) log('server', `exited (${signal ?? `code ${code}`}); it starts again on the next change to its code`);
    firstStartOver();
  });
}

/** SIGTERM (the server closes as in production, snapshots saved), SIGKILL after the grace period. */
async function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(kill);
}

/** Restarts run one after another; asks made during one make one more. */
let restarting: Promise<void> = Promise.resolve();
let restartAsked = false;
function restartServer(reason: string): void {
  if (restartAsked || stopping) return;
  restartAsked = true;
  if (server !== undefined) log('server', `restarting: ${reason}`);
  restarting = restarting.then(async () => {
    restartAsked = false;
    await stopServer();
    if (!stopping) startServer();
  });
}

/** What the last good bundle read (absolute paths): a save of one of them rebuilds it. */
let bundleInputs = new Set<string>();
let bundleBuilt = false;
let bundleHash = '';
/** The saves since the last build, named when the server restarts. */
const changedCode = new Set<string>();

// esbuild watches by polling (a first save can take two seconds to be seen): the subscription below
// tells it at once instead. write: false, so that an unchanged bundle restarts nothing.
const bundler = await esbuild.context({
  entryPoints: [entry],
  outbase: '.',
  outdir: BUILD_DIR,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  write: false,
  logLevel: 'silent',
  plugins: [{ name: 'restart-server', setup: (build) => build.onEnd(onBundle) }],
});

/** One build at a time (its errors are printed by onBundle). */
let building: Promise<unknown> = Promise.resolve();
const rebuild = (): void => void (building = building.then(() => bundler.rebuild()).catch(() => undefined));

async function onBundle(result: esbuild.BuildResult): Promise<void> {
  const changed = [...changedCode];
  changedCode.clear();
  const reason = changed.length > 0 ? `${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ` and ${changed.length - 3} more` : ''} changed` : 'start';
  if (result.errors.length > 0) {
    bundleBuilt = false;
    firstStartOver();
    for (const text of await esbuild.formatMessages(result.errors, { kind: 'error', color: false })) for (const line of text.trimEnd().split('\n')) log('server', line);
    return log('server', server === undefined ? `${entry} does not build (above); it starts once it does` : 'not restarted: the code does not build (above); the running server keeps answering');
  }
  bundleBuilt = true;
  bundleInputs = new Set(Object.keys(result.metafile?.inputs ?? {}).map((path) => resolve(path)));
  const files = result.outputFiles ?? [];
  const hash = files.map((file) => file.hash).join();
  // The same bundle restarts nothing, unless its server is not running (it exited: the next save starts it).
  if (hash === bundleHash && server !== undefined && server.exitCode === null && server.signalCode === null) return;
  bundleHash = hash;
  await Promise.all(files.map(async (file) => mkdir(dirname(file.path), { recursive: true }).then(() => writeFile(file.path, file.contents))));
  restartServer(reason);
}

// ---- [codegen]: graphql-codegen's programmatic API (the CLI's watch says nothing of a failed run, and regenerates every output) ----

/** `fromSdl`: generated from the SDL and operations, so its regeneration is swapped into the server. */
type Output = { path: string; patterns: string[]; inputs: Set<string>; fromSdl: boolean };
/**
 * Each output with its input patterns. An output whose preset reads other files (the OpenAPI
 * contracts, the upstreams' contracts, the migrations) names them in `watchPattern`: its
 * regeneration swaps nothing, and restarts the server only if the bundle imports what changed.
 */
const outputs: Output[] = Object.entries(codegenConfig.generates).map(([path, output]) => {
  const { schema, documents, watchPattern } = output as { schema?: unknown; documents?: unknown; watchPattern?: unknown };
  const patterns = [watchPattern ?? [schema, documents]].flat(2).filter((pattern): pattern is string => typeof pattern === 'string');
  return { path, patterns, inputs: new Set<string>(), fromSdl: watchPattern === undefined };
});
/**
 * Whether a save touched an output: one of its input files, as they are now or were before (a deleted
 * input is one), or the output itself deleted. The watcher names files; codegen.ts has patterns.
 */
async function touched(output: Output, saved: readonly string[], removed: readonly string[]): Promise<boolean> {
  const before = output.inputs;
  output.inputs = new Set(await glob(output.patterns, { cwd: root, absolute: true }));
  const target = resolve(output.path);
  // A deleted directory may be reported alone, without the files it held.
  return saved.some((path) => before.has(path) || output.inputs.has(path)) || removed.some((path) => path.startsWith(target) || target.startsWith(`${path}${sep}`));
}

const pendingOutputs = new Set<string>();
let generating: Promise<void> | undefined;
let firstRun = true;
let codegenStarted = false;

/** Runs codegen for the pending outputs (one run at a time; saves made during a run make the next). */
function regenerate(): void {
  if (!codegenStarted || generating !== undefined || pendingOutputs.size === 0 || stopping) return;
  const paths = new Set(pendingOutputs);
  pendingOutputs.clear();
  generating = runCodegen(paths).finally(() => {
    generating = undefined;
    firstRun = false;
    regenerate();
  });
}

async function runCodegen(paths: ReadonlySet<string>): Promise<void> {
  const { CodegenContext, generate } = await import('@graphql-codegen/cli');
  const since = performance.now();
  const written: string[] = [];
  const generates = Object.fromEntries(Object.entries(codegenConfig.generates).filter(([path]) => paths.has(path)));
  try {
    // No onError hook: the failure is printed below, prefixed.
    const hooks = { afterOneFileWrite: (file: string) => void written.push(relative(root, file)) };
    await generate(new CodegenContext({ config: { ...codegenConfig, generates, hooks }, filepath: resolve('codegen.ts') }), true);
  } catch (error) {
    const { codegenFailureLines } = await import('./codegen-failure.js');
    log('codegen', 'cannot regenerate; the server keeps the last good schema:');
    for (const line of await codegenFailureLines(codegenConfig, error instanceof Error ? error.message : String(error))) log('codegen', `  ${line}`);
    return;
  }
  if (firstRun && written.length === 0) log('codegen', `generated/ is current (checked in ${elapsed(since)} ms)`);
  else log('codegen', `regenerated in ${elapsed(since)} ms: ${written.length === 0 ? 'no file changed' : written.sort().join(', ')}`);
  if (firstRun || !outputs.some((output) => output.fromSdl && paths.has(output.path))) return;
  if (reloadable) server?.send({ kind: 'reload-schema' }, (error) => error && undefined);
  else restartServer('SDL regenerated, and the server does not swap schemas');
  if (written.length === 0) return;
  const [{ checkSchema, releasedBaseline }, { formatSchemaReport }] = await Promise.all([import('./schema-changes.js'), import('./schema-report.js')]);
  const report = await checkSchema(await releasedBaseline()).then(formatSchemaReport, (error: unknown) => [`not classified: ${error instanceof Error ? error.message : String(error)}`]);
  for (const line of report) log('schema', line);
}

// ---- [types]: TypeScript 7's compiler in watch mode ----

/** TypeScript 7's compiler itself: its launcher (bin/tsc) waits for it synchronously on Node 20, so a signal to the launcher would not reach it. */
function nativeCompiler(): string {
  const typescript7 = createRequire(createRequire(import.meta.url).resolve('typescript-7/package.json'));
  const platformPackage = typescript7.resolve(`@typescript/typescript-${process.platform}-${process.arch}/package.json`);
  return join(dirname(platformPackage), 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
}

let types: ChildProcess | undefined;
let typesExited = Promise.resolve();
function startTypes(): void {
  const child = spawn(nativeCompiler(), ['--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false', '-p', 'tsconfig.dev.json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  types = child;
  printLines(child, (line) => {
    log('types', line);
    const hint = missingResolverHint(line);
    if (hint !== undefined) log('types', `  ↳ ${hint}`);
  });
  typesExited = new Promise((done) =>
    child.once('exit', (code, signal) => {
      if (!stopping) log('types', `the checker exited (${signal ?? `code ${code}`}); npm run dev again to restart it`);
      done();
    }),
  );
}

// ---- the watcher, the start, the stop ----

const subscription = await watcher.subscribe(
  root,
  (error, events) => {
    if (error) return log('dev', `watcher: ${error.message}`);
    const paths = events.map((event) => event.path);
    const removed = events.filter((event) => event.type === 'delete').map((event) => event.path);
    void Promise.all(outputs.map(async (output) => (await touched(output, paths, removed)) && pendingOutputs.add(output.path))).then(regenerate);
    const code = paths.filter((path) => bundleInputs.has(path) || (!bundleBuilt && /\.[cm]?[jt]s$|\.json$/.test(path)));
    if (code.length === 0) return;
    for (const path of code) changedCode.add(relative(root, path));
    rebuild();
  },
  { ignore: IGNORED },
);

// `on`, not `once`: a second signal (npm relays one more) must not kill the loop mid-stop.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
startTypes();
rebuild();
await Promise.all(outputs.map((output) => touched(output, [], [])));
await firstStart;
codegenStarted = true;
for (const output of outputs) pendingOutputs.add(output.path);
regenerate();

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('dev', `${signal}: stopping codegen, typecheck and server`);
  // It writes nothing (--noEmit), and would finish the check under way before a SIGTERM.
  types?.kill('SIGKILL');
  // @parcel/watcher fails to remove the watch of a directory moved away (EINVAL): stop all the same.
  const unsubscribed = subscription.unsubscribe().catch((error: Error) => log('dev', `watcher: ${error.message}`));
  await Promise.all([unsubscribed, building.then(() => bundler.dispose()), generating, restarting.then(stopServer), typesExited]);
  releaseLock();
  log('dev', 'stopped');
  process.exit(0);
}
