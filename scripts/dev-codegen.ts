/**
 * The [codegen] part of `npm run dev`, in a process of its own (dev.ts restarts it if it dies, and
 * kills it if it hangs, without touching the server): graphql-codegen's programmatic `generate` on
 * codegen.ts, run again for the outputs a save touches.
 * - At start, when generated/ is what a codegen run made from the inputs as they are (its committed
 *   fingerprint: scripts/codegen-fingerprint.ts), nothing is generated; otherwise every output is.
 *   (dev.ts makes that check first, and starts this process once the first typecheck is done when
 *   it held: `--said-current`.)
 *   The CLI and its plugins are loaded and warmed up either way, so that the first save finds them
 *   warm: by a generation, or, when nothing was generated, once dev.ts says so (`warm-up`: after the
 *   server's first start and the checker's first check, which it would slow down on two cores).
 * - Saves (fs.watch on the directories of codegen.ts's patterns) that come within `SETTLE_MS` of each
 *   other, or while a run is under way, make one run, of the outputs whose inputs changed.
 * - An output deleted (generated/ itself included) is generated again.
 * - A run that fails is reported to dev.ts, which says where (scripts/graphql-diagnostics.ts); the
 *   files of the last good run stay, and the next save runs again.
 *
 * Tells dev.ts over IPC: `up-to-date` (at start, nothing to generate), then after every run
 * `regenerated` (the files written: the CLI skips an output whose content did not change) or `failed`.
 * Hears from dev.ts: `warm-up`.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type * as CodegenCli from '@graphql-codegen/cli';
import config from '../codegen.js';
import { allInputPatterns, generatedIsCurrent, inputsOf, saveFingerprint, type CodegenOutput } from './codegen-fingerprint.js';

export type CodegenMessage =
  | { kind: 'up-to-date' }
  | { kind: 'regenerated'; written: string[]; ms: number }
  | { kind: 'failed'; message: string };

/** What dev.ts tells this process: the start is over (server, then first check), so the CLI may be loaded now. */
export type CodegenRequest = { kind: 'warm-up' };

/** Editors save in bursts (write, rename, chmod), and so do branch switches: one run per burst. */
const SETTLE_MS = 40;

const tell = (message: CodegenMessage): void => {
  if (process.connected) process.send?.(message, undefined, {}, () => undefined);
};

/** codegen.ts's patterns use `*` and `**` only. */
function patternToRegExp(pattern: string): RegExp {
  const body = pattern
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/** The directory a pattern's files are in, and whether they may be below it. */
function baseOf(pattern: string): { dir: string; recursive: boolean } {
  const segments = pattern.split('/');
  const firstGlob = segments.findIndex((segment) => /[*?[{]/.test(segment));
  return { dir: segments.slice(0, firstGlob).join('/') || '.', recursive: segments.slice(firstGlob).some((segment) => segment === '**') };
}

const outputs = Object.entries(config.generates).map(([path, output]) => ({ path, inputs: inputsOf(output as CodegenOutput).map(patternToRegExp) }));

/** Loaded by the first generation or the warm-up, whichever comes first (the start-up check needs none of it). */
let cli: Promise<typeof CodegenCli> | undefined;
const loadCli = (): Promise<typeof CodegenCli> => (cli ??= import('@graphql-codegen/cli'));

/**
 * Loads the CLI and the plugins of every output (the CLI imports a plugin on its first use) by
 * generating everything in memory, writing nothing: the first save then runs as fast as any.
 */
async function warmUp(): Promise<void> {
  const { CodegenContext, generate } = await loadCli();
  await generate(new CodegenContext({ config: { ...config, hooks: {} }, filepath: resolve('codegen.ts') }), false).catch(() => undefined);
}

/** Runs `generate` for these outputs; the files it wrote, or the reason it failed. */
async function generateOutputs(paths: ReadonlySet<string>): Promise<void> {
  const { CodegenContext, generate } = await loadCli();
  const started = performance.now();
  const written: string[] = [];
  const generates = Object.fromEntries(Object.entries(config.generates).filter(([path]) => paths.has(path)));
  try {
    await generate(
      new CodegenContext({
        // No onError hook: dev.ts says where a failure is, once.
        config: { ...config, generates, hooks: { afterOneFileWrite: (file: string) => void written.push(relative(process.cwd(), file)) } },
        filepath: resolve('codegen.ts'),
      }),
      true,
    );
  } catch (error) {
    const { withoutStack } = await import('./codegen-failure.js');
    tell({ kind: 'failed', message: withoutStack(error instanceof Error ? error.message : String(error)) });
    return;
  }
  const ms = Math.round(performance.now() - started);
  // Before the report: once the loop says regenerated, nothing more is written to generated/.
  await saveFingerprint(process.cwd());
  tell({ kind: 'regenerated', written: written.sort(), ms });
}

/** Outputs to generate on the next run (the output paths of codegen.ts). */
const pending = new Set<string>();
let running: Promise<void> | undefined;
let settle: NodeJS.Timeout | undefined;

function runPending(): void {
  if (running !== undefined || pending.size === 0) return;
  const paths = new Set(pending);
  pending.clear();
  running = generateOutputs(paths).finally(() => {
    running = undefined;
    runPending();
  });
}

function schedule(paths: Iterable<string>): void {
  for (const path of paths) pending.add(path);
  clearTimeout(settle);
  settle = setTimeout(runPending, SETTLE_MS);
}

function onInputChange(file: string): void {
  const affected = outputs.filter(({ inputs }) => inputs.some((pattern) => pattern.test(file))).map(({ path }) => path);
  if (affected.length > 0) schedule(affected);
}

/** Outputs that no longer exist (deleted by hand, or with generated/). */
function onOutputChange(): void {
  const missing = outputs.filter(({ path }) => !existsSync(path)).map(({ path }) => path);
  if (missing.length > 0) schedule(missing);
}

const watchers: FSWatcher[] = [];
function watchInputs(): void {
  const bases = new Map<string, boolean>();
  for (const pattern of allInputPatterns) {
    const { dir, recursive } = baseOf(pattern);
    bases.set(dir, (bases.get(dir) ?? false) || recursive);
  }
  for (const [dir, recursive] of bases) {
    if (!existsSync(dir)) continue;
    watchers.push(watch(dir, { recursive }, (_event, name) => name !== null && onInputChange(join(dir, name).split('\\').join('/'))));
  }
}

/** generated/ and the directories holding it: a deleted output, or generated/ deleted whole. */
let outputWatcher: FSWatcher | undefined;
function watchOutputs(): void {
  watchers.push(
    watch('.', (_event, name) => {
      if (name !== 'generated') return;
      onOutputChange();
      // A new generated/ is another directory: the watcher of the old one sees nothing of it.
      watchGenerated();
    }),
  );
  watchGenerated();
}
function watchGenerated(): void {
  outputWatcher?.close();
  outputWatcher = existsSync('generated') ? watch('generated', { recursive: true }, () => onOutputChange()) : undefined;
  outputWatcher?.on('error', () => watchGenerated());
}

// The CLI unsubscribes nothing of ours: closing the watchers lets the process end.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearTimeout(settle);
    for (const watcher of [...watchers, outputWatcher]) watcher?.close();
    void (running ?? Promise.resolve()).finally(() => process.exit(0));
  });
}

watchInputs();
watchOutputs();
// The warm-up waits for the start-up check, and is not needed when a generation has loaded the CLI
// already or is about to.
let warmUpAsked = false;
let checked = false;
const warmUpIfIdle = (): void => {
  if (warmUpAsked && checked && cli === undefined && running === undefined && pending.size === 0) void warmUp();
};
process.on('message', (request: CodegenRequest) => {
  if (request.kind !== 'warm-up') return;
  warmUpAsked = true;
  warmUpIfIdle();
});
// `--said-current`: dev.ts checked at its start and said so; this check only looks again (an input
// saved since), and says nothing when the answer is the same.
if (await generatedIsCurrent(process.cwd())) {
  if (!process.argv.includes('--said-current')) tell({ kind: 'up-to-date' });
} else schedule(outputs.map(({ path }) => path));
checked = true;
warmUpIfIdle();
