// @ts-check
/**
 * The build (`npm run build`): the service's modules (`dist/src/`, `dist/generated/`,
 * `dist/examples/`) and the workspace packages it imports (`dist/node_modules/@channel-graph/<name>/`),
 * transpiled file by file with esbuild (module structure kept, source maps beside), and a record of
 * the inputs it was built from (`dist/.build-inputs.json`: size and mtime of every file under the
 * inputs below).
 *
 *   node scripts/build.mjs              build
 *   node scripts/build.mjs --if-stale   build only if an input changed since the last build
 *                                       (`npm start`'s prestart); silent when dist/ is current
 *   node scripts/build.mjs --check      exit 0 if dist/ is current, 1 naming what changed
 *   ... --out-dir <name>                build into (or check) <name>/ instead of dist/: a directory
 *                                       directly in the project root, as dist/ is (the built modules
 *                                       find schema/, examples/overlay/ and the Star Wars SDL three
 *                                       levels above dist/<dir>/<dir>/: a build copies none of them),
 *                                       and one that only a build made (it holds a record) or that
 *                                       does not exist yet, since a build replaces it whole.
 *                                       `npm test` builds into .test-dist/ (its global setup,
 *                                       test/support/global-build.ts), so the suite never swaps
 *                                       dist/ under a running `npm start`, nor `npm start` or
 *                                       `npm run build` swaps the tests' build under a test.
 *
 * A transpile, not a compile: no type is checked here (that is `npm run typecheck`, which CI runs)
 * and no declaration is written (a package's declarations are built when it is packed: its prepack
 * runs `tsc -b`). What fails the build is what esbuild cannot transpile (a syntax error), named with
 * file, line and column.
 *
 * The packages go inside dist/ rather than into packages/<name>/dist/ (tsc's, for packing and for
 * the typecheck's project references): Node resolves `@channel-graph/<name>` from the nearest
 * node_modules, which for the modules under dist/ is dist/node_modules, before the workspace link in
 * node_modules/. So one directory is the whole build, swapped in at once, and `npm start` never
 * overwrites what tsc built.
 *
 * Plain Node on purpose (no tsx, no dependencies): on a tree that is already built, `npm start`
 * must work without the devDependencies (`npm ci --omit=dev`); only a stale tree needs esbuild.
 * Comparing each file's size and mtime with the record (not only the newest mtime with the build's
 * time) also sees a deleted file and a file put back with an older mtime (a restore, `cp -p`).
 *
 * The output goes to a staging directory that replaces dist/ only once complete, so a failed build
 * leaves the last good one in place, and a server already running from dist/ keeps its files.
 */
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
/** Where the build goes unless `--out-dir` names another directory. */
const DIST = 'dist';
/** The record of the inputs, inside the output directory. */
const RECORD = '.build-inputs.json';
/** The service's modules: what `dist/src/main.js` and the example entries import. */
const SERVICE_SOURCES = ['src', 'generated/channel', 'generated/starwars', 'generated/upstreams', 'generated/db', 'examples'];
/**
 * The workspace packages the service imports, each with what its tsconfig.json compiles (its src/
 * and the codegen output it ships), laid out as tsc lays it out in the package's dist/ (paths from
 * the repository root, its rootDir), so the package.json "exports" apply unchanged.
 * test/foundation/start-build.slow.test.ts checks these lists against the tsconfigs.
 */
const PACKAGES = [
  { dir: 'packages/oauth2', sources: ['packages/oauth2/src', 'generated/openapi/oauth2.ts'] },
  {
    dir: 'packages/client',
    sources: [
      'packages/client/src',
      'generated/client/graphql.ts',
      'generated/client/possible-types.ts',
      'generated/client/introspection.json',
      'generated/client/persisted-documents.json',
      'generated/openapi/channel-api.ts',
    ],
  },
];
/** What the emitted files depend on: the sources above, the packages' manifests and configs (esbuild reads the nearest tsconfig), the dependency tree, this script. */
const INPUTS = [
  'src',
  'schema',
  'generated',
  'examples',
  ...PACKAGES.flatMap((pkg) => [`${pkg.dir}/src`, `${pkg.dir}/package.json`, `${pkg.dir}/tsconfig.json`]),
  'tsconfig.base.json',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'scripts/build.mjs',
];
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

/**
 * @param {string} outDir
 * @returns {Promise<Map<string, string> | undefined>} the inputs of the last build, if `outDir` has one
 */
async function recordedInputs(outDir) {
  try {
    const record = /** @type {{ inputs: Record<string, string> }} */ (JSON.parse(await readFile(join(root, outDir, RECORD), 'utf8')));
    return new Map(Object.entries(record.inputs));
  } catch {
    return undefined;
  }
}

/**
 * Why the build in `outDir` is out of date with `inputs`, or undefined when it is current.
 * @param {Map<string, string>} inputs
 * @param {string} outDir
 */
async function staleness(inputs, outDir) {
  const recorded = await recordedInputs(outDir);
  if (recorded === undefined) return `${outDir}/${RECORD} is missing (never built, or built before this check existed)`;
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

/** @returns {Promise<typeof import('esbuild')>} */
async function loadEsbuild() {
  try {
    return await import('esbuild');
  } catch {
    throw new Error('dist/ must be (re)built and esbuild is not installed (devDependencies omitted?): run `npm ci && npm run build`, then start again');
  }
}

/**
 * What the build writes, from the input files: each TypeScript module transpiled to `<out>.js`
 * (declarations skipped), each JSON module copied to `<out>.json`, paths relative to the output root.
 * @param {Iterable<string>} files the input files (root-relative, `/`-separated)
 * @param {Array<{ dir: string, name: string, sources: string[] }>} packages
 * @returns {{ modules: Array<{ in: string, out: string }>, copies: Array<{ from: string, to: string }> }}
 */
function plan(files, packages) {
  /** @type {Array<{ in: string, out: string }>} */
  const modules = [];
  /** @type {Array<{ from: string, to: string }>} */
  const copies = [];
  /**
   * @param {string} file
   * @param {string} home where the output tree of `file`'s project starts
   */
  const add = (file, home) => {
    if (file.endsWith('.ts') && !file.endsWith('.d.ts')) modules.push({ in: file, out: join(home, file.slice(0, -'.ts'.length)) });
    else if (file.endsWith('.json')) copies.push({ from: file, to: join(home, file) });
  };
  /** @param {string} file @param {string} source */
  const within = (file, source) => file === source || file.startsWith(`${source}/`);
  const all = [...files];
  for (const file of all) if (SERVICE_SOURCES.some((source) => within(file, source))) add(file, '.');
  for (const pkg of packages) {
    const home = join('node_modules', pkg.name, 'dist');
    for (const file of all) if (pkg.sources.some((source) => within(file, source))) add(file, home);
    copies.push({ from: `${pkg.dir}/package.json`, to: join('node_modules', pkg.name, 'package.json') });
  }
  return { modules, copies };
}

/**
 * Transpiles the service and the packages into a staging directory and, if that succeeds, puts it
 * in `outDir`'s place with the record of `inputs`. A failure leaves `outDir` and its record as they
 * were, so the next start builds again.
 * @param {Map<string, string>} inputs the inputs as they were before building: an edit during the build makes the next start rebuild
 * @param {string} outDir
 * @param {(text: string) => void} report what esbuild says (warnings, errors with file:line:column), formatted as its command line does
 * @returns {Promise<number>} the exit code
 */
async function build(inputs, outDir, report) {
  const esbuild = await loadEsbuild();
  const packages = await Promise.all(
    PACKAGES.map(async (pkg) => {
      const manifest = /** @type {{ name: string }} */ (JSON.parse(await readFile(join(root, pkg.dir, 'package.json'), 'utf8')));
      return { ...pkg, name: manifest.name };
    }),
  );
  const { modules, copies } = plan(inputs.keys(), packages);
  const staging = `${outDir}.building-${process.pid}`;
  await rm(join(root, staging), { recursive: true, force: true });
  try {
    try {
      const result = await esbuild.build({
        absWorkingDir: root,
        entryPoints: modules,
        outdir: staging,
        bundle: false,
        platform: 'node',
        format: 'esm',
        // The oldest Node of package.json "engines": syntax it runs is left as written (with
        // `target: 'es2022'` esbuild would drop the JSON modules' `with { type: 'json' }`). The rest
        // that matters for a transpile (useDefineForClassFields, verbatimModuleSyntax) esbuild reads
        // from each file's nearest tsconfig.json.
        target: 'node20.19',
        sourcemap: 'linked',
        charset: 'utf8',
        logLevel: 'silent',
      });
      for (const text of await esbuild.formatMessages(result.warnings, { kind: 'warning' })) report(text);
    } catch (error) {
      if (error instanceof Error && 'errors' in error) {
        const errors = /** @type {import('esbuild').Message[]} */ (error.errors);
        for (const text of await esbuild.formatMessages(errors, { kind: 'error' })) report(text);
        report(`build failed: ${outDir}/ is left as it was\n`);
        return 1;
      }
      throw error;
    }
    for (const { from, to } of copies) {
      await mkdir(join(root, staging, dirname(to)), { recursive: true });
      await cp(join(root, from), join(root, staging, to));
    }
    const record = { builtAt: new Date().toISOString(), inputs: Object.fromEntries(inputs) };
    await writeFile(join(root, staging, RECORD), `${JSON.stringify(record, null, 1)}\n`);
    await replaceDist(staging, outDir);
    return 0;
  } finally {
    await rm(join(root, staging), { recursive: true, force: true });
  }
}

/** @param {string} text */
const printToStderr = (text) => void process.stderr.write(text);

const USAGE = 'usage: node scripts/build.mjs [--if-stale | --check] [--out-dir <name>]';

/**
 * The mode and the output directory from the command line, or the reason they are not usable.
 * @param {string[]} args
 * @returns {Promise<{ mode: string | undefined, outDir: string } | { error: string }>}
 */
async function parseArguments(args) {
  /** @type {string | undefined} */
  let mode;
  /** @type {string | undefined} */
  let outDir;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if ((arg === '--if-stale' || arg === '--check') && mode === undefined) mode = arg;
    else if (arg === '--out-dir' && outDir === undefined && index + 1 < args.length) outDir = args[++index];
    else return { error: `${USAGE} (got ${args.join(' ')})` };
  }
  if (outDir === undefined || outDir === DIST) return { mode, outDir: DIST };
  if (!/^[\w.-]+$/.test(outDir) || outDir === '.' || outDir === '..') return { error: `--out-dir: expected the name of a directory in the project root, got ${JSON.stringify(outDir)}` };
  // A build replaces its directory whole: never one that holds something else (src, test…).
  const exists = await stat(join(root, outDir)).then(
    () => true,
    () => false,
  );
  if (exists && (await recordedInputs(outDir)) === undefined) return { error: `--out-dir: ${outDir}/ exists and holds no ${RECORD}: not a build's directory, left alone` };
  return { mode, outDir };
}

async function main() {
  const parsed = await parseArguments(process.argv.slice(2));
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\n`);
    return 2;
  }
  const { mode, outDir } = parsed;
  const inputs = await currentInputs();
  if (mode === undefined) return build(inputs, outDir, printToStderr);
  const reason = await staleness(inputs, outDir);
  if (reason === undefined) return 0;
  if (mode === '--check') {
    process.stdout.write(`${outDir}/ is out of date: ${reason}\n`);
    return 1;
  }
  process.stderr.write(`building ${outDir}/: ${reason}\n`);
  return build(inputs, outDir, printToStderr);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (/** @type {unknown} */ error) => {
      process.stderr.write(`build: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
