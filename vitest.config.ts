import { readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (in-process tests, a fast loop: `npx vitest --project unit`) and `slow`
 * (files named `*.slow.test.ts`: they spawn processes — npm, tsc, a browser, a child server — or
 * take more than ~5 s). `npm test` runs both.
 */
const SLOW = ['test/**/*.slow.test.ts', 'examples/**/*.slow.test.ts'];

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

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    // `npm run test:coverage`: V8's own counters (no instrumentation), over the code we ship and run.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'packages/*/src/**/*.ts', 'scripts/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW] } },
      // A slow test runs a compiler, a browser or a server process: on a loaded 2-core machine a cold
      // tsc alone can pass 30 s, which says nothing about the code under test.
      { extends: true, test: { name: 'slow', include: SLOW, testTimeout: 120_000 } },
    ],
  },
});
