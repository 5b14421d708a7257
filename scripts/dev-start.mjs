// @ts-check
/**
 * How `npm run dev` starts a server: the dev build, and the server processes that run it.
 *
 * The dev build: the service's modules, transpiled by the product's own build (scripts/build.mjs as
 * `--if-stale --out-dir .dev-build`: esbuild, source maps beside, nothing when no input changed),
 * which the dev server runs in plain Node (scripts/dev-server.ts). It runs in this process, so
 * esbuild's service stays up from one build to the next: a rebuild after a code change costs the
 * transpile, not a process and a cold esbuild.
 *
 * A server process (scripts/dev-standby.mjs) is started before it is needed and stands by.
 *
 * Plain JavaScript so that scripts/dev.mjs can start the first build and the first server process
 * (which loads the dependencies meanwhile) before the TypeScript loader and dev.ts load: on a fresh
 * clone they are the way to the first answer, and dev.ts would start them half a second later.
 * dev-server.ts takes both over; it and dev.ts read this module's types from its JSDoc (tsconfig.json
 * allowJs), so there is no second declaration of them to keep in step.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { buildIfStale } from './build.mjs';

/** The dev build's directory: in the project root, as dist/ is (scripts/build.mjs --out-dir). */
export const DEV_BUILD_DIR = '.dev-build';

/** @typedef {{ ok: boolean, output: string }} DevBuildResult what the build said: esbuild's warnings, or its errors when it failed */

/** @returns {Promise<DevBuildResult>} */
async function runBuild() {
  let output = '';
  try {
    const code = await buildIfStale(DEV_BUILD_DIR, (text) => {
      output += text;
    });
    return { ok: code === 0, output: output.trim() };
  } catch (error) {
    return { ok: false, output: `${output}build: ${error instanceof Error ? error.message : String(error)}`.trim() };
  }
}

/** The environment of the dev server's processes: NODE_ENV=development unless NODE_ENV is set. */
export function devServerEnv() {
  return { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' };
}

/** The server's entry: `npm run dev -- <entry>`, by default the channel service. */
export function devEntry() {
  return process.argv[2] ?? 'src/main.ts';
}

/**
 * A server process, standing by until it is told to run an entry.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} [preloadFor] an entry whose dependencies it loads from its start, untold
 */
export function forkStandby(env, preloadFor) {
  return fork(join('scripts', 'dev-standby.mjs'), preloadFor === undefined ? [] : ['--preload', preloadFor], { env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
}

/** @type {Promise<DevBuildResult> | undefined} */
let earlyBuild;
/** @type {{ child: import('node:child_process').ChildProcess, reports: unknown[], stopRecording: () => void } | undefined} */
let earlyStandby;

/** Starts the first build and the first server process (preloading) now, for dev-server.ts to take over. */
export function startEarly() {
  earlyBuild ??= runBuild();
  if (earlyStandby !== undefined) return;
  const child = forkStandby(devServerEnv(), devEntry());
  /** @type {unknown[]} */
  const reports = [];
  /** @param {unknown} report */
  const record = (report) => void reports.push(report);
  child.on('message', record);
  earlyStandby = { child, reports, stopRecording: () => child.off('message', record) };
}

/** The server process started early and what it has reported so far, if nothing took it yet. */
export function takeEarlyStandby() {
  const taken = earlyStandby;
  earlyStandby = undefined;
  taken?.stopRecording();
  return taken && { child: taken.child, reports: taken.reports };
}

/**
 * Brings the dev build up to date: the build started early if nothing took it yet, else a new one.
 * Its errors name `file:line:column`.
 * @returns {Promise<DevBuildResult>}
 */
export function buildDev() {
  const started = earlyBuild;
  earlyBuild = undefined;
  return started ?? runBuild();
}
