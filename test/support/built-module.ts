/**
 * The service's modules as a test runs them in a process of its own: the JavaScript the product's
 * build (scripts/build.mjs) made of them, on plain node, as `npm start` runs `dist/src/main.js`.
 * What such a test checks is the process (its start, its signals, its exit codes), not how
 * TypeScript is loaded, and the built entry answers about a second sooner than one under tsx.
 * Vitest's global setup (test/support/global-build.ts) builds them into `.test-dist/` before any
 * test, so the suite never replaces the `dist/` a running `npm start` uses, nor the reverse.
 *
 *   spawn(process.execPath, [...START_NODE_FLAGS, builtModule('src/main.ts')], …)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where the global setup builds (`node scripts/build.mjs --if-stale --out-dir .test-dist`): a directory in the project root, as dist/ is. */
export const TEST_BUILD_DIR = '.test-dist';

/** The built module of one of the service's TypeScript modules: `builtModule('src/main.ts')` → `<root>/.test-dist/src/main.js`. */
export function builtModule(source: string): string {
  if (!/^(src|examples)\/.+\.ts$/.test(source)) throw new Error(`builtModule: expected a .ts module under src/ or examples/, got ${source}`);
  return join(ROOT, TEST_BUILD_DIR, source.replace(/\.ts$/, '.js'));
}

/**
 * The node flags of package.json "start" (`node <flags> dist/src/main.js`), read from it so that a
 * service a test starts runs with the heap and JIT settings production runs with.
 */
export const START_NODE_FLAGS: readonly string[] = (() => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const flags = /^node((?: --\S+)*) dist\/src\/main\.js$/.exec(scripts.start)?.[1];
  if (flags === undefined) throw new Error(`package.json "start" is not \`node [--flags] dist/src/main.js\`: ${scripts.start}`);
  return flags.split(' ').filter((flag) => flag !== '');
})();
