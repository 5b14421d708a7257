// @ts-check
/**
 * A server process of `npm run dev`, started before it is needed (scripts/dev-server.ts). Told to
 * `preload` an entry (or started with `--preload <entry>`), it loads the dependencies that entry
 * loads while it waits — most of a start's time (graphql, yoga, pino, zod…), and nothing a developer
 * edits. Told to `run` the entry, it first imports what the entry imports (the project's code as it
 * is now) and answers `imported`, or `failed` with the error, and exits 1: dev-server.ts stops the
 * server being replaced only after `imported`, so code that throws at import never takes the last
 * good server down. Told to `start`, it imports the entry itself, which starts listening (its
 * imports are loaded by then).
 *
 * Plain Node on purpose: the entry it runs is the dev build's JavaScript (.dev-build/), and a start
 * without a TypeScript loader spends nothing on hooks around each of the dependencies' modules. An
 * entry outside the build (TypeScript) is run under tsx, registered only then. Source maps are
 * switched on before the project's code loads, so its stack traces name the TypeScript files; the
 * dependencies preloaded before are not mapped, and cost nothing for it.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * @typedef {{ kind: 'preload'; entry: string } | { kind: 'run'; entry: string } | { kind: 'start' }} StandbyRequest
 * @typedef {{ kind: 'standing-by' } | { kind: 'imported' } | { kind: 'failed'; error: { name: string; message: string; stack: string } }} StandbyReport
 */

/** @param {StandbyReport} report @param {() => void} [then] */
const tell = (report, then = () => undefined) => {
  if (process.connected && process.send !== undefined) process.send(report, undefined, {}, then);
  else then();
};

/**
 * What dev-server.ts prints (scripts/dev-import-failure.ts locates it), then exit 1.
 * @param {unknown} error
 */
function fail(error) {
  const { name = 'Error', message = String(error), stack = '' } = error instanceof Error ? error : {};
  tell({ kind: 'failed', error: { name, message, stack } }, () => process.exit(1));
}

/**
 * What loads a module at run time, in TypeScript sources and the build's JavaScript alike:
 * `import … from`, `import '…'`, `export … from` (not `import type`, `export type`).
 */
const RUNTIME_IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** @param {string} entryPath */
async function staticImportsOf(entryPath) {
  const source = await readFile(entryPath, 'utf8');
  const base = pathToFileURL(entryPath);
  return [...source.matchAll(RUNTIME_IMPORT)].map(([, specifier = '']) => (specifier.startsWith('.') ? new URL(specifier, base).href : specifier));
}

/** Set once the entry is to run: the preload starts no further import. */
let runAsked = false;
let preloadAsked = false;
let started = false;

/** The most source files the preload reads to find the entry's dependencies. */
const MAX_SOURCES = 2_000;

/** The package of a bare specifier: `graphql-yoga`, `@graphql-tools/utils/x` → `@graphql-tools/utils`. */
const packageOf = (/** @type {string} */ specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** The TypeScript source a relative specifier names (`./x.js` is `./x.ts` in the sources), if there is one. */
function sourceOf(/** @type {string} */ specifier, /** @type {string} */ from) {
  const path = resolve(dirname(from), specifier);
  return [path.replace(/\.js$/, '.ts'), `${path}.ts`, join(path, 'index.ts'), path].find((candidate) => /\.[cm]?ts$/.test(candidate) && existsSync(candidate));
}

/**
 * The dependencies the entry loads at start, in the order it reaches them: the bare specifiers of
 * its static imports, followed through the project's sources (a workspace package's too: a link in
 * node_modules, whose src/ is read whole). Not what it imports on demand (`import()`): the preload
 * loads none of what a start does not, such as the GraphiQL page's package, which is only read.
 * @param {string} entry
 */
async function dependenciesOf(entry) {
  /** @type {string[]} */
  const queue = [resolve(entry)];
  const seen = new Set(queue);
  /** @type {Set<string>} */
  const dependencies = new Set();
  for (let index = 0; index < queue.length && index < MAX_SOURCES; index += 1) {
    const file = queue[index] ?? '';
    const source = await readFile(file, 'utf8').catch(() => '');
    for (const [, specifier = ''] of source.matchAll(RUNTIME_IMPORT)) {
      if (specifier.startsWith('node:')) continue;
      const next = specifier.startsWith('.') ? [sourceOf(specifier, file)] : await workspaceSources(specifier, dependencies);
      for (const path of next) {
        if (path === undefined || seen.has(path)) continue;
        seen.add(path);
        queue.push(path);
      }
    }
  }
  return [...dependencies];
}

/**
 * The sources of a workspace package (the project's own code, loaded from the dev build), or none
 * for a dependency, which is added to `dependencies`.
 * @param {string} specifier
 * @param {Set<string>} dependencies
 * @returns {Promise<Array<string | undefined>>}
 */
async function workspaceSources(specifier, dependencies) {
  // npm links a workspace package into node_modules; a dependency is installed under it (or, in a
  // copy of the project, linked to another node_modules).
  const target = await realpath(join('node_modules', packageOf(specifier))).catch(() => undefined);
  if (target === undefined || target.split(sep).includes('node_modules')) {
    dependencies.add(specifier);
    return [];
  }
  const dir = join(target, 'src');
  const names = await readdir(dir, { recursive: true }).catch(() => []);
  return names.filter((name) => /\.ts$/.test(name) && !name.endsWith('.d.ts')).map((name) => join(dir, name));
}

/**
 * The entry's dependencies, one at a time, and none once the entry is to run: a code change that
 * comes while they load waits for one of them, not for all.
 * @param {string} entry
 */
async function preloadDependencies(entry) {
  for (const specifier of await dependenciesOf(entry)) {
    if (runAsked) return;
    // A specifier that does not import (a types-only package) loads nothing: nothing to do then.
    await import(specifier).catch(() => undefined);
  }
}

/** @param {string} entry */
async function run(entry) {
  const entryPath = resolve(entry);
  process.setSourceMapsEnabled(true);
  try {
    // tsx's loader registers itself on import (as `node --import tsx` does); it declares no types.
    if (/\.[cm]?tsx?$/.test(entryPath)) await import(/** @type {string} */ ('tsx'));
    for (const specifier of await staticImportsOf(entryPath)) await import(specifier);
  } catch (error) {
    fail(error);
    return;
  }
  process.on('message', function onStart(/** @type {StandbyRequest} */ message) {
    if (message.kind !== 'start') return;
    process.off('message', onStart);
    started = true;
    import(pathToFileURL(entryPath).href).catch(fail);
  });
  tell({ kind: 'imported' });
}

/** @param {string} entry */
function preload(entry) {
  if (runAsked || preloadAsked) return;
  preloadAsked = true;
  // Only a head start: what fails to load here (a file gone since) is the entry's own import to report.
  preloadDependencies(entry).catch(() => undefined);
}

process.on('message', function onRun(/** @type {StandbyRequest} */ message) {
  if (message.kind === 'preload') preload(message.entry);
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
// Started with the dev loop itself (scripts/dev-start.mjs, `--preload <entry>`): it loads them from the start.
const preloadAt = process.argv.indexOf('--preload');
if (preloadAt !== -1) preload(process.argv[preloadAt + 1] ?? '');
