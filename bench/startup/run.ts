/**
 * bench/startup: time from `npm start` to the first answer of `GET /healthz`, in a copy of the
 * project (sandbox mode, a free port), polled every 10 ms from the spawn:
 *
 * - `npm start`, built tree: what an operator waits for on every start (prestart finds dist/ current);
 * - `node dist/src/main.js`: the same server without npm and the staleness check (the floor);
 * - `npm start` after a source file was touched: prestart rebuilds first (what every start cost
 *   before the check, when prestart always ran the build);
 * - `npm start` with no dist/: the first start of a fresh clone after `npm ci` (target ≤ 5 s on a
 *   quiet machine).
 * Each row also gives the 1-minute load average at its last run (2 vCPU: 2 is a busy machine).
 *
 *   npx tsx bench/startup/run.ts          (ROUNDS overrides the default 7; REBUILD_ROUNDS the default 2
 *                                          for each of the two rows that build)
 */
import { rm, utimes } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { npmStart, startService } from '../../test/support/npm-start.js';
import { copyProject, formatTable, ratio, readStartScript, saveResults } from '../lib/index.js';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const REBUILD_ROUNDS = Number(process.env.REBUILD_ROUNDS ?? 2);

const copy = await copyProject();
const startScript = await readStartScript();

/** `node dist/src/main.js` directly, timed the same way. */
async function nodeStart(): Promise<number> {
  const server = await startService(process.execPath, [...startScript.nodeFlags, startScript.entry], copy.dir);
  await server.stop();
  return server.firstAnswerMs;
}

async function npmStartOnce(expectBuild: boolean): Promise<number> {
  const server = await npmStart(copy.dir, { timeoutMs: 600_000 });
  await server.stop();
  const built = server.output().includes('building dist/');
  if (built !== expectBuild) throw new Error(`npm start ${built ? 'rebuilt' : 'did not rebuild'} unexpectedly:\n${server.output()}`);
  return server.firstAnswerMs;
}

function stats(values: number[]): { medianMs: number; minMs: number; maxMs: number; runs: number; load: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    load: Math.round(loadavg()[0]! * 100) / 100,
    medianMs: Math.round(((sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? Number.NaN)) / 2),
    minMs: Math.round(sorted[0] ?? Number.NaN),
    maxMs: Math.round(sorted[sorted.length - 1] ?? Number.NaN),
    runs: sorted.length,
  };
}

try {
  const build = await copy.npmRun('build');
  if (build.exitCode !== 0) throw new Error(`npm run build failed:\n${build.output}`);

  const built: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Interleaved, so that load from elsewhere on the machine weighs on both alike.
    built.push(await npmStartOnce(false));
    floor.push(await nodeStart());
  }
  const builtRow = stats(built);
  const floorRow = stats(floor);
  const rebuilt: number[] = [];
  for (let round = 0; round < REBUILD_ROUNDS; round += 1) {
    const now = new Date();
    await utimes(join(copy.dir, 'src/app.ts'), now, now);
    rebuilt.push(await npmStartOnce(true));
  }
  const rebuiltRow = stats(rebuilt);
  const fresh: number[] = [];
  for (let round = 0; round < REBUILD_ROUNDS; round += 1) {
    await rm(join(copy.dir, 'dist'), { recursive: true, force: true });
    fresh.push(await npmStartOnce(true));
  }

  const rows = {
    'npm start, built tree': builtRow,
    'node dist/src/main.js (floor)': floorRow,
    'npm start after a source changed (rebuilds)': rebuiltRow,
    'npm start, no dist/ (fresh clone after npm ci)': stats(fresh),
  };
  const floorMedian = rows['node dist/src/main.js (floor)'].medianMs;
  console.log(
    formatTable(
      ['start → first answer of /healthz', 'median ms', 'min ms', 'max ms', 'runs', '× floor (median)', 'load'],
      Object.entries(rows).map(([name, row]) => [
        name,
        String(row.medianMs),
        String(row.minMs),
        String(row.maxMs),
        String(row.runs),
        ratio(row.medianMs, floorMedian).toFixed(2),
        String(row.load),
      ]),
    ),
  );
  console.log(`\nsaved to ${await saveResults('startup', { rounds: ROUNDS, rebuildRounds: REBUILD_ROUNDS, rows })}`);
} finally {
  await copy.remove();
}
