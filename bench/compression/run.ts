/**
 * Compressed answers (docs/operating.md, "Compressed answers"): bytes on the wire and requests/s of each coding
 * against identity, in the same run, on the answers that matter:
 *   issue            — the issue query over the default sandbox (a 6 KB answer), response cache off:
 *                      a prepared answer, compressed for every request at the fast level
 *   issue/cache-hit  — the same query as a response-cache hit: compressed once, then ready bytes
 *   rest             — warm GET /membership/pledges (4 KB): compressed once per snapshot
 *   large            — tiers with their supporters over SANDBOX_PATRONS=2000 (~220 KB), cache off:
 *                      compressed for every request on the thread pool (over 64 KiB)
 *   large/cache-hit  — the same as a response-cache hit
 *   large, rest at SANDBOX_PATRONS=10000 — the 1 MB answer and the 1 MB supporters list
 * Codings: identity (no Accept-Encoding: what every client that asks for nothing gets), gzip, br, and
 * zstd where the running node has it. Expected: the 1 MB list an order of magnitude smaller; a cache
 * hit in a coding within 10 % of an identity hit (its bytes are made once).
 *
 * The servers are bench/graph's `ours` (what `npm start` runs, the response cache off) and `ours+cache`
 * (the default response cache on), compiled and run by plain node with the start script's flags, each
 * in its own process, started afresh every round; autocannon in another (bench/lib/load.ts). Rounds
 * are interleaved (every other one in reverse order); each row keeps its median, and each coding's
 * req/s ÷ identity is printed round by round with its lowest and highest: on a shared machine the
 * ratio within a round is the figure to read. Bytes on the wire per response are autocannon's bytes
 * read over its responses (heads included); the body bytes are one answer's, decoded with node's zlib
 * and checked against the identity answer before anything is measured.
 *
 * Run: `npx tsx bench/compression/run.ts`. BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS /
 * BENCH_SETTLE override 4 s / 10 / 3 / 5 s; BENCH_SCENARIOS=issue,rest runs only those scenarios.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import zlib from 'node:zlib';
import { zlibCodings, type ContentCoding } from '../../src/lib/compression.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { compileGraphServer, GRAPH_HEADERS, ISSUE_QUERY, LARGE_QUERY, nextMessage, stopTarget } from '../lib/graph-server.js';
import { formatTable, ratio, readStartScript, runLoad, saveResults, type LoadResult } from '../lib/index.js';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const settleSeconds = Number(process.env.BENCH_SETTLE ?? 5);
const selectedScenarios = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());

type Coding = 'identity' | ContentCoding;
const CODINGS: readonly Coding[] = ['identity', 'gzip', 'br', ...(zlibCodings().includes('zstd') ? (['zstd'] as const) : [])];
type TargetName = 'ours' | 'ours+cache';

interface Scenario {
  name: 'issue' | 'issue/cache-hit' | 'rest' | 'large' | 'large/cache-hit';
  patrons: number | undefined;
  target: TargetName;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** A 1 MB answer: a longer warm-up (ten connections' first answers take seconds) and twice the measured time. */
  slow?: true;
}

const issue = JSON.stringify({ query: ISSUE_QUERY });
const large = JSON.stringify({ query: LARGE_QUERY });
const SCENARIOS: readonly Scenario[] = [
  { name: 'issue', patrons: undefined, target: 'ours', method: 'POST', path: '/graphql', body: issue },
  { name: 'issue/cache-hit', patrons: undefined, target: 'ours+cache', method: 'POST', path: '/graphql', body: issue },
  { name: 'rest', patrons: undefined, target: 'ours', method: 'GET', path: '/membership/pledges' },
  { name: 'large', patrons: 2000, target: 'ours', method: 'POST', path: '/graphql', body: large },
  { name: 'large/cache-hit', patrons: 2000, target: 'ours+cache', method: 'POST', path: '/graphql', body: large },
  { name: 'large', patrons: 10_000, target: 'ours', method: 'POST', path: '/graphql', body: large, slow: true },
  { name: 'rest', patrons: 10_000, target: 'ours', method: 'GET', path: '/membership/pledges', slow: true },
].filter((scenario) => selectedScenarios === undefined || selectedScenarios.includes(scenario.name)) as Scenario[];

const zstdDecompressSync = (zlib as typeof zlib & { zstdDecompressSync?: (buffer: Buffer) => Buffer }).zstdDecompressSync;
const DECODE: Record<Coding, (bytes: Buffer) => Buffer> = {
  identity: (bytes) => bytes,
  gzip: zlib.gunzipSync,
  br: zlib.brotliDecompressSync,
  zstd: (bytes) => (zstdDecompressSync as (buffer: Buffer) => Buffer)(bytes),
};

/** What a load sends: no Accept-Encoding for identity, as a client that asks for nothing. */
function headersOf(scenario: Scenario, coding: Coding): Record<string, string> {
  return { ...(scenario.body === undefined ? {} : GRAPH_HEADERS), ...(coding === 'identity' ? {} : { 'accept-encoding': coding }) };
}

/** One answer over node:http, its body as it came over the wire. */
function fetchRaw(url: string, scenario: Scenario, coding: Coding): Promise<{ encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}${scenario.path}`, { method: scenario.method, headers: headersOf(scenario, coding) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`${scenario.name} ${coding}: HTTP ${response.statusCode ?? '?'}`));
        else resolve({ encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(scenario.body);
  });
}

/**
 * The body bytes of each coding, after checking that each decodes to the identity answer (twice
 * each: a cache-hit scenario's first answers are misses, kept from the second on).
 */
async function verifiedBodyBytes(url: string, scenario: Scenario): Promise<Record<Coding, number>> {
  const sizes: Partial<Record<Coding, number>> = {};
  let identity: Buffer | undefined;
  for (const coding of CODINGS) {
    for (let repeat = 0; repeat < 3; repeat += 1) {
      const { encoding, body } = await fetchRaw(url, scenario, coding);
      const expected = coding === 'identity' ? undefined : coding;
      if (encoding !== expected) throw new Error(`${scenario.name}: asked for ${coding}, got Content-Encoding ${encoding ?? 'none'}`);
      const decoded = DECODE[coding](body);
      identity ??= decoded;
      if (!decoded.equals(identity)) throw new Error(`${scenario.name}: the ${coding} answer does not decode to the identity answer`);
      sizes[coding] = body.length;
    }
  }
  return sizes as Record<Coding, number>;
}

interface RunningTarget {
  name: TargetName;
  url: string;
  child: ChildProcess;
}

async function startTarget(file: string, name: TargetName, env: NodeJS.ProcessEnv, execArgv: string[]): Promise<RunningTarget> {
  const child = fork(file, [name], { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url } = await nextMessage<{ url: string }>(child);
  return { name, url, child };
}

async function cpuMicros(target: RunningTarget): Promise<number> {
  const reply = nextMessage<{ cpuMicros: number }>(target.child);
  target.child.send('cpu');
  return (await reply).cpuMicros;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

type Measured = LoadResult & { cpuMicrosPerRequest: number; wireBytesPerResponse: number };

interface Row {
  dataset: string;
  scenario: Scenario['name'];
  coding: Coding;
  bodyBytes: number;
  result: Measured;
}

const datasetOf = (patrons: number | undefined): string => (patrons === undefined ? 'default sandbox' : `SANDBOX_PATRONS=${patrons}`);
const keyOf = (scenario: Scenario, coding: Coding): string => `${datasetOf(scenario.patrons)} ${scenario.name} ${coding}`;

const startFlags = (await readStartScript()).nodeFlags;
const compiled = await compileGraphServer();
const rows: Row[] = [];
/** Each coding's req/s ÷ identity's in the same round, by `<dataset> <scenario> <coding>`. */
const roundRatios = new Map<string, number[]>();
try {
  for (const patrons of [...new Set(SCENARIOS.map((scenario) => scenario.patrons))]) {
    const group = SCENARIOS.filter((scenario) => scenario.patrons === patrons);
    const sandbox = await startSandbox(patrons === undefined ? {} : { patrons });
    const env = { BENCH_SANDBOX: JSON.stringify({ url: sandbox.url, credentials: sandbox.credentials }) };
    const samples = new Map<string, Measured[]>();
    const bodyBytes = new Map<string, number>();
    try {
      for (let round = 1; round <= rounds; round += 1) {
        const running = new Map<TargetName, RunningTarget>();
        try {
          for (const name of new Set(group.map((scenario) => scenario.target))) running.set(name, await startTarget(compiled.file, name, env, startFlags));
          for (const scenario of group) {
            const sizes = await verifiedBodyBytes((running.get(scenario.target) as RunningTarget).url, scenario);
            for (const coding of CODINGS) bodyBytes.set(keyOf(scenario, coding), sizes[coding]);
          }
          await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
          const loads = group.flatMap((scenario) => CODINGS.map((coding) => ({ scenario, coding })));
          if (round % 2 === 0) loads.reverse();
          const warmed = new Set<TargetName>();
          for (const { scenario, coding } of loads) {
            const target = running.get(scenario.target) as RunningTarget;
            const load = { url: `${target.url}${scenario.path}`, method: scenario.method, headers: headersOf(scenario, coding), ...(scenario.body !== undefined && { bodies: [scenario.body] }), connections, warmupSeconds: 0 };
            await runLoad({ ...load, durationSeconds: (warmed.has(target.name) ? 1 : 2) + (scenario.slow ? 3 : 0) });
            warmed.add(target.name);
            const before = await cpuMicros(target);
            const measured = await runLoad({ ...load, durationSeconds: scenario.slow ? 2 * durationSeconds : durationSeconds });
            const result: Measured = { ...measured, cpuMicrosPerRequest: ((await cpuMicros(target)) - before) / measured.requests, wireBytesPerResponse: measured.bytesRead / measured.requests };
            const key = keyOf(scenario, coding);
            samples.set(key, [...(samples.get(key) ?? []), result]);
            console.log(`round ${round}/${rounds} ${key}: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.wireBytesPerResponse.toFixed(0)} B/response, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/request`);
          }
        } finally {
          await Promise.all([...running.values()].map((target) => stopTarget(target.child)));
        }
      }
    } finally {
      await sandbox.close();
    }
    for (const scenario of group) {
      const identity = samples.get(keyOf(scenario, 'identity')) ?? [];
      for (const coding of CODINGS) {
        const measured = samples.get(keyOf(scenario, coding)) ?? [];
        if (coding !== 'identity') roundRatios.set(keyOf(scenario, coding), measured.map((sample, index) => ratio(sample.requestsPerSecond, identity[index]?.requestsPerSecond ?? Number.NaN)));
        const middle = [...measured].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(measured.length / 2)];
        if (middle === undefined) continue;
        rows.push({
          dataset: datasetOf(patrons),
          scenario: scenario.name,
          coding,
          bodyBytes: bodyBytes.get(keyOf(scenario, coding)) ?? Number.NaN,
          result: { ...middle, cpuMicrosPerRequest: median(measured.map((sample) => sample.cpuMicrosPerRequest)), wireBytesPerResponse: median(measured.map((sample) => sample.wireBytesPerResponse)) },
        });
      }
    }
  }

  const identityOf = (row: Row): Row | undefined => rows.find((other) => other.dataset === row.dataset && other.scenario === row.scenario && other.coding === 'identity');
  console.log(`\n${connections} connections, median of ${rounds} interleaved rounds of ${durationSeconds} s, each in fresh processes; node flags: ${startFlags.join(' ') || '(none)'}\n`);
  console.log(
    formatTable(
      ['dataset', 'scenario', 'coding', 'body B', 'wire B/resp', 'identity ÷ wire', 'req/s', '× identity', 'p50 ms', 'p99 ms', 'CPU µs/req'],
      rows.map((row) => {
        const identity = identityOf(row);
        return [
          row.dataset,
          row.scenario,
          row.coding,
          String(row.bodyBytes),
          row.result.wireBytesPerResponse.toFixed(0),
          ratio(identity?.result.wireBytesPerResponse ?? Number.NaN, row.result.wireBytesPerResponse).toFixed(2),
          row.result.requestsPerSecond.toFixed(0),
          ratio(row.result.requestsPerSecond, identity?.result.requestsPerSecond ?? Number.NaN).toFixed(2),
          row.result.p50Ms.toFixed(1),
          row.result.p99Ms.toFixed(1),
          row.result.cpuMicrosPerRequest.toFixed(0),
        ];
      }),
    ),
  );
  const spread = [...roundRatios].map(([key, ratios]) => {
    const sorted = [...ratios].sort((a, b) => a - b);
    return { key, ratios, lowest: sorted[0] ?? Number.NaN, median: median(sorted), highest: sorted.at(-1) ?? Number.NaN };
  });
  console.log(`\n${formatTable(
    ['dataset scenario coding', 'req/s ÷ identity, round by round', 'lowest', 'median', 'highest'],
    spread.map(({ key, ratios, lowest, median: middle, highest }) => [key, ratios.map((value) => value.toFixed(2)).join(' '), lowest.toFixed(2), middle.toFixed(2), highest.toFixed(2)]),
  )}`);

  const row = (dataset: string, scenario: Scenario['name'], coding: Coding): Row | undefined => rows.find((candidate) => candidate.dataset === dataset && candidate.scenario === scenario && candidate.coding === coding);
  const smaller = (dataset: string, scenario: Scenario['name'], coding: Coding): number => ratio(row(dataset, scenario, 'identity')?.bodyBytes ?? Number.NaN, row(dataset, scenario, coding)?.bodyBytes ?? Number.NaN);
  const targets = {
    millionBytesList: {
      meaning: 'identity body ÷ compressed body of the 1 MB supporters list (SANDBOX_PATRONS=10000, GET /membership/pledges)',
      identityBytes: row('SANDBOX_PATRONS=10000', 'rest', 'identity')?.bodyBytes,
      ...Object.fromEntries(CODINGS.filter((coding) => coding !== 'identity').map((coding) => [coding, smaller('SANDBOX_PATRONS=10000', 'rest', coding)])),
      target: 10,
    },
    cacheHitVsIdentityHit: {
      meaning: 'req/s of a response-cache hit in a coding ÷ an identity hit, round by round (the issue query, default sandbox)',
      ...Object.fromEntries(spread.filter(({ key }) => key.startsWith('default sandbox issue/cache-hit')).map(({ key, lowest, median: middle, highest }) => [key.split(' ').at(-1), { lowest, median: middle, highest }])),
      target: 0.9,
    },
  };
  console.log(`\n${JSON.stringify(targets, null, 2)}`);
  console.log(`saved ${await saveResults('compression', { queries: { issue: ISSUE_QUERY, large: LARGE_QUERY }, codings: CODINGS, connections, durationSeconds, rounds, nodeFlags: startFlags, rows, roundRatios: Object.fromEntries(roundRatios), targets })}`);
} finally {
  await compiled.remove();
}
