/**
 * Vitest global setup: builds the workspace packages (`tsc -b`, incremental: about a second when
 * nothing changed) before any test runs. In-process tests import the packages' sources (the aliases
 * of vitest.config.ts), but a test that starts `src/main.ts` under tsx in another working directory
 * (a copy of the project, a scratch directory) resolves `@channel-graph/*` through node_modules, as
 * an installed app does: to the package's `dist/`. Without this a fresh clone's `npm test` would
 * fail those tests, and an edited package would be tested from its last build.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

export default async function buildPackages(): Promise<void> {
  await promisify(execFile)(process.execPath, [TSC, '-b', 'packages/oauth2', 'packages/client'], { cwd: ROOT }).catch((error: unknown) => {
    const output = (error as { stdout?: string }).stdout ?? '';
    throw new Error(`the workspace packages do not build (tsc -b packages/oauth2 packages/client):\n${output}`);
  });
}
