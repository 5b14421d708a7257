/**
 * The channel graph under load (issue 5, "Benchmarks"): the query over the default sandbox
 * dataset (40 patrons of whom the active ones, 15 video members), requests/s and p99 of
 *   ours          — the whole app (createChannelApp) at /graphql, default settings but the response
 *                   cache off: every request parsed, validated, limited and executed (graphql-jit)
 *   ours/unobserved — ours without the request log and the request metrics (LOG_LEVEL=silent):
 *                   ours / ours/unobserved is the cost of logging + metrics (issue 12 target ≤ 5%)
 *   ours/no-jit   — the same with GRAPHQL_JIT=false (graphql-js execution): decides the JIT default
 *   ours/start    — ours as `npm start` runs it: compiled by tsc (into a temp dir) and run by plain
 *                   node with the V8 flags of package.json's start script — the RSS figure that counts
 *   ours+cache    — default settings: the response cache on
 *   mercurius+jit — fastify + mercurius (jit from the first request) on the same SDL, resolvers and store
 *   yoga/fixed-bytes — yoga answering the same bytes from its first hook: its HTTP adapter's cost alone
 *   floor         — raw node:http answering the same JSON bytes
 * and the RSS of each server process idle and at its peak under load. Every target runs in its own process
 * (bench/graph/server.ts; under tsx except ours/start); autocannon runs in a third (bench/lib/load.ts).
 * Targets (measured, not asserted): ours ≥ 1.0× mercurius; ours+cache ≥ 0.7× floor; RSS < 150 MB.
 * Run: `npx tsx bench/graph/run.ts` (BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS override
 * 4 s / 10 / 3: each target gets three interleaved rounds and keeps its median; BENCH_TARGETS=a,b
 * runs only those targets besides ours, the ratios to absent targets are then NaN).
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../../src/sandbox/index.js';
import { formatTable, ratio, runLoad, saveResults, type LoadResult } from '../lib/index.js';
import { projectRoot } from '../lib/index.js';

const QUERY = '{ supporters { __typename id name amountCents tier { title } ... on Patron { lifetimeCents } } }';
const requestBody = JSON.stringify({ query: QUERY });
const headers = { 'content-type': 'application/json', accept: 'application/json' };
const durationSeconds = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGETS = ['ours', 'ours/unobserved', 'ours/no-jit', 'ours/start', 'ours+cache', 'mercurius+jit', 'yoga/fixed-bytes', 'floor'] as const;
type TargetName = (typeof TARGETS)[number];
const selected = process.env.BENCH_TARGETS?.split(',').map((name) => name.trim());
const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));

/** The node flags of package.json's `start` script (e.g. `--max-semi-space-size=8`). */
async function startScriptFlags(): Promise<string[]> {
  const { scripts } = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return (scripts.start ?? '').split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * bench/graph/server.ts and everything it imports compiled by tsc into a temp dir (dist/ is left
 * alone), with node_modules and schema/ linked beside it, so ours/start runs without tsx's loader.
 */
async function compileServer(): Promise<{ file: string; remove(): Promise<void> }> {
  const outDir = await mkdtemp(join(tmpdir(), 'bench-graph-compiled-'));
  const config = {
    extends: join(projectRoot, 'tsconfig.build.json'),
    compilerOptions: { rootDir: projectRoot, outDir, declaration: false, sourceMap: false, inlineSources: false },
    include: [],
    files: [join(projectRoot, 'bench/graph/server.ts')],
  };
  await writeFile(join(outDir, 'tsconfig.json'), JSON.stringify(config));
  await Promise.all(['node_modules', 'schema'].map((name) => symlink(join(projectRoot, name), join(outDir, name))));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(outDir, 'tsconfig.json')], { cwd: projectRoot });
  return { file: join(outDir, 'bench/graph/server.js'), remove: () => rm(outDir, { recursive: true, force: true }) };
}

interface RunningTarget {
  name: TargetName;
  url: string;
  child: ChildProcess;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`target process exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

async function startTarget(name: TargetName, env: NodeJS.ProcessEnv): Promise<RunningTarget> {
  const [file, execArgv] = name === 'ours/start' ? [compiled.file, startFlags] : [SERVER, ['--import', 'tsx']];
  const child = fork(file, [name], { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url } = await nextMessage<{ url: string }>(child);
  return { name, url, child };
}

async function memory(target: RunningTarget): Promise<{ idleRssMb: number; peakRssMb: number }> {
  const reply = nextMessage<{ idleRss: number; peakRss: number }>(target.child);
  target.child.send('rss');
  const { idleRss, peakRss } = await reply;
  return { idleRssMb: Math.round(idleRss / 2 ** 20), peakRssMb: Math.round(peakRss / 2 ** 20) };
}

async function postQuery(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body: requestBody });
  if (!response.ok) throw new Error(`${baseUrl}: HTTP ${response.status}`);
  return response.text();
}

const startFlags = await startScriptFlags();
const compiled = await compileServer();
const sandbox = await startSandbox();
const sandboxEnv = { BENCH_SANDBOX: JSON.stringify({ url: sandbox.url, credentials: sandbox.credentials }) };
const running: RunningTarget[] = [];
const rows: Array<{ name: TargetName; result: LoadResult; idleRssMb: number; peakRssMb: number }> = [];
try {
  const reference = await startTarget('ours', sandboxEnv);
  running.push(reference);
  const body = await postQuery(reference.url);
  const supporters = (JSON.parse(body) as { data: { supporters: unknown[] } }).data.supporters.length;
  for (const name of TARGETS.filter((target) => target !== 'ours' && (selected === undefined || selected.includes(target)))) {
    running.push(await startTarget(name, { ...sandboxEnv, BENCH_FLOOR_BODY: body }));
  }
  for (const target of running) {
    const answer = await postQuery(target.url);
    if (JSON.stringify(JSON.parse(answer)) !== JSON.stringify(JSON.parse(body))) throw new Error(`${target.name} answers ${answer.slice(0, 200)}…, expected ${body.slice(0, 200)}…`);
    target.child.send('reset-rss');
  }

  const samples = new Map<TargetName, LoadResult[]>(TARGETS.map((name) => [name, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const target of running) {
      const result = await runLoad({ url: `${target.url}/graphql`, method: 'POST', body: requestBody, headers, connections, durationSeconds, warmupSeconds: round === 1 ? 2 : 1 });
      samples.get(target.name)?.push(result);
      console.log(`round ${round}/${rounds} ${target.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms`);
    }
  }
  for (const target of running) {
    const sorted = (samples.get(target.name) ?? []).sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const median = sorted[Math.floor(sorted.length / 2)];
    if (median) rows.push({ name: target.name, result: median, ...(await memory(target)) });
  }
  rows.sort((a, b) => TARGETS.indexOf(a.name) - TARGETS.indexOf(b.name));

  const rps = (name: TargetName): number => rows.find((row) => row.name === name)?.result.requestsPerSecond ?? Number.NaN;
  console.log(`\nissue query over the default sandbox dataset (${supporters} supporters, ${body.length} bytes), ${connections} connections, median of ${rounds} rounds of ${durationSeconds} s\n`);
  console.log(
    formatTable(
      ['target', 'req/s', 'p50 ms', 'p99 ms', '× mercurius+jit', '× floor', 'idle RSS MB', 'peak RSS MB'],
      rows.map((row) => [
        row.name,
        row.result.requestsPerSecond.toFixed(0),
        row.result.p50Ms.toFixed(1),
        row.result.p99Ms.toFixed(1),
        ratio(row.result.requestsPerSecond, rps('mercurius+jit')).toFixed(2),
        ratio(row.result.requestsPerSecond, rps('floor')).toFixed(2),
        String(row.idleRssMb),
        String(row.peakRssMb),
      ]),
    ),
  );
  const rss = (name: TargetName): number | undefined => rows.find((row) => row.name === name)?.peakRssMb;
  const targets = {
    oursVsMercurius: { ratio: ratio(rps('ours'), rps('mercurius+jit')), target: 1.0 },
    observedVsUnobserved: { ratio: ratio(rps('ours'), rps('ours/unobserved')), target: 0.95, meaning: 'request log + metrics on / off' },
    jitVsNoJit: { ratio: ratio(rps('ours'), rps('ours/no-jit')), decides: 'GRAPHQL_JIT default: on only if > 1' },
    cachedVsFloor: { ratio: ratio(rps('ours+cache'), rps('floor')), target: 0.7 },
    yogaAdapterVsFloor: { ratio: ratio(rps('yoga/fixed-bytes'), rps('floor')), meaning: 'ceiling of any server behind yoga' },
    startPeakRssMb: { value: rss('ours/start'), target: 150, nodeFlags: startFlags.join(' '), throughputVsOurs: ratio(rps('ours/start'), rps('ours')) },
    tsxPeakRssMb: { value: rss('ours'), meaning: 'the same server under tsx (npm run dev / tests)' },
  };
  console.log(
    `\nours / ours/unobserved = ${targets.observedVsUnobserved.ratio} (logging + metrics cost, target ≥ 0.95); ours / mercurius+jit = ${targets.oursVsMercurius.ratio} (target ≥ 1.0); ours / ours/no-jit = ${targets.jitVsNoJit.ratio}; yoga/fixed-bytes / floor = ${targets.yogaAdapterVsFloor.ratio}; ` +
      `ours+cache / floor = ${targets.cachedVsFloor.ratio} (target ≥ 0.7); peak RSS as npm start runs it (node ${startFlags.join(' ')}, compiled) = ` +
      `${rss('ours/start')} MB (target < 150) at ${targets.startPeakRssMb.throughputVsOurs}× the throughput of ours; under tsx ${rss('ours')} MB`,
  );
  console.log(`saved ${await saveResults('graph', { query: QUERY, supporters, responseBytes: body.length, connections, durationSeconds, rounds, rows, targets })}`);
} finally {
  for (const target of running) target.child.disconnect();
  await sandbox.close();
  await compiled.remove();
}
