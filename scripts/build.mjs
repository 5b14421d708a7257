// @ts-check
/**
 * The build (`npm run build`): the workspace packages first (JS + `.d.ts` in packages/<name>/dist/,
 * what the service imports at run time through node_modules/@channel-graph/<name>), then the service
 * (JS + `.d.ts` in `dist/`), and a record of the inputs it was built from (`dist/.build-inputs.json`:
 * size and mtime of every file under the inputs below).
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
/** The workspace packages the service imports, built before it (each one alone: `tsc -p packages/<name>`). */
const PACKAGES = ['packages/oauth2', 'packages/client'];
/** What the emitted files depend on: tsconfig.build.json's `include`, the packages' sources and configs, the dependency tree, this script. */
const INPUTS = [
  'src',
  'schema',
  'generated',
  'examples',
  ...PACKAGES.flatMap((pkg) => [`${pkg}/src`, `${pkg}/package.json`, `${pkg}/tsconfig.json`]),
  'tsconfig.base.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/build.mjs',
];
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
 * Moves the complete staging directory into `dist`'s place; the previous one is removed after.
 * @param {string} staging
 * @param {string} dist
 */
async function replaceDist(staging, dist) {
  const retired = `${dist}.retired-${process.pid}`;
  // Another build finishing at the same moment can put a dist/ back between the two renames: retry.
  for (let attempt = 1; ; attempt++) {
    await rename(join(root, dist), join(root, retired)).catch((/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code !== 'ENOENT') throw error;
    });
    try {
      await rename(join(root, staging), join(root, dist));
      break;
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      if (attempt === 3 || (code !== 'ENOTEMPTY' && code !== 'EEXIST')) throw error;
      await rm(join(root, retired), { recursive: true, force: true });
    }
  }
  await rm(join(root, retired), { recursive: true, force: true });
}

/**
 * Compiles one project into a staging directory and, if that succeeds and `complete` does, puts it
 * in `dist`'s place.
 * @param {string} config the tsconfig
 * @param {string} dist where the output goes
 * @param {(staging: string) => Promise<void>} [complete] adds to the staged output
 * @returns {Promise<number>} the compiler's exit code
 */
async function compile(config, dist, complete) {
  const staging = `${dist}.building-${process.pid}`;
  await rm(join(root, staging), { recursive: true, force: true });
  try {
    const status = await run([typescriptCompiler(), '-p', config, '--outDir', staging, '--tsBuildInfoFile', join(staging, '.tsbuildinfo')]);
    if (status !== 0) return status;
    await complete?.(staging);
    await replaceDist(staging, dist);
    return 0;
  } finally {
    await rm(join(root, staging), { recursive: true, force: true });
  }
}

/**
 * The packages, then the service, which compiles against the packages' new `.d.ts`. A failure
 * stops the build; the service's dist/ and its record stay as they were, so the next start builds
 * again.
 * @param {Map<string, string>} inputs the inputs as they were before compiling: an edit during the build makes the next start rebuild
 */
async function build(inputs) {
  for (const pkg of PACKAGES) {
    const status = await compile(join(pkg, 'tsconfig.json'), join(pkg, 'dist'));
    if (status !== 0) return status;
  }
  return compile('tsconfig.build.json', DIST, async (staging) => {
    for (const path of ASSETS) await cp(join(root, path), join(root, staging, path), { recursive: true });
    const record = { builtAt: new Date().toISOString(), inputs: Object.fromEntries(inputs) };
    await writeFile(join(root, staging, relative(DIST, RECORD)), `${JSON.stringify(record, null, 1)}\n`);
  });
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
