/**
 * `npm run bench:report`: the figures tables of the docs and the benchmarks' charts, written from
 * `bench/results/*.json` (scripts/bench-report/: the results' shapes, the tables, the charts). It
 * rewrites each `<!-- bench-report:<name> -->` region of README.md and docs/*.md and each chart
 * under docs/charts/. `--check` writes nothing and exits 1 naming every file that differs from what
 * the results give (test/foundation/docs.test.ts runs the same check).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { renderReport, staleFiles } from './bench-report/report.js';

const root = resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
const files = await renderReport(root);
const stale = await staleFiles(root, files);
if (check) {
  for (const path of stale) console.error(`${path}: differs from what bench/results/ gives; run npm run bench:report`);
  if (stale.length > 0) process.exit(1);
  console.log(`${files.size} files agree with bench/results/`);
} else {
  for (const path of stale) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), files.get(path) ?? '');
    console.log(`wrote ${path}`);
  }
  if (stale.length === 0) console.log(`${files.size} files already agree with bench/results/`);
}
