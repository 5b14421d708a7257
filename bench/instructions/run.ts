/**
 * The channel graph and the REST API counted in instructions per request rather than timed: what
 * observing a request costs (the request log, the request id, the HTTP and GraphQL metrics
 * and the span hooks), and where `npm start` stands against mercurius+jit and the floors (bench/graph's
 * ratios, counted one request at a time).
 *
 * On the 2-vCPU VMs this runs on, one build's CPU time per request moved from 27 to 48 µs between
 * processes and from 26 to 37 µs between windows of one process, with no GC or JIT event to tell
 * the windows apart, and whole VMs differ by 2.5× (docs/benchmarks.md): req/s cannot resolve a
 * difference of a few percent. Instructions can: each target (server.mjs) runs under valgrind's
 * callgrind with the start script's node flags, and is sent requests one at a time on one keep-alive
 * connection. After the scenario's warm-up requests its counters are zeroed, its counted requests
 * are sent, and the instructions between the two are divided by the requests: those of the main
 * (JavaScript) thread, and those of all threads. The main thread is the figure to go by: our
 * server's count repeated within ~1 % over the processes of 2026-11-27 (three or four at once; two
 * at once, within 0.4 %), mercurius+jit's moved by up to 9 %, the floor's by 5 % between runs. All
 * threads move more: under callgrind V8's helper threads are still compiling (TurboFan) in the
 * window, 25–40 % of the count, though plain node has finished optimising by then. Counts are not
 * quite independent of the load beside them (seven targets at once read ~6 % higher than two), so
 * the table takes each target's lowest over BENCH_ROUNDS: compare the targets of one run, and a
 * ratio over several rounds, not counts across runs. What callgrind does not count is the
 * kernel's part (the socket's reads and writes), which a floor pays as much as the server it floors.
 *
 * What keeps runs repeatable:
 *   - one connection: each request gets an event-loop turn to itself, as it does not under load,
 *     but the same in every run (with 10 connections runs differed by up to 2×);
 *   - `--no-memory-reducer`: under valgrind's slowness the timer-driven memory reducer shrank the
 *     young generation in some runs and not others, and those runs took twice the instructions;
 *   - BENCH_LOG_BATCH_MS out of reach: a log batch is handed over when full, as under load, not
 *     every few requests when valgrind makes the 100 ms timer come round that often.
 *
 * Scenarios (the default sandbox dataset unless said; the sandbox in the server's process, as
 * `npm start` runs it), and their targets (server.mjs):
 *   issue            — the issue query, response cache off (bench/graph's headline: every request
 *                      executed): observed, unobserved, mercurius+jit
 *   variables        — `query($p: Platform)…` with varying values, response cache off: the same three
 *   large            — tiers and their supporters over SANDBOX_PATRONS=2000 (a 221 KB answer),
 *                      response cache off, 300 requests to warm up and 100 counted: observed, mercurius+jit
 *   issue+cache      — the issue query with the response cache on (`npm start`'s default): observed
 *                      against the floor (target: "cached ≥ 0.7× the floor") and floor/headers,
 *                      and observed/br: the observed server asked for brotli (a hit in a coding, its
 *                      bytes made once, against an identity hit: "br ÷ identity", within 1.1)
 *   variables+cache  — the variables query with the response cache on: observed, unobserved
 *   rest             — GET /membership/pledges: observed, unobserved, the floor (same bytes: target
 *                      "warm REST ≥ 0.9× the floor") and floor/headers (the same bytes and headers)
 * Targets (measured, not asserted): observation ≤ 5 % of the request; ours ≥ 1.0× mercurius+jit;
 * × floor as bench/graph sets them. "× mercurius+jit" and "× floor" are the other target's instructions
 * a request over ours, as req/s compare (above 1: ours does less).
 *
 * Run: `npx tsx bench/instructions/run.ts` (needs valgrind: `apt-get install valgrind`; ~2 min per
 * process, a scenario's targets at once; ~25 min in all). BENCH_SCENARIOS=variables,rest runs only those;
 * BENCH_WARMUP and BENCH_REQUESTS override every scenario's 10,000 and 5,000 (large: 300 and 100);
 * BENCH_ROUNDS (default 1) repeats every count in a fresh process and reports the lowest and
 * highest; BENCH_CALLGRIND_DIR keeps callgrind's dumps there (for callgrind_annotate);
 * BENCH_PROFILE=30 prints, per scenario, the 30 functions whose main-thread instructions a request
 * differ most between ours (observed) and each other target, with V8's compiled JavaScript named
 * (profile.ts: node runs with `--perf-basic-prof`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request, type IncomingMessage } from 'node:http';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GRAPH_HEADERS, ISSUE_QUERY, LARGE_QUERY, nextMessage, stopTarget, VARIABLES_BODIES, VARIABLES_QUERY } from '../lib/graph-server.js';
import { formatTable, projectRoot, readStartScript, saveResults } from '../lib/index.js';
import { functionCosts, largestDifferences } from './profile.js';

/** An hour: longer than any run, within setInterval's range. */
const LOG_BATCH_OUT_OF_REACH_MS = 3_600_000;
/** The target: observation at most this share of a request. */
const OVERHEAD_TARGET = 0.05;
/** A request or a callgrind_control command taking longer has hung (none came near it on 2026-11-27, the large answer included). */
const DEADLINE_MS = 60_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
/** A directory to keep callgrind's dumps in (for callgrind_annotate); default none, they are removed. */
const keptDumps = process.env.BENCH_CALLGRIND_DIR;
/** Instructions a request of `BENCH_PROFILE` functions are printed per scenario and target (ours − it); 0, the default, prints none. */
const profiledFunctions = Number(process.env.BENCH_PROFILE ?? 0);

type TargetName = 'observed' | 'observed/br' | 'unobserved' | 'mercurius+jit' | 'floor' | 'floor/headers';

/** `observed/br` is the observed server asked for brotli: the cost of a compressed answer beside an identity one. */
const serverOf = (target: TargetName): string => (target === 'observed/br' ? 'observed' : target);
const acceptEncodingOf = (target: TargetName): string | undefined => (target === 'observed/br' ? 'br' : undefined);

interface Scenario {
  name: 'issue' | 'variables' | 'large' | 'issue+cache' | 'variables+cache' | 'rest';
  /** GRAPHQL_RESPONSE_CACHE. */
  responseCache: boolean;
  method: 'GET' | 'POST';
  path: string;
  /** Sent in turn. */
  bodies?: readonly string[];
  /** Sandbox patrons (default the sandbox's dataset). */
  patrons?: number;
  /** Requests to warm up, and counted. */
  warmup: number;
  requests: number;
  /** `observed` (ours, as `npm start` runs it) and the targets it is compared with. */
  targets: readonly TargetName[];
}

/** Requests a scenario warms up with and counts, unless BENCH_WARMUP / BENCH_REQUESTS say otherwise. */
const sized = (warmup: number, requests: number): Pick<Scenario, 'warmup' | 'requests'> => ({
  warmup: Number(process.env.BENCH_WARMUP ?? warmup),
  requests: Number(process.env.BENCH_REQUESTS ?? requests),
});
const issueBody = [JSON.stringify({ query: ISSUE_QUERY })];
const SCENARIOS: readonly Scenario[] = [
  { name: 'issue', responseCache: false, method: 'POST', path: '/graphql', bodies: issueBody, ...sized(10_000, 5_000), targets: ['observed', 'unobserved', 'mercurius+jit'] },
  { name: 'variables', responseCache: false, method: 'POST', path: '/graphql', bodies: VARIABLES_BODIES, ...sized(10_000, 5_000), targets: ['observed', 'unobserved', 'mercurius+jit'] },
  { name: 'large', responseCache: false, method: 'POST', path: '/graphql', bodies: [JSON.stringify({ query: LARGE_QUERY })], patrons: 2000, ...sized(300, 100), targets: ['observed', 'mercurius+jit'] },
  { name: 'issue+cache', responseCache: true, method: 'POST', path: '/graphql', bodies: issueBody, ...sized(10_000, 5_000), targets: ['observed', 'observed/br', 'floor', 'floor/headers'] },
  { name: 'variables+cache', responseCache: true, method: 'POST', path: '/graphql', bodies: VARIABLES_BODIES, ...sized(10_000, 5_000), targets: ['observed', 'unobserved'] },
  { name: 'rest', responseCache: false, method: 'GET', path: '/membership/pledges', ...sized(10_000, 5_000), targets: ['observed', 'unobserved', 'floor', 'floor/headers'] },
];
const selectedScenarios = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
const scenarios = SCENARIOS.filter((scenario) => selectedScenarios === undefined || selectedScenarios.includes(scenario.name));

const run = promisify(execFile);
const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'server.mjs');

/** Sends `count` requests of the scenario one after another on one keep-alive connection; each must answer 200. */
async function send(url: string, scenario: Scenario, count: number, acceptEncoding: string | undefined): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(scenario.path, url);
  try {
    for (let i = 0; i < count; i += 1) {
      const body = scenario.bodies?.[i % scenario.bodies.length];
      const headers = { ...(acceptEncoding !== undefined && { 'accept-encoding': acceptEncoding }), ...(body !== undefined && { ...GRAPH_HEADERS, 'content-length': Buffer.byteLength(body) }) };
      const outgoing = request(target, { method: scenario.method, agent, headers });
      outgoing.setTimeout(DEADLINE_MS, () => outgoing.destroy(new Error(`${scenario.name}: no answer from ${target.href} within ${DEADLINE_MS} ms`)));
      outgoing.end(body);
      const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
      response.resume();
      await once(response, 'end');
      if (response.statusCode !== 200) throw new Error(`${scenario.name}: HTTP ${response.statusCode} from ${target.href}`);
      if (response.headers['content-encoding'] !== acceptEncoding) throw new Error(`${scenario.name}: asked for ${acceptEncoding ?? 'no coding'}, got ${response.headers['content-encoding'] ?? 'none'}`);
    }
  } finally {
    agent.destroy();
  }
}

/** Where node writes its code objects under `--perf-basic-prof` (valgrind runs node in its own process: same pid). */
const perfMapOf = (child: ChildProcess): string => `/tmp/perf-${child.pid}.map`;

/** callgrind_control's command on the process (`-z` zeroes the counters, `-d` dumps them). */
async function callgrindControl(command: '-z' | '-d', child: ChildProcess): Promise<void> {
  await run('callgrind_control', [command, String(child.pid)], { timeout: DEADLINE_MS });
}

/** Instructions per request of one target in a fresh process: of all its threads, and of its main (JavaScript) thread. */
interface Count {
  all: number;
  main: number;
  /** The main thread's instructions a request by function (BENCH_PROFILE only). */
  functions?: Map<string, number>;
}

async function countInstructions(startFlags: readonly string[], target: TargetName, scenario: Scenario): Promise<Count> {
  const outDir = await mkdtemp(join(keptDumps ?? tmpdir(), `bench-instructions-${scenario.name}-${target.replace('/', '-')}-`));
  const child = spawn(
    'valgrind',
    ['-q', '--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(outDir, 'callgrind.out')}`, process.execPath, ...startFlags, '--no-memory-reducer', ...(profiledFunctions > 0 ? ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(outDir, 'v8.log')}`] : []), SERVER, serverOf(target)],
    {
      env: {
        ...process.env,
        BENCH_RESPONSE_CACHE: String(scenario.responseCache),
        BENCH_LOG_BATCH_MS: String(LOG_BATCH_OUT_OF_REACH_MS),
        BENCH_REQUEST: JSON.stringify({ method: scenario.method, path: scenario.path, body: scenario.bodies?.[0] }),
        ...(scenario.patrons !== undefined && { BENCH_SANDBOX_PATRONS: String(scenario.patrons) }),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  try {
    const { url } = await nextMessage<{ url: string }>(child);
    await send(url, scenario, scenario.warmup, acceptEncodingOf(target));
    await callgrindControl('-z', child);
    await send(url, scenario, scenario.requests, acceptEncodingOf(target));
    await callgrindControl('-d', child);
    // One dump per thread: callgrind.out.1-01 (the main thread), -02…
    const dumps = (await readdir(outDir)).filter((name) => /^callgrind\.out\.1-\d+$/.test(name)).sort();
    if (dumps.length === 0) throw new Error(`callgrind wrote no dump in ${outDir}`);
    const totals = await Promise.all(
      dumps.map(async (name) => {
        const summary = /^summary: (\d+)/m.exec(await readFile(join(outDir, name), 'utf8'))?.[1];
        if (summary === undefined) throw new Error(`no summary line in ${join(outDir, name)}`);
        return Number(summary);
      }),
    );
    const functions = profiledFunctions > 0 ? await functionCosts(join(outDir, dumps[0] as string), perfMapOf(child), scenario.requests) : undefined;
    return { all: totals.reduce((sum, total) => sum + total, 0) / scenario.requests, main: (totals[0] as number) / scenario.requests, ...(functions && { functions }) };
  } finally {
    await stopTarget(child);
    if (keptDumps === undefined) await rm(outDir, { recursive: true, force: true });
    if (profiledFunctions > 0) await rm(perfMapOf(child), { force: true });
  }
}

try {
  await run('valgrind', ['--version']);
} catch {
  console.error('bench/instructions needs valgrind (apt-get install valgrind)');
  process.exit(1);
}
// The servers run on dist/: built as `npm start` builds it (only when a source is newer).
await run(process.execPath, [join(projectRoot, 'scripts/build.mjs'), '--if-stale'], { cwd: projectRoot });

const startFlags = (await readStartScript()).nodeFlags;
const counts = new Map<string, Count[]>();
for (let round = 1; round <= rounds; round += 1) {
  for (const scenario of scenarios) {
    // The targets of a scenario at once (up to four on two cores), so that what runs beside them is the same for all.
    const figures = await Promise.all(scenario.targets.map((target) => countInstructions(startFlags, target, scenario)));
    const ours = figures[0] as Count;
    scenario.targets.forEach((target, i) => {
      const count = figures[i] as Count;
      const key = `${scenario.name} ${target}`;
      counts.set(key, [...(counts.get(key) ?? []), count]);
      console.log(`round ${round}: ${key}: ${Math.round(count.all)} instructions a request (main thread ${Math.round(count.main)})`);
      if (i === 0 || ours.functions === undefined || count.functions === undefined) return;
      console.log(`round ${round}: ${scenario.name}: main thread, observed − ${target}, instructions a request by function (the ${profiledFunctions} largest differences):`);
      for (const { name, difference } of largestDifferences(ours.functions, count.functions, profiledFunctions)) console.log(`${String(difference).padStart(8)}  ${name}`);
    });
  }
}

/** The lowest and highest over the rounds of one target's count (all threads, or the main one); undefined for a target the scenario does not run. */
function range(scenario: Scenario, target: TargetName, thread: 'all' | 'main'): { lowest: number; highest: number } | undefined {
  const values = counts.get(`${scenario.name} ${target}`)?.map((count) => count[thread]);
  return values === undefined ? undefined : { lowest: Math.round(Math.min(...values)), highest: Math.round(Math.max(...values)) };
}
/** The other target's instructions over ours (lowest counts): as req/s compare, above 1 means ours does less. */
const times = (other: { lowest: number } | undefined, ours: { lowest: number }): number | undefined => (other === undefined ? undefined : Number((other.lowest / ours.lowest).toFixed(3)));
const rows = scenarios.flatMap((scenario) =>
  (['all', 'main'] as const).map((thread) => {
    const observed = range(scenario, 'observed', thread) as { lowest: number; highest: number };
    const inBrotli = range(scenario, 'observed/br', thread);
    const unobserved = range(scenario, 'unobserved', thread);
    const mercurius = range(scenario, 'mercurius+jit', thread);
    const floor = range(scenario, 'floor', thread);
    const floorWithHeaders = range(scenario, 'floor/headers', thread);
    return {
      scenario: scenario.name,
      responseCache: scenario.responseCache,
      threads: thread,
      observed,
      ...(inBrotli && { inBrotli, brotliOverIdentity: Number((inBrotli.lowest / observed.lowest).toFixed(3)) }),
      ...(unobserved && {
        unobserved,
        overheadInstructions: observed.lowest - unobserved.lowest,
        overhead: Number(((observed.lowest - unobserved.lowest) / unobserved.lowest).toFixed(4)),
      }),
      ...(mercurius && { mercurius, timesMercurius: times(mercurius, observed) }),
      ...(floor && { floor, timesFloor: times(floor, observed) }),
      ...(floorWithHeaders && { floorWithHeaders, timesFloorWithHeaders: times(floorWithHeaders, observed) }),
    };
  }),
);
console.log(`\ninstructions a request (callgrind; lowest of ${rounds} process(es) each); node flags: ${startFlags.join(' ')} --no-memory-reducer\n`);
const shown = (range: { lowest: number; highest: number } | undefined): string => (range === undefined ? '' : `${range.lowest}${rounds > 1 ? ` (≤ ${range.highest})` : ''}`);
const fixed = (value: number | undefined): string => (value === undefined ? '' : value.toFixed(2));
console.log(
  formatTable(
    ['scenario', 'threads', 'ours', 'ours in br', 'br ÷ identity', 'unobserved', 'observation', `share (≤ ${OVERHEAD_TARGET * 100} %)`, 'mercurius+jit', '× mercurius', 'floor', '× floor', 'floor/headers', '× floor/headers'],
    rows.map((row) => [
      row.scenario,
      row.threads,
      shown(row.observed),
      shown(row.inBrotli),
      fixed(row.brotliOverIdentity),
      shown(row.unobserved),
      row.overheadInstructions === undefined ? '' : String(row.overheadInstructions),
      row.overhead === undefined ? '' : `${(row.overhead * 100).toFixed(1)} %`,
      shown(row.mercurius),
      fixed(row.timesMercurius),
      shown(row.floor),
      fixed(row.timesFloor),
      shown(row.floorWithHeaders),
      fixed(row.timesFloorWithHeaders),
    ]),
  ),
);
console.log(
  `saved ${await saveResults('instructions', {
    queries: { issue: ISSUE_QUERY, variables: VARIABLES_QUERY, large: LARGE_QUERY },
    requests: Object.fromEntries(scenarios.map((scenario) => [scenario.name, { warmup: scenario.warmup, counted: scenario.requests }])),
    rounds,
    nodeFlags: [...startFlags, '--no-memory-reducer'],
    overheadTarget: OVERHEAD_TARGET,
    rows,
  })}`,
);
