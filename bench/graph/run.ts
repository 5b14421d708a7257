/**
 * The channel graph under load, as shipped: requests/s, p50, p99 and peak RSS
 * of each server process, ratios taken in the same run. Every server runs compiled (tsc, into a temp
 * dir) by plain node in its own process; autocannon runs in another (bench/lib/load.ts).
 *
 * Targets:
 *   ours              — what `npm start` runs (the headline): the whole app (createChannelApp) with
 *                       the node flags of package.json's start script, production settings (limits,
 *                       masking, document cap, request log + metrics on) but the response cache off,
 *                       so every request is parsed (or found in the document cache), validated,
 *                       limited and executed (graphql-jit)
 *   ours/no-jit       — ablation: GRAPHQL_JIT=false (graphql-js execution)
 *   ours/no-limits    — ablation: without the token, depth, alias, directive and cost limits
 *   ours/no-prepared  — ablation: every request through yoga's pipeline (no prepared operations)
 *   ours/default-flags — ablation: ours without the start script's node flags (V8 defaults)
 *   ours/unobserved   — ablation: without the request log and the request metrics (CHANNEL_APP_PARTS without `observation`)
 *   ours+cache        — the default response cache on (issue query only)
 *   mercurius+jit     — fastify + mercurius (jit from the first request) on the same SDL, resolvers and store
 *   yoga/fixed-bytes  — yoga answering the same bytes from its first hook: its HTTP adapter alone (issue query only)
 *   floor             — raw node:http answering the same JSON bytes (issue query only)
 * Scenarios:
 *   issue      — the issue query over the default sandbox dataset (40 patrons)
 *   variables  — `query($p: Platform)…` with $p MEMBERSHIP, VIDEO, null in turn, same dataset
 *   large      — tiers with their supporters, over SANDBOX_PATRONS=2000 (an answer > 100 KB)
 *   rest       — warm GET /membership/pledges of ours, against floor/rest (the same bytes)
 * Targets (measured, not asserted): ours ≥ 1.0× mercurius+jit (stretch 1.3×) with p99 ≤ mercurius's
 * on issue, variables and large; peak RSS ≤ 150 MB; ours+cache ≥ 0.7× floor; rest ≥ 0.9× floor/rest.
 *
 * Run: `npx tsx bench/graph/run.ts`. BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS override
 * 4 s / 10 / 3 (rounds are interleaved: every load of a round, then the next round, each round in
 * server processes started afresh and every other one in reverse order; each row keeps its median,
 * and each ablation's ratio to ours is also printed round by round, with its lowest and highest);
 * BENCH_SETTLE overrides the 10 s a round's servers idle between their start and the first load;
 * BENCH_TARGETS=a,b runs only those targets besides ours (ratios to absent ones are NaN); BENCH_SCENARIOS=issue,large runs only those
 * scenarios. BENCH_RATE=8000 sends a fixed number of
 * requests per second instead of as many as the server answers: every target then answers the same
 * requests at the same pace, req/s and its ratios say nothing, and "CPU µs/req" is the figure — on
 * 2 cores, where server and load generator share the CPU, it resolves differences of a few µs that
 * req/s at saturation does not (e.g. BENCH_RATE=8000 BENCH_SCENARIOS=variables
 * BENCH_TARGETS=ours/unobserved for the cost of observation; a target that cannot keep up shows
 * fewer req/s than the rate).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { startSandbox } from '../../src/sandbox/index.js';
import { compileGraphServer, GRAPH_HEADERS, ISSUE_QUERY, LARGE_QUERY, nextMessage, stopTarget, VARIABLES_BODIES, VARIABLES_QUERY } from '../lib/graph-server.js';
import { formatTable, ratio, readStartScript, runLoad, saveResults, type LoadResult } from '../lib/index.js';

const LARGE_DATASET_PATRONS = 2000;

const durationSeconds = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const overallRate = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
const settleSeconds = Number(process.env.BENCH_SETTLE ?? 10);

type TargetName =
  | 'ours' | 'ours/no-jit' | 'ours/no-limits' | 'ours/no-prepared' | 'ours/default-flags' | 'ours/unobserved' | 'ours+cache'
  | 'mercurius+jit' | 'yoga/fixed-bytes' | 'floor' | 'floor/rest';
const ABLATIONS: readonly TargetName[] = ['ours/no-jit', 'ours/no-limits', 'ours/no-prepared', 'ours/default-flags', 'ours/unobserved'];
const GRAPH_TARGETS: readonly TargetName[] = ['ours', ...ABLATIONS, 'mercurius+jit'];

interface Scenario {
  name: 'issue' | 'variables' | 'large' | 'rest';
  /** Sandbox patrons of the dataset the scenario runs on (undefined: the default). */
  patrons?: number;
  method: 'GET' | 'POST';
  path: string;
  /** Sent in turn on every connection. */
  bodies?: readonly string[];
  targets: readonly TargetName[];
  /** The target whose answers every other target must give (and whose bytes a floor answers). */
  reference: TargetName;
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'issue', method: 'POST', path: '/graphql', bodies: [JSON.stringify({ query: ISSUE_QUERY })], reference: 'ours',
    targets: [...GRAPH_TARGETS, 'ours+cache', 'yoga/fixed-bytes', 'floor'],
  },
  {
    name: 'variables', method: 'POST', path: '/graphql', reference: 'ours', targets: GRAPH_TARGETS,
    bodies: VARIABLES_BODIES,
  },
  { name: 'rest', method: 'GET', path: '/membership/pledges', reference: 'ours', targets: ['ours', 'floor/rest'] },
  { name: 'large', patrons: LARGE_DATASET_PATRONS, method: 'POST', path: '/graphql', bodies: [JSON.stringify({ query: LARGE_QUERY })], reference: 'ours', targets: GRAPH_TARGETS },
];

const selectedTargets = process.env.BENCH_TARGETS?.split(',').map((name) => name.trim());
const selectedScenarios = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
const isSelected = (target: TargetName): boolean => target === 'ours' || selectedTargets === undefined || selectedTargets.includes(target);
const scenarios = SCENARIOS.filter((scenario) => selectedScenarios === undefined || selectedScenarios.includes(scenario.name));

interface RunningTarget {
  name: TargetName;
  url: string;
  child: ChildProcess;
}

/** The start script's flags for ours and its ablations (but the one that measures their absence); none for the others. */
function nodeFlagsOf(name: TargetName): string[] {
  return name.startsWith('ours') && name !== 'ours/default-flags' ? startFlags : [];
}

async function startTarget(name: TargetName, env: NodeJS.ProcessEnv): Promise<RunningTarget> {
  const child = fork(compiled.file, [name], { execArgv: nodeFlagsOf(name), env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url } = await nextMessage<{ url: string }>(child);
  return { name, url, child };
}

async function memory(target: RunningTarget): Promise<{ idleRssMb: number; peakRssMb: number }> {
  const reply = nextMessage<{ idleRss: number; peakRss: number }>(target.child);
  target.child.send('rss');
  const { idleRss, peakRss } = await reply;
  return { idleRssMb: Math.round(idleRss / 2 ** 20), peakRssMb: Math.round(peakRss / 2 ** 20) };
}

/** CPU time (user + system, µs) the target's process has used so far. */
async function cpuMicros(target: RunningTarget): Promise<number> {
  const reply = nextMessage<{ cpuMicros: number }>(target.child);
  target.child.send('cpu');
  return (await reply).cpuMicros;
}

async function answer(baseUrl: string, scenario: Scenario, body: string | undefined): Promise<string> {
  const response = await fetch(`${baseUrl}${scenario.path}`, { method: scenario.method, ...(body !== undefined && { headers: GRAPH_HEADERS, body }) });
  if (!response.ok) throw new Error(`${baseUrl}${scenario.path}: HTTP ${response.status}`);
  return response.text();
}

/** An answer as compared between targets: every server process fetched its own snapshots, at its own time. */
function comparable(answer: string): string {
  return JSON.stringify(JSON.parse(answer)).replace(/"fetchedAt":"[^"]*"/g, '"fetchedAt":""');
}

/**
 * A load's figures plus the server process's CPU time per request over the measured window: on a
 * machine shared with other jobs req/s moves with what the neighbours do, CPU per request much less.
 */
type MeasuredLoad = LoadResult & { cpuMicrosPerRequest: number };

interface Row {
  scenario: Scenario['name'];
  target: TargetName;
  result: MeasuredLoad;
  responseBytes: number;
}

/** The median of a non-empty list. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Every target of a dataset's scenarios, started afresh: `ours` first (its answers are the
 * reference every other target must give, and the bytes a floor answers with), each checked
 * against it, then their RSS reset (started, data loaded, one request answered).
 */
async function startGroup(group: readonly Scenario[], sandboxEnv: NodeJS.ProcessEnv): Promise<{ running: Map<TargetName, RunningTarget>; referenceAnswers: Map<Scenario, string[]> }> {
  const running = new Map<TargetName, RunningTarget>();
  try {
    running.set('ours', await startTarget('ours', sandboxEnv));
    const reference = running.get('ours') as RunningTarget;
    const referenceAnswers = new Map<Scenario, string[]>();
    for (const scenario of group) referenceAnswers.set(scenario, await Promise.all((scenario.bodies ?? [undefined]).map((body) => answer(reference.url, scenario, body))));
    for (const scenario of group) {
      for (const name of scenario.targets.filter(isSelected)) {
        if (running.has(name)) continue;
        // Only the fixed-bytes targets get the bytes (an environment variable is limited to 128 KiB).
        const fixedBytes = name.startsWith('floor') || name === 'yoga/fixed-bytes' ? { BENCH_FLOOR_BODY: referenceAnswers.get(scenario)?.[0] ?? '' } : {};
        running.set(name, await startTarget(name, { ...sandboxEnv, ...fixedBytes }));
      }
    }
    for (const scenario of group) {
      const expected = referenceAnswers.get(scenario) ?? [];
      for (const name of scenario.targets.filter(isSelected)) {
        const target = running.get(name) as RunningTarget;
        const answers = await Promise.all((scenario.bodies ?? [undefined]).map((body) => answer(target.url, scenario, body)));
        answers.forEach((got, i) => {
          if (comparable(got) !== comparable(expected[i] ?? 'null')) throw new Error(`${scenario.name}: ${name} answers ${got.slice(0, 200)}…`);
        });
      }
    }
    for (const target of running.values()) target.child.send('reset-rss');
    return { running, referenceAnswers };
  } catch (error) {
    await Promise.all([...running.values()].map((target) => stopTarget(target.child)));
    throw error;
  }
}

const startFlags = (await readStartScript()).nodeFlags;
const compiled = await compileGraphServer();
const rows: Row[] = [];
/**
 * Each ablation's req/s ÷ ours in every round, by `<scenario> <ablation>`: the two measured in the
 * same round, one after the other, each in a fresh process. The spread of these says how far one
 * round's pair can be trusted; the ratio of the medians alone does not.
 */
const roundRatios = new Map<string, number[]>();
const memoryRows: Array<{ dataset: string; target: TargetName; idleRssMb: number; peakRssMb: number; peakRssMaxMb: number }> = [];
try {
  // Per dataset, its scenarios are measured in interleaved rounds. Every round starts every target
  // afresh: two processes of the same target have differed by up to 15 µs per request (docs/benchmarks.md,
  // "Why two measures"), so a row's median is over as many processes as rounds, not over loads of one.
  for (const patrons of [...new Set(scenarios.map((scenario) => scenario.patrons))]) {
    const group = scenarios.filter((scenario) => scenario.patrons === patrons);
    const dataset = patrons === undefined ? 'default sandbox' : `SANDBOX_PATRONS=${patrons}`;
    const sandbox = await startSandbox(patrons === undefined ? {} : { patrons });
    const sandboxEnv = { BENCH_SANDBOX: JSON.stringify({ url: sandbox.url, credentials: sandbox.credentials }) };
    const samples = new Map<string, MeasuredLoad[]>();
    const memories = new Map<TargetName, Array<{ idleRssMb: number; peakRssMb: number }>>();
    let responseBytes = new Map<Scenario, number>();
    try {
      for (let round = 1; round <= rounds; round += 1) {
        const { running, referenceAnswers } = await startGroup(group, sandboxEnv);
        // Freshly started processes keep compiling and collecting for seconds (V8's memory reducer
        // runs ~8 s after start): the first loads of a round then ran beside nine such neighbours.
        await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
        responseBytes = new Map(group.map((scenario) => [scenario, Math.max(...(referenceAnswers.get(scenario) ?? []).map((text) => Buffer.byteLength(text)))]));
        try {
          // Every other round runs the loads in reverse order: a machine that slows down or speeds up
          // within a round then favours no target (one run of four minutes has gone from 35,000 to
          // 43,000 requests/s of the floor).
          const loads = group.flatMap((scenario) => scenario.targets.filter(isSelected).map((name) => ({ scenario, name })));
          if (round % 2 === 0) loads.reverse();
          const warmed = new Set<TargetName>();
          for (const { scenario, name } of loads) {
            const target = running.get(name) as RunningTarget;
            const load = {
              url: `${target.url}${scenario.path}`,
              method: scenario.method,
              ...(scenario.bodies !== undefined && { headers: GRAPH_HEADERS, bodies: scenario.bodies }),
              connections,
              warmupSeconds: 0,
              ...(overallRate !== undefined && { overallRate }),
            };
            // A fresh process: its first load warms it up longer.
            await runLoad({ ...load, durationSeconds: warmed.has(name) ? 1 : 2 });
            warmed.add(name);
            const cpuBefore = await cpuMicros(target);
            const measured = await runLoad({ ...load, durationSeconds });
            const result = { ...measured, cpuMicrosPerRequest: Math.round((await cpuMicros(target)) - cpuBefore) / measured.requests };
            const key = `${scenario.name} ${name}`;
            samples.set(key, [...(samples.get(key) ?? []), result]);
            console.log(`round ${round}/${rounds} ${key}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/request`);
          }
          for (const target of running.values()) memories.set(target.name, [...(memories.get(target.name) ?? []), await memory(target)]);
        } finally {
          await Promise.all([...running.values()].map((target) => stopTarget(target.child)));
        }
      }
    } finally {
      await sandbox.close();
    }
    for (const scenario of group) {
      const ours = samples.get(`${scenario.name} ours`) ?? [];
      for (const name of ABLATIONS) {
        const ablated = samples.get(`${scenario.name} ${name}`);
        if (ablated !== undefined) roundRatios.set(`${scenario.name} ${name}`, ablated.map((sample, index) => ratio(sample.requestsPerSecond, ours[index]?.requestsPerSecond ?? Number.NaN)));
      }
      for (const name of scenario.targets.filter(isSelected)) {
        const sorted = (samples.get(`${scenario.name} ${name}`) ?? []).sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
        const middle = sorted[Math.floor(sorted.length / 2)];
        const cpu = median(sorted.map((sample) => sample.cpuMicrosPerRequest));
        if (middle) rows.push({ scenario: scenario.name, target: name, result: { ...middle, cpuMicrosPerRequest: cpu }, responseBytes: responseBytes.get(scenario) ?? Number.NaN });
      }
    }
    for (const [target, measured] of memories) {
      const peaks = measured.map((sample) => sample.peakRssMb);
      memoryRows.push({ dataset, target, idleRssMb: median(measured.map((sample) => sample.idleRssMb)), peakRssMb: median(peaks), peakRssMaxMb: Math.max(...peaks) });
    }
  }

  const rowOf = (scenario: Scenario['name'], target: TargetName): Row | undefined => rows.find((row) => row.scenario === scenario && row.target === target);
  const rps = (scenario: Scenario['name'], target: TargetName): number => rowOf(scenario, target)?.result.requestsPerSecond ?? Number.NaN;
  const cpu = (scenario: Scenario['name'], target: TargetName): number => rowOf(scenario, target)?.result.cpuMicrosPerRequest ?? Number.NaN;
  const baselineOf = (scenario: Scenario['name']): TargetName => (scenario === 'rest' ? 'floor/rest' : 'mercurius+jit');
  const pace = overallRate === undefined ? '' : `, a fixed ${overallRate} requests/s (read CPU µs/req; req/s ratios mean nothing)`;
  console.log(`\n${connections} connections${pace}, median of ${rounds} interleaved rounds of ${durationSeconds} s, each in fresh processes; node flags of ours: ${startFlags.join(' ') || '(none)'}\n`);
  console.log(
    formatTable(
      ['scenario', 'target', 'bytes', 'req/s', 'p50 ms', 'p99 ms', '× mercurius+jit', '× floor', 'CPU µs/req', 'CPU × mercurius+jit'],
      rows.map((row) => {
        const floor = row.scenario === 'issue' ? 'floor' : row.scenario === 'rest' ? 'floor/rest' : undefined;
        return [
          row.scenario,
          row.target,
          String(row.responseBytes),
          row.result.requestsPerSecond.toFixed(0),
          row.result.p50Ms.toFixed(1),
          row.result.p99Ms.toFixed(1),
          row.scenario === 'rest' ? '' : ratio(row.result.requestsPerSecond, rps(row.scenario, 'mercurius+jit')).toFixed(2),
          floor === undefined ? '' : ratio(row.result.requestsPerSecond, rps(row.scenario, floor)).toFixed(2),
          row.result.cpuMicrosPerRequest.toFixed(0),
          row.scenario === 'rest' ? '' : ratio(cpu(row.scenario, 'mercurius+jit'), row.result.cpuMicrosPerRequest).toFixed(2),
        ];
      }),
    ),
  );
  if (roundRatios.size > 0) {
    console.log(`\n${formatTable(
      ['scenario', 'ablation', 'req/s ÷ ours, round by round', 'lowest', 'median', 'highest'],
      [...roundRatios].map(([key, ratios]) => {
        const [scenario = '', ablation = ''] = key.split(' ');
        const sorted = [...ratios].sort((a, b) => a - b);
        return [scenario, ablation, ratios.map((value) => value.toFixed(2)).join(' '), (sorted[0] ?? Number.NaN).toFixed(2), median(sorted).toFixed(2), (sorted.at(-1) ?? Number.NaN).toFixed(2)];
      }),
    )}`);
  }
  console.log(`\n${formatTable(['dataset', 'target', 'idle RSS MB', 'peak RSS MB (median)', 'peak RSS MB (max)'], memoryRows.map((row) => [row.dataset, row.target, String(row.idleRssMb), String(row.peakRssMb), String(row.peakRssMaxMb)]))}`);

  const versusMercurius = (scenario: Scenario['name']) => ({
    ratio: ratio(rps(scenario, 'ours'), rps(scenario, baselineOf(scenario))),
    cpuPerRequestRatio: ratio(cpu(scenario, baselineOf(scenario)), cpu(scenario, 'ours')),
    target: 1.0,
    stretch: 1.3,
    p99Ms: rowOf(scenario, 'ours')?.result.p99Ms,
    mercuriusP99Ms: rowOf(scenario, 'mercurius+jit')?.result.p99Ms,
  });
  const ablation = (scenario: Scenario['name']) =>
    Object.fromEntries(ABLATIONS.map((name) => [name, ratio(rps(scenario, name), rps(scenario, 'ours'))]));
  const oursMemory = memoryRows.filter((row) => row.target === 'ours');
  // The peak of the dataset where ours peaks highest: the median over its processes, and the highest of them.
  const peakRss = Math.max(...oursMemory.map((row) => row.peakRssMb));
  const peakRssMax = Math.max(...oursMemory.map((row) => row.peakRssMaxMb));
  const targets = {
    issueVsMercurius: versusMercurius('issue'),
    variablesVsMercurius: versusMercurius('variables'),
    largeVsMercurius: versusMercurius('large'),
    oursPeakRssMb: { value: peakRss, highestProcess: peakRssMax, meaning: 'median over the processes (one per round) of each one\'s peak, on the dataset where it is highest', target: 150, nodeFlags: startFlags.join(' ') },
    cachedVsFloor: { ratio: ratio(rps('issue', 'ours+cache'), rps('issue', 'floor')), cpuPerRequestRatio: ratio(cpu('issue', 'floor'), cpu('issue', 'ours+cache')), target: 0.7 },
    restVsFloor: { ratio: ratio(rps('rest', 'ours'), rps('rest', 'floor/rest')), cpuPerRequestRatio: ratio(cpu('rest', 'floor/rest'), cpu('rest', 'ours')), target: 0.9 },
    yogaAdapterVsFloor: { ratio: ratio(rps('issue', 'yoga/fixed-bytes'), rps('issue', 'floor')), meaning: 'ceiling of any server behind yoga' },
    ablationsOverOurs: { meaning: 'each ablation\'s req/s ÷ ours: above 1, the part it removes costs that much; below 1, that part pays for itself', issue: ablation('issue'), variables: ablation('variables'), large: ablation('large') },
    ablationsRoundByRound: { meaning: 'the same ratio in each round (both in that round, each in a fresh process), by "<scenario> <ablation>"', ...Object.fromEntries(roundRatios) },
  };
  console.log(`\n${JSON.stringify(targets, null, 2)}`);
  // A fixed-rate run is saved beside the headline results, not over them.
  const resultsName = overallRate === undefined ? 'graph' : 'graph-fixed-rate';
  console.log(`saved ${await saveResults(resultsName, { queries: { issue: ISSUE_QUERY, variables: VARIABLES_QUERY, large: LARGE_QUERY }, connections, overallRate, durationSeconds, rounds, rows, memory: memoryRows, targets })}`);
} finally {
  await compiled.remove();
}
