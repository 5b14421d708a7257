/**
 * bench/channel: the channel data API.
 * 1. Cold fetch of 10,000 patrons (10 pages of 1,000) from the sandbox through the real adapter and
 *    token keeper: wall time and peak RSS, measured in a child process of its own.
 * 2. Warm `GET /membership/pledges` of the whole app against the raw node:http floor serving the
 *    same bytes (bench/lib), default dataset and 10,000 patrons: req/s, p99, ratio (target ≥ 0.5×).
 * 3. Snapshot memory for 100,000 patrons: retained heap after a full GC, and its JSON size on disk.
 *
 * The app and the floor are loaded in alternating rounds and each figure is the median of its
 * rounds, so a neighbour's burst of CPU on a shared machine hits both sides alike.
 *
 *   npx tsx bench/channel/run.ts        (ROUNDS, default 3; DURATION seconds per load run, default 5)
 */
import { execFile } from 'node:child_process';
import { rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createChannelApp } from '../../src/app.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { formatLoadTable, formatTable, ratio, runLoad, saveResults, startFloorServer, type LoadResult, type Row } from '../lib/index.js';
import { createLogger } from '../../src/observability/logger.js';

const DURATION = Number(process.env.DURATION ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const run = promisify(execFile);
const quiet = createLogger({ level: 'error' });

interface FetchFigures {
  supporters: number;
  wallMs: number;
  rssBeforeMb: number;
  peakRssMb: number;
  retainedHeapMb: number;
  snapshotJsonMb: number;
}

/** Cold fetch of `patrons` members in a child process; the sandbox serves from this one. */
async function coldFetch(patrons: number): Promise<FetchFigures & { pages: number; patrons: number }> {
  const sandbox = await startSandbox({ patrons });
  try {
    const script = fileURLToPath(new URL('./fetch-snapshot.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      env: { ...process.env, SANDBOX_URL: sandbox.url },
      maxBuffer: 1024 * 1024,
    });
    const stats = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: { members: number } };
    return { patrons, pages: stats.requests.members, ...(JSON.parse(stdout.trim()) as FetchFigures) };
  } finally {
    await sandbox.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median of each figure over the rounds; counts are summed. */
function medianResult(results: LoadResult[]): LoadResult {
  const sum = (pick: (result: LoadResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  return {
    requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
    p50Ms: median(results.map((result) => result.p50Ms)),
    p99Ms: median(results.map((result) => result.p99Ms)),
    requests: sum((result) => result.requests),
    bytesRead: sum((result) => result.bytesRead),
    non2xx: sum((result) => result.non2xx),
    errors: sum((result) => result.errors),
  };
}

/** Warm GETs of the app against the floor serving the same bytes, in alternating rounds. */
async function warmGets(patrons: number): Promise<{ patrons: number; bodyBytes: number; rows: Row[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-channel-'));
  const app = await createChannelApp(
    { port: 0, host: '127.0.0.1', dataDir, refreshIntervalSeconds: 0, upstream: { mode: 'sandbox' }, graph: { ...DEFAULT_GRAPH_SETTINGS } },
    { logger: quiet, sandbox: { patrons } },
  );
  try {
    const url = `${app.url}/membership/pledges`;
    const body = Buffer.from(await (await fetch(url)).arrayBuffer());
    const floor = await startFloorServer({ body });
    try {
      const options = { durationSeconds: DURATION, connections: 10, warmupSeconds: 1 };
      const rounds: { app: LoadResult[]; floor: LoadResult[] } = { app: [], floor: [] };
      for (let round = 0; round < ROUNDS; round += 1) {
        rounds.app.push(await runLoad({ url, ...options }));
        rounds.floor.push(await runLoad({ url: floor.url, ...options }));
      }
      const rows: Row[] = [
        { name: `app GET /membership/pledges (${patrons} patrons)`, result: medianResult(rounds.app) },
        { name: 'node:http floor, same bytes', result: medianResult(rounds.floor) },
      ];
      return { patrons, bodyBytes: body.length, rows };
    } finally {
      await floor.close();
    }
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const cold = await coldFetch(10_000);
console.log('\nCold fetch of the membership snapshot from the sandbox (child process)');
const fetchTable = (figures: typeof cold) => [
  `${figures.patrons}`,
  `${figures.supporters}`,
  `${figures.pages}`,
  `${figures.wallMs}`,
  `${figures.rssBeforeMb}`,
  `${figures.peakRssMb}`,
  `${figures.retainedHeapMb}`,
  `${Math.round((figures.retainedHeapMb * 1024 * 1024) / figures.supporters)}`,
  `${figures.snapshotJsonMb}`,
];
const big = await coldFetch(100_000);
console.log(
  formatTable(
    ['patrons (all statuses)', 'active in snapshot', 'pages', 'wall ms', 'RSS before MB', 'peak RSS MB', 'snapshot heap MB', 'heap B/supporter', 'snapshot JSON MB'],
    [fetchTable(cold), fetchTable(big)],
  ),
);

const warm = [await warmGets(40), await warmGets(10_000)];
for (const { patrons, bodyBytes, rows } of warm) {
  console.log(`\nWarm GET /membership/pledges, ${patrons} patrons, ${bodyBytes} bytes (autocannon, 10 connections, median of ${ROUNDS} alternating ${DURATION}s rounds)`);
  console.log(formatLoadTable(rows, ['node:http floor, same bytes']));
}

const file = await saveResults('channel', {
  coldFetch10k: cold,
  snapshot100k: big,
  warmGets: warm.map(({ patrons, bodyBytes, rows }) => ({
    patrons,
    bodyBytes,
    rows,
    ratioToFloor: ratio(rows[0]!.result.requestsPerSecond, rows[1]!.result.requestsPerSecond),
    target: 0.5,
  })),
});
console.log(`\nsaved ${file}`);
