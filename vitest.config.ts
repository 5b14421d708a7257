import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects: `unit` and `unit-own-worker` (in-process tests, a fast loop:
 * `npx vitest --project 'unit*'`) and `slow` (files named `*.slow.test.ts`: they spawn processes —
 * npm, tsc, a browser, a child server — or take more than ~5 s). `npm test` runs all three.
 */
const SLOW = ['test/**/*.slow.test.ts', 'examples/**/*.slow.test.ts'];

/**
 * Under `--coverage` (npm run test:coverage) every file gets a fresh worker after all: V8's precise
 * coverage in a worker that has run many files slowed a property test of graphql-jit's compiled
 * operations from 2 s to past its 30 s timeout (alone, with coverage, it takes 2 s).
 */
const COVERAGE = process.argv.includes('--coverage');

/**
 * In-process test files that change what the process shares (module mocks, the environment, a faked
 * clock, OpenTelemetry's global providers): each runs in a fresh worker. The other in-process files
 * share their workers and the modules those have loaded (`isolate: false`), which saves each file its
 * own process and its own imports of yoga, graphql, pino and the rest — and so must leave nothing
 * running: a timer or a collector a file leaves behind slows every later file in its worker (a
 * forced-GC interval left running once made one file per run take 30-50 s instead of 3).
 */
const OWN_WORKER = [
  'test/config.test.ts',
  'test/graphql/document-cache.test.ts',
  'test/graphql/resolver-coverage.test.ts',
  'test/graphql/schema-reload.test.ts',
  'test/oauth2/debug-log.test.ts',
  'test/oauth2/interface-rules.test.ts',
  'test/oauth2/secrets.test.ts',
  'test/observability/log-destination.test.ts',
  'test/observability/logs.test.ts',
  'test/observability/traces.test.ts',
  'test/sandbox/oauth-token.test.ts',
];

/**
 * The workspace packages' entries as their TypeScript sources (tsconfig.json "paths" says the same
 * for tsc and tsx): tests run the code under edit, without a package build.
 */
const tsconfig = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const alias = Object.entries(tsconfig.compilerOptions.paths).map(([find, [source]]) => ({
  find: new RegExp(`^${find.replace(/[/.]/g, '\\$&')}$`),
  replacement: new URL(source, import.meta.url).pathname,
}));

/**
 * Test files run at once: one more than the cores. Most of a file's time is spent waiting on
 * processes it started (npm, tsc, Chromium, a service, redis-server) or on sockets and deadlines, so
 * vitest's default of cores − 1 (one file at a time on 2 cores) leaves a core idle for most of the
 * run. `npm test -- --maxWorkers=<n>` overrides it.
 */
const MAX_WORKERS = availableParallelism() + 1;

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: MAX_WORKERS,
    globalSetup: ['test/support/global-build.ts'],
    reporters: ['default'],
    // `npm run test:coverage`: V8's own counters (no instrumentation), over the code we ship and run.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'packages/*/src/**/*.ts', 'scripts/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      // A failed test still leaves the figures of everything else (the run still fails).
      reportOnFailure: true,
    },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW, ...OWN_WORKER], isolate: COVERAGE } },
      { extends: true, test: { name: 'unit-own-worker', include: OWN_WORKER } },
      // A slow test runs a compiler, a browser or a server process: on a loaded 2-core machine a cold
      // tsc alone can pass 30 s, which says nothing about the code under test.
      { extends: true, test: { name: 'slow', include: SLOW, testTimeout: 120_000 } },
    ],
  },
});
