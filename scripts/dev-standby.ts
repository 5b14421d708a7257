/**
 * A server process of `npm run dev`, started before it is needed (scripts/dev-server.ts). Told to
 * `preload`, it loads the runtime dependencies of package.json while it waits — most of a start's
 * time (graphql, yoga, pino, zod…), and nothing a developer edits. Told to `run` the entry, it first
 * imports what the entry imports (the project's code as it is now) and answers `imported`, or prints
 * where that failed (`file:line:column`) and exits 1: dev-server.ts stops the server being replaced
 * only after `imported`, so code that throws at import never takes the last good server down. Told
 * to `start`, it imports the entry itself, which starts listening (its imports are loaded by then).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeImportFailure } from './dev-import-failure.js';

export type StandbyRequest = { kind: 'preload' } | { kind: 'run'; entry: string } | { kind: 'start' };
export type StandbyReport = { kind: 'standing-by' } | { kind: 'imported' };

const tell = (report: StandbyReport): void => {
  if (process.connected) process.send?.(report, undefined, {}, () => undefined);
};

/** `import … from '…'` and `import '…'` of a module (type-only imports load nothing at run time). */
const STATIC_IMPORT = /^\s*import\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

async function staticImportsOf(entryPath: string): Promise<string[]> {
  const source = await readFile(entryPath, 'utf8');
  const base = pathToFileURL(entryPath);
  return [...source.matchAll(STATIC_IMPORT)].map(([, specifier = '']) => (specifier.startsWith('.') ? new URL(specifier, base).href : specifier));
}

/** Set once the entry is to run: the preload starts no further import. */
let runAsked = false;
let preloadAsked = false;

/**
 * One dependency at a time, and none once the entry is to run: a code change that comes while they
 * load waits for one of them, not for all, and the entry's own imports load what it needs of the rest.
 */
async function preloadDependencies(): Promise<void> {
  const manifest = JSON.parse(await readFile('package.json', 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (runAsked) return;
    // A package without a main entry (types only) fails to import: nothing to load then.
    await import(name).catch(() => undefined);
  }
}

async function run(entry: string): Promise<void> {
  const entryPath = resolve(entry);
  try {
    for (const specifier of await staticImportsOf(entryPath)) await import(specifier);
  } catch (error) {
    process.stderr.write(`${describeImportFailure(error)}\n`);
    process.exit(1);
  }
  process.on('message', function onStart(message: StandbyRequest) {
    if (message.kind !== 'start') return;
    process.off('message', onStart);
    started = true;
    import(pathToFileURL(entryPath).href).catch((error: unknown) => {
      process.stderr.write(`${describeImportFailure(error)}\n`);
      process.exit(1);
    });
  });
  tell({ kind: 'imported' });
}

let started = false;
process.on('message', function onRun(message: StandbyRequest) {
  if (message.kind === 'preload' && !runAsked && !preloadAsked) {
    preloadAsked = true;
    void preloadDependencies();
  }
  if (message.kind !== 'run') return;
  process.off('message', onRun);
  runAsked = true;
  void run(message.entry);
});
// dev.ts gone (killed, or it ended a standby it no longer needs): a standby ends, a server closes as on SIGTERM.
process.on('disconnect', () => {
  if (started) process.kill(process.pid, 'SIGTERM');
  else process.exit(0);
});
tell({ kind: 'standing-by' });
