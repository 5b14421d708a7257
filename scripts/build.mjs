// @ts-check
/**
 * The build (`npm run build`): JS + `.d.ts` in `dist/`, and a record of the inputs it was built from
 * (`dist/.build-inputs.json`: size and mtime of every file under the inputs below).
 *
 *   node scripts/build.mjs              build
 *   node scripts/build.mjs --if-stale   build only if an input changed since the last build
 *                                       (`npm start`'s prestart); silent when dist/ is current
 *   node scripts/build.mjs --check      exit 0 if dist/ is current, 1 naming what changed
 *
 * Plain Node on purpose (no tsx, no dependencies): on a tree that is already built, `npm start`
 * must work without the devDependencies (`npm ci --omit=dev`); only a stale tree needs TypeScript.
 * Comparing each file's size and mtime with the record (not only the newest mtime with the build's
 * time) also sees a deleted file and a file put back with an older mtime (a restore, `cp -p`).
 *
 * The output goes to a staging directory that replaces dist/ only once complete, so a failed build
 * leaves the last good one in place, and a server already running from dist/ keeps its files.
 */
import { spawn } from 'node:child_process';
import { cp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const DIST = 'dist';
const RECORD = join(DIST, '.build-inputs.json');
/** What the emitted files depend on: tsconfig.build.json's `include`, the configs, the dependency tree, this script. */
const INPUTS = ['src', 'schema', 'generated', 'examples', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/build.mjs'];
/** Copied into dist/ as they are: the Star Wars example reads its SDL next to its compiled module. */
const ASSETS = ['examples/starwars/schema'];
/** How many changed paths a stale verdict names. */
const NAMED_CHANGES = 3;

/**
 * Every file under `path` (relative to the project root) → "size:mtimeMs"; node_modules skipped.
 * @param {string} path
 * @param {Map<string, string>} into
 */
async function collect(path, into) {
  const absolute = join(root, path);
  const info = await stat(absolute).catch((/** @type {NodeJS.ErrnoException} */ error) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (info === undefined) return;
  if (!info.isDirectory()) {
    into.set(path.split(sep).join('/'), `${info.size}:${info.mtimeMs}`);
    return;
  }
  const names = (await readdir(absolute)).filter((name) => name !== 'node_modules').sort();
  for (const name of names) await collect(join(path, name), into);
}

/** @returns {Promise<Map<string, string>>} */
async function currentInputs() {
  const inputs = new Map();
  for (const path of INPUTS) await collect(path, inputs);
  return inputs;
}

/** @returns {Promise<Map<string, string> | undefined>} the inputs of the last build, if dist/ has one */
async function recordedInputs() {
  try {
    const record = /** @type {{ inputs: Record<string, string> }} */ (JSON.parse(await readFile(join(root, RECORD), 'utf8')));
    return new Map(Object.entries(record.inputs));
  } catch {
    return undefined;
  }
}

/**
 * Why dist/ is out of date with `inputs`, or undefined when it is current.
 * @param {Map<string, string>} inputs
 */
async function staleness(inputs) {
  const recorded = await recordedInputs();
  if (recorded === undefined) return `${RECORD} is missing (never built, or built before this check existed)`;
  const changed = [];
  for (const [path, signature] of inputs) {
    if (recorded.get(path) !== signature) changed.push(recorded.has(path) ? path : `${path} (new)`);
  }
  for (const path of recorded.keys()) if (!inputs.has(path)) changed.push(`${path} (deleted)`);
  if (changed.length === 0) return undefined;
  const more = changed.length > NAMED_CHANGES ? ` and ${changed.length - NAMED_CHANGES} more` : '';
  return `changed since the last build: ${changed.slice(0, NAMED_CHANGES).join(', ')}${more}`;
}

/**
 * @param {string[]} args
 * @returns {Promise<number>} the exit code
 */
function run(args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.on('error', fail);
    child.on('exit', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

function typescriptCompiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error('dist/ must be (re)built and TypeScript is not installed (devDependencies omitted?): run `npm ci && npm run build`, then start again');
  }
}

/**
 * Moves the complete staging directory into dist/'s place; the previous dist/ is removed after.
 * @param {string} staging
 */
async function replaceDist(staging) {
  const retired = `${DIST}.retired-${process.pid}`;
  // Another build finishing at the same moment can put a dist/ back between the two renames: retry.
  for (let attempt = 1; ; attempt++) {
    await rename(join(root, DIST), join(root, retired)).catch((/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code !== 'ENOENT') throw error;
    });
    try {
      await rename(join(root, staging), join(root, DIST));
      break;
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      if (attempt === 3 || (code !== 'ENOTEMPTY' && code !== 'EEXIST')) throw error;
      await rm(join(root, retired), { recursive: true, force: true });
    }
  }
  await rm(join(root, retired), { recursive: true, force: true });
}

/** @param {Map<string, string>} inputs the inputs as they were before compiling: an edit during the build makes the next start rebuild */
async function build(inputs) {
  const staging = `${DIST}.building-${process.pid}`;
  await rm(join(root, staging), { recursive: true, force: true });
  try {
    const status = await run([typescriptCompiler(), '-p', 'tsconfig.build.json', '--outDir', staging]);
    if (status !== 0) return status;
    for (const path of ASSETS) await cp(join(root, path), join(root, staging, path), { recursive: true });
    const record = { builtAt: new Date().toISOString(), inputs: Object.fromEntries(inputs) };
    await writeFile(join(root, staging, relative(DIST, RECORD)), `${JSON.stringify(record, null, 1)}\n`);
    await replaceDist(staging);
    return 0;
  } finally {
    await rm(join(root, staging), { recursive: true, force: true });
  }
}

async function main() {
  const mode = process.argv[2];
  if (mode !== undefined && mode !== '--if-stale' && mode !== '--check') {
    process.stderr.write(`usage: node scripts/build.mjs [--if-stale | --check] (got ${mode})\n`);
    return 2;
  }
  const inputs = await currentInputs();
  if (mode === undefined) return build(inputs);
  const reason = await staleness(inputs);
  if (reason === undefined) return 0;
  if (mode === '--check') {
    process.stdout.write(`dist/ is out of date: ${reason}\n`);
    return 1;
  }
  process.stderr.write(`building dist/: ${reason}\n`);
  return build(inputs);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (/** @type {unknown} */ error) => {
    process.stderr.write(`build: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
