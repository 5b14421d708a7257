/**
 * Vitest global setup: before any test runs, builds
 *
 * - the workspace packages (`tsc -b`, incremental: about a second when nothing changed). In-process
 *   tests import the packages' sources (the aliases of vitest.config.ts), but a process a test starts
 *   from another working directory (a project copy, a scratch project) or a plain-node child script
 *   resolves `@channel-graph/*` through node_modules, as an installed app does: to the package's
 *   `dist/`;
 * - the service, with the product's own build into `.test-dist/` (`node scripts/build.mjs --if-stale
 *   --out-dir .test-dist`, about a second; nothing when no input changed): the service processes
 *   the tests start run its JavaScript on plain node, as `npm start` does (test/support/built-module.ts).
 *
 * Without this a fresh clone's `npm test` would fail those tests, and an edited source would be
 * tested from its last build. A build that fails (a syntax error) fails the run before any test,
 * with the compiler's message. In watch mode both run again (each only if an input changed) before
 * every rerun.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { TEST_BUILD_DIR } from './built-module.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** TypeScript 7, as `npm run typecheck` runs it: the packages' build records are the same for both. */
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript-7/package.json')), 'bin', 'tsc');

/** Runs `node <args>` in the project root; a non-zero exit throws `failure` followed by the command's output. */
async function run(args: readonly string[], failure: string): Promise<void> {
  await promisify(execFile)(process.execPath, args, { cwd: ROOT }).catch((error: unknown) => {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${failure} (node ${args.join(' ')}):\n${stdout}${stderr}`);
  });
}

async function buildAll(): Promise<void> {
  await Promise.all([
    run([TSC, '-b', 'packages/oauth2', 'packages/client'], 'the workspace packages do not build'),
    run(['scripts/build.mjs', '--if-stale', '--out-dir', TEST_BUILD_DIR], 'the service does not build'),
  ]);
}

/**
 * Vitest runs a global setup once for each project a run touches and once for the root project
 * (one after another, before any test): the build is done in the root project's only.
 */
export default async function globalBuild(project: TestProject): Promise<void> {
  if (!project.isRootProject()) return;
  await buildAll();
  project.onTestsRerun(buildAll);
}
