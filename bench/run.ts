/**
 * `npm run bench [-- name…]`: runs every `bench/<name>/run.ts` (or only the named ones) one after
 * another, each in its own process so that no benchmark warms up or slows down the next. Each prints
 * its table and saves `bench/results/<name>.json`; this prints which ones passed and exits non-zero
 * if any failed. The docs' figures are written from those files by `npm run bench:report`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const tsx = join(benchDir, '..', 'node_modules', '.bin', 'tsx');

const available = readdirSync(benchDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(benchDir, entry.name, 'run.ts')))
  .map((entry) => entry.name)
  .sort();
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
const selected = requested.length > 0 ? requested : available;

function runOne(name: string): Promise<{ name: string; exitCode: number; seconds: number }> {
  const started = performance.now();
  console.log(`\n=== bench/${name} ===`);
  return new Promise((resolve) => {
    const child = spawn(tsx, [join(benchDir, name, 'run.ts')], { stdio: 'inherit' });
    child.on('exit', (code, signal) =>
      resolve({ name, exitCode: code ?? (signal ? 1 : 0), seconds: Math.round((performance.now() - started) / 1000) }),
    );
  });
}

const outcomes = [];
for (const name of selected) outcomes.push(await runOne(name));

console.log('\n=== summary ===');
for (const { name, exitCode, seconds } of outcomes) {
  console.log(`${exitCode === 0 ? 'ok    ' : 'FAILED'} bench/${name} (${seconds} s)${exitCode === 0 ? ` → bench/results/${name}.json` : ''}`);
}
if (outcomes.some((outcome) => outcome.exitCode === 0)) console.log('npm run bench:report writes the tables and charts of docs/benchmarks.md from them');
if (outcomes.some((outcome) => outcome.exitCode !== 0)) process.exitCode = 1;
