/**
 * `npm run dev [-- <entry>]`: the schema-first loop in one terminal, every failure shown where the
 * user is looking.
 * - [codegen] graphql-codegen's watch mode on codegen.ts (SDL, operations and `openapi/*.yaml`), run
 *   through the CLI's `generate` in a child process (scripts/dev-codegen.ts says why). Every save is
 *   diagnosed here: an SDL, operation or contract YAML error is printed as `file:line:column message`
 *   (the CLI's watch mode prints nothing).
 * - [schema] every save is classified against the last release, as `npm run schema:check` does.
 * - [types] `tsc -b --watch` on the whole project (the packages, then the service): every
 *   regeneration is typechecked, and an error such as a resolver missing for a new field is printed.
 * - [server] the server (`src/main.ts`, or `<entry>`) under `tsx watch`, with NODE_ENV=development
 *   unless NODE_ENV is set (original errors with stacks, field suggestions, GraphiQL at /graphql):
 *   restarted when its code changes and after every successful regeneration; a failed one leaves it
 *   serving the last good schema.
 * Ctrl-C (SIGINT) or SIGTERM stops every child and exits 0 once they are all gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { glob } from 'tinyglobby';
import { parseDocument } from 'yaml';
import config from '../codegen.js';
import { projectsOf } from './codegen-failure.js';
import type { CodegenMessage } from './dev-codegen.js';
import { diagnoseProjects, formatDiagnostic } from './graphql-diagnostics.js';
import { checkSchema, releasedBaseline } from './schema-changes.js';
import { formatSchemaReport } from './schema-report.js';

const bin = (name: string): string => join('node_modules', '.bin', name);
const entry = process.argv[2] ?? 'src/main.ts';
/** Editors save in bursts (write, rename, chmod): one diagnosis per burst. */
const debounceMs = 100;
/** Ctrl-C signals the whole process group: children get a moment to stop on their own first. */
const ownStopMs = 1_000;
/** How long a child may take to exit after SIGTERM before it is killed. */
const stopGraceMs = 5_000;

function log(label: string, line: string): void {
  process.stdout.write(`[${label}] ${line}\n`);
}

const children: ChildProcess[] = [];
let stopping = false;

/** Starts a child with its output prefixed by `label` (blank lines dropped); `ipc` opens a message channel to it. */
function startChild(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env, ipc = false): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])], env });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => line.trim() !== '' && log(label, line));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) log(label, `exited (${signal ?? `code ${code}`}); press Ctrl-C to stop the rest`);
  });
  children.push(child);
  return child;
}

/** YAML errors of the OpenAPI contracts, as `file:line:column message` (openapi-typescript's would not say where). */
async function contractProblems(): Promise<string[]> {
  const problems: string[] = [];
  for (const file of (await glob(['openapi/*.yaml'])).sort()) {
    for (const error of parseDocument(await readFile(file, 'utf8')).errors) {
      const [start] = error.linePos ?? [];
      problems.push(`${file}:${start?.line ?? 1}:${start?.col ?? 1} ${error.message.split('\n')[0] ?? ''}`);
    }
  }
  return problems;
}

/** Codegen errors with file and line; when there are none, the schema classification. */
async function diagnose(): Promise<void> {
  const problems = [...(await diagnoseProjects(projectsOf(config))).map(formatDiagnostic), ...(await contractProblems())];
  if (problems.length > 0) {
    log('codegen', `cannot regenerate; the server keeps the last good schema:`);
    for (const problem of problems) log('codegen', `  ${problem}`);
    return;
  }
  try {
    for (const line of formatSchemaReport(await checkSchema(await releasedBaseline()))) log('schema', line);
  } catch (error) {
    log('schema', `not classified: ${error instanceof Error ? error.message : String(error)}`);
  }
}

let diagnosis: Promise<void> = Promise.resolve();
let diagnoseTimer: NodeJS.Timeout | undefined;
/** One diagnosis per burst of saves, one at a time. */
function scheduleDiagnosis(): void {
  clearTimeout(diagnoseTimer);
  diagnoseTimer = setTimeout(() => {
    diagnosis = diagnosis.then(diagnose);
  }, debounceMs);
}

/** tsx watch restarts the server when this file changes: touched after each successful regeneration. */
const restartDir = await mkdtemp(join(tmpdir(), 'channel-graph-dev-'));
const restartStamp = join(restartDir, 'regenerated');
await writeFile(restartStamp, '');
let regenerations = 0;

async function onRegenerated(files: number): Promise<void> {
  regenerations += 1;
  log('codegen', `regenerated ${files} file(s)`);
  // The first run happens while the server starts; later ones restart it on the new schema.
  if (regenerations > 1) await writeFile(restartStamp, String(regenerations));
}

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('dev', `${signal}: stopping codegen watch, typecheck and server`);
  await Promise.all(children.map(stopChild));
  await rm(restartDir, { recursive: true, force: true });
  log('dev', 'stopped');
  process.exit(0);
}

const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** Waits for the child to exit on its own, then SIGTERM, then SIGKILL. */
function stopChild(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
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

log('codegen', 'watching schema/, examples/*/schema/, packages/client/operations/ and openapi/ (codegen.ts)');
const codegen = startChild('codegen', process.execPath, ['--import', 'tsx', join('scripts', 'dev-codegen.ts')], process.env, true);
codegen.on('message', (message: CodegenMessage) => {
  if (message.kind === 'triggered') scheduleDiagnosis();
  else void onRegenerated(message.files);
});
scheduleDiagnosis();

startChild(
  'types',
  process.execPath,
  // Build mode over the project references: the packages first (their .d.ts, incrementally), then the rest.
  [bin('tsc'), '-b', '--watch', '--preserveWatchOutput', '--pretty', 'false'],
);
// SDL and contracts are read at run time, but the server restarts on them only through the stamp:
// after codegen accepted them, never on a save that does not build.
startChild('server', bin('tsx'), ['watch', '--clear-screen=false', '--include', restartStamp, entry], { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
// `on`, not `once`: a second signal (tsx relays one more when we are slow to acknowledge) must not kill us mid-stop.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
