/**
 * `npm run dev [-- <entry>]`: the schema-first loop in one terminal.
 * - graphql-codegen in watch mode (every GraphQL project of codegen.ts: an SDL or operation save
 *   rewrites the generated types),
 * - openapi-typescript again whenever an `openapi/*.yaml` changes,
 * - the server (`src/main.ts`, or `<entry>`) under `tsx watch`, restarted when any file it imports
 *   changes or any SDL / OpenAPI contract it reads at run time, in development mode (NODE_ENV=development
 *   unless NODE_ENV is set): original errors with stacks, field suggestions, GraphiQL at /graphql.
 * Ctrl-C (SIGINT) or SIGTERM stops every child and exits 0 once they are all gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { generateOpenApiTypes } from './codegen-openapi.js';

const bin = (name: string): string => join('node_modules', '.bin', name);
const entry = process.argv[2] ?? 'src/main.ts';
const contractsDir = 'openapi';
const outDir = 'generated';
/** Editors save in bursts (write, rename, chmod): one regeneration per burst. */
const debounceMs = 50;
/** Ctrl-C signals the whole process group: children get a moment to stop on their own first. */
const ownStopMs = 1_000;
/** How long a child may take to exit after SIGTERM before it is killed. */
const stopGraceMs = 5_000;

function log(label: string, line: string): void {
  process.stdout.write(`[${label}] ${line}\n`);
}

const children: ChildProcess[] = [];

// Production is the default everywhere else; the dev loop is where development mode is chosen.
process.env.NODE_ENV ??= 'development';

/** Starts a child with its output prefixed by `label`. */
function startChild(label: string, command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => log(label, line));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) log(label, `exited (${signal ?? `code ${code}`}); press Ctrl-C to stop the rest`);
  });
  children.push(child);
  return child;
}

async function regenerateOpenApi(reason: string): Promise<void> {
  const started = performance.now();
  try {
    const written = await generateOpenApiTypes(outDir, contractsDir);
    log('openapi', `${reason}: wrote ${written.length} file(s) in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    // A half-saved or invalid contract must not end the loop: report it and wait for the next save.
    log('openapi', `${reason}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Regenerates on every change of an `openapi/*.yaml`, one run at a time. */
function watchOpenApi(): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  return watch(contractsDir, (_event, file) => {
    if (!file?.endsWith('.yaml')) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => regenerateOpenApi(`${file} changed`));
    }, debounceMs);
  });
}

let stopping = false;

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

async function stop(signal: NodeJS.Signals, watcher: FSWatcher): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('dev', `${signal}: stopping codegen watch and server`);
  watcher.close();
  await Promise.all(children.map(stopChild));
  log('dev', 'stopped');
  process.exit(0);
}

await regenerateOpenApi('start');
const openApiWatcher = watchOpenApi();
startChild('codegen', bin('graphql-codegen'), ['--config', 'codegen.ts', '--watch']);
// tsx watch follows imports; SDL and contracts are read at run time, so they are watched explicitly.
const readAtRunTime = ['schema/**/*.graphql', 'examples/*/schema/**/*.graphql', 'openapi/*.yaml'];
startChild('server', bin('tsx'), ['watch', '--clear-screen=false', ...readAtRunTime.flatMap((glob) => ['--include', glob]), entry]);
// `on`, not `once`: a second signal (tsx relays one more when we are slow to acknowledge) must not kill us mid-stop.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal, openApiWatcher));
