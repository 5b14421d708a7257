/**
 * The [codegen] part of `npm run dev`, in a process of its own (dev.ts restarts it if it dies, and
 * kills it if it hangs, without touching the server): graphql-codegen's programmatic `generate` on
 * codegen.ts, run again for the outputs a save touches.
 * - At start, when generated/ is what the last run here wrote from the same inputs (the same SDL,
 *   operations, contracts, codegen.ts and package-lock.json: `.dev-loop/codegen-fingerprint.json`),
 *   nothing is generated; otherwise every output is. The CLI and its plugins are loaded either way
 *   (after the check), so that the first save finds them warm.
 * - Saves (fs.watch on the directories of codegen.ts's patterns) that come within `SETTLE_MS` of each
 *   other, or while a run is under way, make one run, of the outputs whose inputs changed.
 * - An output deleted (generated/ itself included) is generated again.
 * - A run that fails is reported to dev.ts, which says where (scripts/graphql-diagnostics.ts); the
 *   files of the last good run stay, and the next save runs again.
 *
 * Tells dev.ts over IPC: `up-to-date` (at start, nothing to generate), then after every run
 * `regenerated` (the files written: the CLI skips an output whose content did not change) or `failed`.
 */
import { createHash } from 'node:crypto';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type * as CodegenCli from '@graphql-codegen/cli';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { glob } from 'tinyglobby';
import config from '../codegen.js';

export type CodegenMessage =
  | { kind: 'up-to-date' }
  | { kind: 'regenerated'; written: string[]; ms: number }
  | { kind: 'failed'; message: string };

/** Editors save in bursts (write, rename, chmod), and so do branch switches: one run per burst. */
const SETTLE_MS = 40;
/** Where this loop keeps what it knows between runs (gitignored). */
const STATE_DIR = '.dev-loop';
const FINGERPRINT_FILE = join(STATE_DIR, 'codegen-fingerprint.json');
/** Besides the inputs of the outputs: what decides how they are generated. */
const GENERATOR_FILES = ['codegen.ts', 'scripts/codegen-openapi.ts', 'package-lock.json'];

type Output = Exclude<CodegenConfig['generates'][string], unknown[]>;

const tell = (message: CodegenMessage): void => {
  if (process.connected) process.send?.(message, undefined, {}, () => undefined);
};

const asList = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');

/**
 * The input patterns of an output. codegen.ts gives an output whose preset reads other files (the
 * OpenAPI contracts) a schema only because the CLI requires one: its `watchPattern` is its input.
 */
function inputsOf(output: Output): string[] {
  const { watchPattern } = output as { watchPattern?: string | string[] };
  if (watchPattern !== undefined) return asList(watchPattern);
  return [...asList((output as { schema?: unknown }).schema), ...asList((output as { documents?: unknown }).documents)];
}

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

const outputs = Object.entries(config.generates).map(([path, output]) => ({ path, output: output as Output, inputs: inputsOf(output as Output).map(patternToRegExp) }));
const allInputPatterns = [...new Set(Object.values(config.generates).flatMap((output) => inputsOf(output as Output)))];

const sha256 = (parts: readonly string[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('base64url');
};

async function hashFiles(files: readonly string[]): Promise<string> {
  const contents = await Promise.all(files.map(async (file) => [file, await readFile(file, 'utf8').catch(() => '')]));
  return sha256(contents.flat());
}

async function fingerprint(): Promise<{ inputs: string; outputs: string }> {
  const inputs = [...(await glob(allInputPatterns, { expandDirectories: false })), ...GENERATOR_FILES].sort();
  const generated = (await glob(['generated/**'], { expandDirectories: false })).sort();
  return { inputs: await hashFiles(inputs), outputs: await hashFiles(generated) };
}

async function savedFingerprint(): Promise<{ inputs: string; outputs: string } | undefined> {
  try {
    return JSON.parse(await readFile(FINGERPRINT_FILE, 'utf8')) as { inputs: string; outputs: string };
  } catch {
    return undefined;
  }
}

async function saveFingerprint(): Promise<void> {
  await mkdir(STATE_DIR, { recursive: true });
  await writeFile(FINGERPRINT_FILE, JSON.stringify(await fingerprint()));
}

/** Loaded once the start-up check is done (it needs none of it), and warmed up then. */
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
  tell({ kind: 'regenerated', written: written.sort(), ms: Math.round(performance.now() - started) });
  await saveFingerprint();
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
const [now, saved] = await Promise.all([fingerprint(), savedFingerprint()]);
if (saved !== undefined && saved.inputs === now.inputs && saved.outputs === now.outputs && outputs.every(({ path }) => existsSync(path))) {
  tell({ kind: 'up-to-date' });
  await warmUp();
} else {
  schedule(outputs.map(({ path }) => path));
}
