/**
 * The channel graph and the REST API counted in instructions per request rather than timed: what
 * each optimisation the graph keeps is worth (graphql-jit, the document cache, the response cache,
 * its ETag/304 and its kept codings, the start script's V8 flags), what observing a request costs
 * (the request log, the request id, the HTTP and GraphQL metrics and the span hooks), and where
 * `npm start` stands against mercurius+jit and the floors (bench/graph's ratios, counted one request
 * at a time).
 *
 * On the 2-vCPU VMs this runs on, one build's CPU time per request moved from 27 to 48 µs between
 * processes and from 26 to 37 µs between windows of one process, with no GC or JIT event to tell
 * the windows apart, and whole VMs differ by 2.5× (docs/benchmarks.md): req/s cannot resolve a
 * difference of a few percent. Instructions can: each target (server.mjs) runs under valgrind's
 * callgrind with the start script's node flags, and is sent requests one at a time on one keep-alive
 * connection. After the scenario's warm-up requests its counters are zeroed, its counted requests
 * are sent, and the instructions between the two are divided by the requests: those of the main
 * (JavaScript) thread, and those of all threads. The main thread is the figure to go by: a server's
 * count repeats within ~1 % over processes; all threads move more (under callgrind V8's helper
 * threads are still compiling in the window). Counts are not quite independent of the load beside
 * them, so the table takes each target's lowest over BENCH_ROUNDS: compare the targets of one run,
 * and a ratio over several rounds, not counts across runs. What callgrind does not count is the
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
 *   issue            — the issue query, response cache off (every request executed): observed,
 *                      default-flags, unobserved, yoga+jit, mercurius+jit, and bare, bare/no-jit,
 *                      bare/no-document-cache (what graphql-jit and the document cache are worth)
 *   variables        — `query($p: Platform)…` with varying values, response cache off: observed,
 *                      default-flags, unobserved, yoga+jit, mercurius+jit
 *   large            — tiers and their supporters over SANDBOX_PATRONS=2000 (a 221 KB answer),
 *                      response cache off, 300 requests to warm up and 100 counted: observed,
 *                      default-flags, yoga+jit, mercurius+jit, bare, bare/no-jit
 *   issue+cache      — the issue query with the response cache on (`npm start`'s default): observed,
 *                      default-flags, unobserved, yoga+jit+cache, observed/304 (revalidating with the answer's ETag),
 *                      observed/br (asked for brotli: a hit in a coding, its bytes made once), the
 *                      floor and floor/headers
 *   variables+cache  — the variables query with the response cache on: observed, unobserved, yoga+jit+cache
 *   large+cache      — the large answer with the response cache on: observed, observed/br, yoga+jit+cache
 *   rest             — GET /membership/pledges: observed, unobserved, the floor (same bytes: target
 *                      "warm REST ≥ 0.9× the floor") and floor/headers (the same bytes and headers)
 * Targets (measured, not asserted): observation ≤ 5 % of the request. An optimisation's gain is the
 * instructions a request its absence adds, beside the lines of source it takes.
 *
 * Run: `npx tsx bench/instructions/run.ts` (needs valgrind: `apt-get install valgrind`; ~2 min per
 * process, at most four at once; ~40 min in all). BENCH_SCENARIOS=variables,rest runs only those
 * scenarios, BENCH_TARGETS=unobserved,floor only those targets besides observed;
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
/** A request or a callgrind_control command taking longer has hung (under callgrind, four processes at once beside other jobs, a first request has taken over a minute). */
const DEADLINE_MS = 300_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
/** A directory to keep callgrind's dumps in (for callgrind_annotate); default none, they are removed. */
const keptDumps = process.env.BENCH_CALLGRIND_DIR;
/** Instructions a request of `BENCH_PROFILE` functions are printed per scenario and target (ours − it); 0, the default, prints none. */
const profiledFunctions = Number(process.env.BENCH_PROFILE ?? 0);

type TargetName =
  | 'observed' | 'observed/br' | 'observed/304' | 'default-flags' | 'unobserved'
  | 'bare' | 'bare/no-jit' | 'bare/no-document-cache' | 'yoga+jit' | 'yoga+jit+cache' | 'mercurius+jit' | 'floor' | 'floor/headers';

/** The targets that are the observed server asked otherwise, or started otherwise. */
const serverOf = (target: TargetName): string => (target === 'observed/br' || target === 'observed/304' || target === 'default-flags' ? 'observed' : target);
/** `observed/br` asks for brotli: the cost of a compressed answer beside an identity one. */
const acceptEncodingOf = (target: TargetName): string | undefined => (target === 'observed/br' ? 'br' : undefined);
/** `default-flags`: V8's defaults, to tell whether the start script's flags pay. */
const nodeFlagsOf = (target: TargetName, startFlags: readonly string[]): readonly string[] => (target === 'default-flags' ? [] : startFlags);

interface Scenario {
  name: 'issue' | 'variables' | 'large' | 'issue+cache' | 'variables+cache' | 'large+cache' | 'rest';
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
const largeBody = [JSON.stringify({ query: LARGE_QUERY })];
const SCENARIOS: readonly Scenario[] = [
  { name: 'issue', responseCache: false, method: 'POST', path: '/graphql', bodies: issueBody, ...sized(10_000, 5_000), targets: ['observed', 'default-flags', 'unobserved', 'yoga+jit', 'mercurius+jit', 'bare', 'bare/no-jit', 'bare/no-document-cache'] },
  { name: 'variables', responseCache: false, method: 'POST', path: '/graphql', bodies: VARIABLES_BODIES, ...sized(10_000, 5_000), targets: ['observed', 'default-flags', 'unobserved', 'yoga+jit', 'mercurius+jit'] },
  { name: 'large', responseCache: false, method: 'POST', path: '/graphql', bodies: largeBody, patrons: 2000, ...sized(300, 100), targets: ['observed', 'default-flags', 'yoga+jit', 'mercurius+jit', 'bare', 'bare/no-jit'] },
  { name: 'issue+cache', responseCache: true, method: 'POST', path: '/graphql', bodies: issueBody, ...sized(10_000, 5_000), targets: ['observed', 'default-flags', 'unobserved', 'yoga+jit+cache', 'observed/304', 'observed/br', 'floor', 'floor/headers'] },
  { name: 'variables+cache', responseCache: true, method: 'POST', path: '/graphql', bodies: VARIABLES_BODIES, ...sized(10_000, 5_000), targets: ['observed', 'unobserved', 'yoga+jit+cache'] },
  { name: 'large+cache', responseCache: true, method: 'POST', path: '/graphql', bodies: largeBody, patrons: 2000, ...sized(1_000, 500), targets: ['observed', 'observed/br', 'yoga+jit+cache'] },
  { name: 'rest', responseCache: false, method: 'GET', path: '/membership/pledges', ...sized(10_000, 5_000), targets: ['observed', 'unobserved', 'floor', 'floor/headers'] },
];
/** Processes under callgrind at once (two cores). */
const AT_ONCE = 4;
const selectedScenarios = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
const selectedTargets = process.env.BENCH_TARGETS?.split(',').map((name) => name.trim());
const scenarios = SCENARIOS.filter((scenario) => selectedScenarios === undefined || selectedScenarios.includes(scenario.name)).map((scenario) => ({
  ...scenario,
  targets: scenario.targets.filter((target) => target === 'observed' || selectedTargets === undefined || selectedTargets.includes(target)),
}));

const run = promisify(execFile);
const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'server.mjs');

/**
 * Sends `count` requests of the scenario one after another on one keep-alive connection; each must
 * answer 200, or 304 when it sends `ifNoneMatch`. Gives the last answer's ETag.
 */
async function send(url: string, scenario: Scenario, count: number, acceptEncoding: string | undefined, ifNoneMatch?: string): Promise<string | undefined> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(scenario.path, url);
  let etag: string | undefined;
  try {
    for (let i = 0; i < count; i += 1) {
      const body = scenario.bodies?.[i % scenario.bodies.length];
      const headers = {
        ...(acceptEncoding !== undefined && { 'accept-encoding': acceptEncoding }),
        ...(ifNoneMatch !== undefined && { 'if-none-match': ifNoneMatch }),
        ...(body !== undefined && { ...GRAPH_HEADERS, 'content-length': Buffer.byteLength(body) }),
      };
      const outgoing = request(target, { method: scenario.method, agent, headers });
      outgoing.setTimeout(DEADLINE_MS, () => outgoing.destroy(new Error(`${scenario.name}: no answer from ${target.href} within ${DEADLINE_MS} ms`)));
      outgoing.end(body);
      const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
      response.resume();
      await once(response, 'end');
      const expected = ifNoneMatch === undefined ? 200 : 304;
      if (response.statusCode !== expected) throw new Error(`${scenario.name}: HTTP ${response.statusCode} from ${target.href}, expected ${expected}`);
      if (expected === 200 && response.headers['content-encoding'] !== acceptEncoding) throw new Error(`${scenario.name}: asked for ${acceptEncoding ?? 'no coding'}, got ${response.headers['content-encoding'] ?? 'none'}`);
      etag = response.headers.etag;
    }
  } finally {
    agent.destroy();
  }
  return etag;
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
    ['-q', '--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(outDir, 'callgrind.out')}`, process.execPath, ...nodeFlagsOf(target, startFlags), '--no-memory-reducer', ...(profiledFunctions > 0 ? ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(outDir, 'v8.log')}`] : []), SERVER, serverOf(target)],
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
    const etag = await send(url, scenario, scenario.warmup, acceptEncodingOf(target));
    // observed/304: a client revalidating the answer it holds (the warm-up's last, a kept one).
    const ifNoneMatch = target === 'observed/304' ? etag : undefined;
    if (target === 'observed/304' && etag === undefined) throw new Error(`${scenario.name}: the answer has no ETag to revalidate with`);
    await send(url, scenario, Math.min(10, scenario.warmup), acceptEncodingOf(target), ifNoneMatch);
    await callgrindControl('-z', child);
    await send(url, scenario, scenario.requests, acceptEncodingOf(target), ifNoneMatch);
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
/** Runs `tasks` with at most AT_ONCE of them at a time, in order; their results in order. */
async function atMost<T>(tasks: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, tasks.length) }, worker));
  return results;
}

const counts = new Map<string, Count[]>();
for (let round = 1; round <= rounds; round += 1) {
  for (const scenario of scenarios) {
    // A scenario's targets together (AT_ONCE at a time), so that what runs beside them is much the same for all.
    const figures = await atMost(scenario.targets.map((target) => () => countInstructions(startFlags, target, scenario)));
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

type Range = { lowest: number; highest: number };
/** The lowest and highest over the rounds of one target's main-thread count; undefined for a target the scenario does not run. */
function range(scenario: Scenario['name'], target: TargetName, thread: 'all' | 'main' = 'main'): Range | undefined {
  const values = counts.get(`${scenario} ${target}`)?.map((count) => count[thread]);
  return values === undefined ? undefined : { lowest: Math.round(Math.min(...values)), highest: Math.round(Math.max(...values)) };
}
const rows = scenarios.flatMap((scenario) =>
  (['main', 'all'] as const).map((thread) => ({
    scenario: scenario.name,
    responseCache: scenario.responseCache,
    threads: thread,
    targets: Object.fromEntries(scenario.targets.map((target) => [target, range(scenario.name, target, thread) as Range])),
  })),
);

/** Lines of a source file, as `wc -l` counts them. */
async function linesOf(path: string): Promise<number> {
  return (await readFile(join(projectRoot, path), 'utf8')).split('\n').length - 1;
}
/**
 * What each optimisation is worth, on the main thread: the instructions a request without it (a
 * target, in a scenario) minus those with it, and that as a share of the request without it.
 */
const OPTIMISATIONS = [
  { name: 'graphql-jit (speed/jit.ts)', source: 'src/graphql/speed/jit.ts', pairs: [['issue', 'bare/no-jit', 'issue', 'bare'], ['large', 'bare/no-jit', 'large', 'bare']] },
  { name: 'document cache (speed/document-cache.ts), graphql-jit off', source: 'src/graphql/speed/document-cache.ts', pairs: [['issue', 'bare/no-document-cache', 'issue', 'bare/no-jit']] },
  { name: 'response cache (speed/response-cache.ts)', source: 'src/graphql/speed/response-cache.ts', pairs: [['issue', 'observed', 'issue+cache', 'observed'], ['large', 'observed', 'large+cache', 'observed']] },
  { name: 'ETag/304 on a kept answer (in response-cache.ts)', source: undefined, pairs: [['issue+cache', 'observed', 'issue+cache', 'observed/304']] },
  { name: "the start script's V8 flags (package.json)", source: undefined, pairs: [['issue', 'default-flags', 'issue', 'observed'], ['variables', 'default-flags', 'variables', 'observed'], ['large', 'default-flags', 'large', 'observed'], ['issue+cache', 'default-flags', 'issue+cache', 'observed']] },
] as const;
const gains = [];
for (const optimisation of OPTIMISATIONS) {
  for (const [withoutScenario, withoutTarget, withScenario, withTarget] of optimisation.pairs) {
    const without = range(withoutScenario, withoutTarget);
    const withIt = range(withScenario, withTarget);
    if (without === undefined || withIt === undefined) continue;
    gains.push({
      optimisation: optimisation.name,
      lines: optimisation.source === undefined ? null : await linesOf(optimisation.source),
      without: `${withoutScenario} ${withoutTarget}`,
      with: `${withScenario} ${withTarget}`,
      saved: without.lowest - withIt.lowest,
      share: Number(((without.lowest - withIt.lowest) / without.lowest).toFixed(4)),
    });
  }
}
/** Observation's cost: observed over unobserved, where a scenario runs both. */
const observation = scenarios.flatMap((scenario) => {
  const observed = range(scenario.name, 'observed');
  const unobserved = range(scenario.name, 'unobserved');
  if (observed === undefined || unobserved === undefined) return [];
  return [{ scenario: scenario.name, instructions: observed.lowest - unobserved.lowest, share: Number(((observed.lowest - unobserved.lowest) / unobserved.lowest).toFixed(4)) }];
});

const shown = (value: Range | undefined): string => (value === undefined ? '' : `${value.lowest}${rounds > 1 ? ` (≤ ${value.highest})` : ''}`);
const targetNames = [...new Set(scenarios.flatMap((scenario) => scenario.targets))];
console.log(`\ninstructions a request (callgrind; lowest of ${rounds} process(es) each); node flags: ${startFlags.join(' ')} --no-memory-reducer\n`);
console.log(formatTable(['scenario', 'threads', ...targetNames], rows.map((row) => [row.scenario, row.threads, ...targetNames.map((target) => shown(row.targets[target]))])));
console.log(`\n${formatTable(['optimisation', 'lines', 'without', 'with', 'instructions saved a request', 'share'], gains.map((gain) => [gain.optimisation, gain.lines === null ? '' : String(gain.lines), gain.without, gain.with, String(gain.saved), `${(gain.share * 100).toFixed(1)} %`]))}`);
console.log(`\n${formatTable(['scenario', 'observation', `share (≤ ${OVERHEAD_TARGET * 100} %)`], observation.map((row) => [row.scenario, String(row.instructions), `${(row.share * 100).toFixed(1)} %`]))}`);
console.log(
  `saved ${await saveResults('instructions', {
    queries: { issue: ISSUE_QUERY, variables: VARIABLES_QUERY, large: LARGE_QUERY },
    requests: Object.fromEntries(scenarios.map((scenario) => [scenario.name, { warmup: scenario.warmup, counted: scenario.requests }])),
    rounds,
    nodeFlags: [...startFlags, '--no-memory-reducer'],
    overheadTarget: OVERHEAD_TARGET,
    rows,
    gains,
    observation,
  })}`,
);
