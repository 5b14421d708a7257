/**
 * The channel graph under load, against the peers configured the way their documentation shows:
 * requests/s, p50, p99, the server process's CPU time per request and its peak RSS, ratios taken in
 * the same run, the machine's load (1-minute average) beside each figure. Every server runs compiled
 * (tsc, into a temp dir) by plain node in its own process; autocannon runs in another
 * (bench/lib/load.ts). Targets (server.ts says how each is built):
 *   ours                — what `npm start` runs, with the start script's node flags, the response cache off:
 *                         every request parsed (or found in the document cache), validated, limited and executed
 *   ours+cache          — the same with the response cache on, as shipped
 *   yoga+jit            — plain yoga on the same SDL, resolvers and store: @envelop/graphql-jit, yoga's own parse
 *                         and validation cache; yoga+jit+cache adds @graphql-yoga/plugin-response-cache
 *   mercurius+jit       — fastify + mercurius (jit from the first request); mercurius+jit+cache adds mercurius-cache
 *   main, main+cache    — with BENCH_MAIN=<dir>: ours and ours+cache of another checkout (e.g. a worktree of
 *                         `main` with its `npm ci` done), built and run the same way, with its own start flags
 *   floor/rest          — raw node:http answering REST's bytes (the rest scenario)
 * Scenarios (uncached ones run ours and the uncached peers; the `+cache` ones, repeated queries, the cached ones):
 *   issue, issue+cache         — the issue query over the default sandbox dataset (40 patrons)
 *   variables, variables+cache — `query($p: Platform)…` with $p MEMBERSHIP, VIDEO, null in turn
 *   large, large+cache         — tiers with their supporters, over SANDBOX_PATRONS=2000 (an answer > 100 KB)
 *   rest                       — warm GET /membership/pledges of ours, against floor/rest (the same bytes)
 * Floors (measured, not asserted): uncached ours ≥ 1.0× yoga+jit; as shipped ours+cache ≥ 1.0×
 * yoga+jit+cache on every query; reported beside them: ours ÷ mercurius+jit, ours+cache ÷
 * mercurius+jit+cache and ÷ main+cache; warm REST ≥ 0.9× its floor; peak RSS of ours ≤ 150 MB.
 *
 * Run: `npx tsx bench/graph/run.ts`. BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS override
 * 4 s / 10 / 3 (rounds are interleaved: every load of a round, then the next round, each round in
 * server processes started afresh and every other one in reverse order; each row keeps its median);
 * BENCH_SETTLE overrides the 10 s a round's servers idle between their start and the first load;
 * BENCH_TARGETS=a,b runs only those targets besides ours and ours+cache; BENCH_SCENARIOS=issue,large
 * runs only those scenarios.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { startSandbox } from '../../src/sandbox/index.js';
import { compileGraphServer, GRAPH_HEADERS, ISSUE_QUERY, LARGE_QUERY, nextMessage, stopTarget, VARIABLES_BODIES, VARIABLES_QUERY } from '../lib/graph-server.js';
import { formatTable, projectRoot, ratio, readStartScript, runLoad, saveResults, type LoadResult } from '../lib/index.js';

const LARGE_DATASET_PATRONS = 2000;

const durationSeconds = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const settleSeconds = Number(process.env.BENCH_SETTLE ?? 10);
const mainTree = process.env.BENCH_MAIN;

type TargetName = 'ours' | 'ours+cache' | 'yoga+jit' | 'yoga+jit+cache' | 'mercurius+jit' | 'mercurius+jit+cache' | 'main' | 'main+cache' | 'floor/rest';
type ScenarioName = 'issue' | 'variables' | 'large' | 'issue+cache' | 'variables+cache' | 'large+cache' | 'rest';

const UNCACHED: readonly TargetName[] = ['ours', 'yoga+jit', 'mercurius+jit', 'main'];
const CACHED: readonly TargetName[] = ['ours+cache', 'yoga+jit+cache', 'mercurius+jit+cache', 'main+cache'];

interface Scenario {
  name: ScenarioName;
  /** Sandbox patrons of the dataset the scenario runs on (undefined: the default). */
  patrons?: number;
  method: 'GET' | 'POST';
  path: string;
  /** Sent in turn on every connection. */
  bodies?: readonly string[];
  /** The first is ours, whose answers every other target must give. */
  targets: readonly TargetName[];
}

const issue = [JSON.stringify({ query: ISSUE_QUERY })];
const large = [JSON.stringify({ query: LARGE_QUERY })];
const SCENARIOS: readonly Scenario[] = [
  { name: 'issue', method: 'POST', path: '/graphql', bodies: issue, targets: UNCACHED },
  { name: 'variables', method: 'POST', path: '/graphql', bodies: VARIABLES_BODIES, targets: UNCACHED },
  { name: 'issue+cache', method: 'POST', path: '/graphql', bodies: issue, targets: CACHED },
  { name: 'variables+cache', method: 'POST', path: '/graphql', bodies: VARIABLES_BODIES, targets: CACHED },
  { name: 'rest', method: 'GET', path: '/membership/pledges', targets: ['ours', 'floor/rest'] },
  { name: 'large', patrons: LARGE_DATASET_PATRONS, method: 'POST', path: '/graphql', bodies: large, targets: UNCACHED },
  { name: 'large+cache', patrons: LARGE_DATASET_PATRONS, method: 'POST', path: '/graphql', bodies: large, targets: CACHED },
];

const selectedTargets = process.env.BENCH_TARGETS?.split(',').map((name) => name.trim());
const selectedScenarios = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
const isSelected = (target: TargetName): boolean => {
  if (target === 'main' || target === 'main+cache') return mainTree !== undefined && (selectedTargets === undefined || selectedTargets.includes(target));
  return target === 'ours' || target === 'ours+cache' || selectedTargets === undefined || selectedTargets.includes(target);
};
const scenarios = SCENARIOS.filter((scenario) => selectedScenarios === undefined || selectedScenarios.includes(scenario.name));

interface RunningTarget {
  name: TargetName;
  url: string;
  child: ChildProcess;
}

const ours = { compiled: await compileGraphServer(projectRoot), nodeFlags: (await readStartScript(projectRoot)).nodeFlags };
const main = mainTree === undefined ? undefined : { compiled: await compileGraphServer(mainTree), nodeFlags: (await readStartScript(mainTree)).nodeFlags };

async function startTarget(name: TargetName, env: NodeJS.ProcessEnv): Promise<RunningTarget> {
  const fromMain = name === 'main' || name === 'main+cache';
  const build = fromMain ? (main as NonNullable<typeof main>) : ours;
  const argument = fromMain ? name.replace('main', 'ours') : name;
  // The start script's flags for ours (and main's for main); none for the peers.
  const flags = fromMain || name.startsWith('ours') ? build.nodeFlags : [];
  const child = fork(build.compiled.file, [argument], { cwd: fromMain ? mainTree : projectRoot, execArgv: flags, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
function comparable(text: string): string {
  return JSON.stringify(JSON.parse(text)).replace(/"fetchedAt":"[^"]*"/g, '"fetchedAt":""');
}

/**
 * A load's figures, the server process's CPU time per request over the measured window (on a
 * machine shared with other jobs req/s moves with what the neighbours do, CPU per request much
 * less) and the machine's 1-minute load average when it ended.
 */
type MeasuredLoad = LoadResult & { cpuMicrosPerRequest: number; load: number };

interface Row {
  scenario: ScenarioName;
  target: TargetName;
  result: MeasuredLoad;
  responseBytes: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Every target of a dataset's scenarios, started afresh, each checked against ours's answers (the
 * scenario's first target), then their RSS reset (started, data loaded, one request answered).
 */
async function startGroup(group: readonly Scenario[], sandboxEnv: NodeJS.ProcessEnv): Promise<{ running: Map<TargetName, RunningTarget>; referenceAnswers: Map<Scenario, string[]> }> {
  const running = new Map<TargetName, RunningTarget>();
  try {
    const names = [...new Set(group.flatMap((scenario) => scenario.targets.filter(isSelected)))].filter((name) => name !== 'floor/rest');
    for (const name of names) running.set(name, await startTarget(name, sandboxEnv));
    const referenceAnswers = new Map<Scenario, string[]>();
    for (const scenario of group) {
      const reference = running.get(scenario.targets[0] as TargetName) as RunningTarget;
      referenceAnswers.set(scenario, await Promise.all((scenario.bodies ?? [undefined]).map((body) => answer(reference.url, scenario, body))));
    }
    const rest = group.find((scenario) => scenario.name === 'rest');
    if (rest !== undefined && isSelected('floor/rest')) running.set('floor/rest', await startTarget('floor/rest', { ...sandboxEnv, BENCH_FLOOR_BODY: referenceAnswers.get(rest)?.[0] ?? '' }));
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

const rows: Row[] = [];
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
        // runs ~8 s after start): the first loads of a round then ran beside such neighbours.
        await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
        responseBytes = new Map(group.map((scenario) => [scenario, Math.max(...(referenceAnswers.get(scenario) ?? []).map((text) => Buffer.byteLength(text)))]));
        try {
          // Every other round runs the loads in reverse order: a machine that slows down or speeds up
          // within a round then favours no target.
          const loads = group.flatMap((scenario) => scenario.targets.filter(isSelected).map((name) => ({ scenario, name })));
          if (round % 2 === 0) loads.reverse();
          const warmed = new Set<string>();
          for (const { scenario, name } of loads) {
            const target = running.get(name) as RunningTarget;
            const load = {
              url: `${target.url}${scenario.path}`,
              method: scenario.method,
              ...(scenario.bodies !== undefined && { headers: GRAPH_HEADERS, bodies: scenario.bodies }),
              connections,
              warmupSeconds: 0,
            };
            const key = `${scenario.name} ${name}`;
            // A fresh process, or one new to this scenario: its first load warms it up longer.
            await runLoad({ ...load, durationSeconds: warmed.has(name) ? 1 : 2 });
            warmed.add(name);
            const cpuBefore = await cpuMicros(target);
            const measured = await runLoad({ ...load, durationSeconds });
            const result = { ...measured, cpuMicrosPerRequest: Math.round((await cpuMicros(target)) - cpuBefore) / measured.requests, load: Number((loadavg()[0] ?? Number.NaN).toFixed(2)) };
            samples.set(key, [...(samples.get(key) ?? []), result]);
            console.log(`round ${round}/${rounds} ${key}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/request, load ${result.load}`);
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
      for (const name of scenario.targets.filter(isSelected)) {
        const measured = samples.get(`${scenario.name} ${name}`) ?? [];
        const sorted = [...measured].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
        const middle = sorted[Math.floor(sorted.length / 2)];
        if (middle) {
          const result = { ...middle, cpuMicrosPerRequest: median(measured.map((sample) => sample.cpuMicrosPerRequest)), load: median(measured.map((sample) => sample.load)) };
          rows.push({ scenario: scenario.name, target: name, result, responseBytes: responseBytes.get(scenario) ?? Number.NaN });
        }
      }
    }
    for (const [target, measured] of memories) {
      const peaks = measured.map((sample) => sample.peakRssMb);
      memoryRows.push({ dataset, target, idleRssMb: median(measured.map((sample) => sample.idleRssMb)), peakRssMb: median(peaks), peakRssMaxMb: Math.max(...peaks) });
    }
  }

  const rowOf = (scenario: ScenarioName, target: TargetName): Row | undefined => rows.find((row) => row.scenario === scenario && row.target === target);
  const rps = (scenario: ScenarioName, target: TargetName): number => rowOf(scenario, target)?.result.requestsPerSecond ?? Number.NaN;
  const cpu = (scenario: ScenarioName, target: TargetName): number => rowOf(scenario, target)?.result.cpuMicrosPerRequest ?? Number.NaN;
  /** The target each scenario's rows are compared with: the documented yoga (its floor), the floor for REST. */
  const baselineOf = (scenario: ScenarioName): TargetName => (scenario === 'rest' ? 'floor/rest' : scenario.endsWith('+cache') ? 'yoga+jit+cache' : 'yoga+jit');
  const mercuriusOf = (scenario: ScenarioName): TargetName => (scenario.endsWith('+cache') ? 'mercurius+jit+cache' : 'mercurius+jit');
  console.log(`\n${connections} connections, median of ${rounds} interleaved rounds of ${durationSeconds} s, each in fresh processes; node flags of ours: ${ours.nodeFlags.join(' ') || '(none)'}\n`);
  console.log(
    formatTable(
      ['scenario', 'target', 'bytes', 'req/s', 'p50 ms', 'p99 ms', '× yoga', '× mercurius', 'CPU µs/req', 'load'],
      rows.map((row) => [
        row.scenario,
        row.target,
        String(row.responseBytes),
        row.result.requestsPerSecond.toFixed(0),
        row.result.p50Ms.toFixed(1),
        row.result.p99Ms.toFixed(1),
        ratio(row.result.requestsPerSecond, rps(row.scenario, baselineOf(row.scenario))).toFixed(2),
        row.scenario === 'rest' ? '' : ratio(row.result.requestsPerSecond, rps(row.scenario, mercuriusOf(row.scenario))).toFixed(2),
        row.result.cpuMicrosPerRequest.toFixed(0),
        row.result.load.toFixed(2),
      ]),
    ),
  );
  console.log(`\n${formatTable(['dataset', 'target', 'idle RSS MB', 'peak RSS MB (median)', 'peak RSS MB (max)'], memoryRows.map((row) => [row.dataset, row.target, String(row.idleRssMb), String(row.peakRssMb), String(row.peakRssMaxMb)]))}`);

  /** One scenario's floor: ours against the documented yoga (target 1.0), and the other peers beside it. */
  const floorOf = (scenario: ScenarioName) => {
    const cached = scenario.endsWith('+cache');
    const mine: TargetName = cached ? 'ours+cache' : 'ours';
    return {
      vsYoga: ratio(rps(scenario, mine), rps(scenario, baselineOf(scenario))),
      target: 1.0,
      vsMercurius: ratio(rps(scenario, mine), rps(scenario, mercuriusOf(scenario))),
      ...(mainTree !== undefined && { vsMain: ratio(rps(scenario, mine), rps(scenario, cached ? 'main+cache' : 'main')) }),
      cpuVsYoga: ratio(cpu(scenario, baselineOf(scenario)), cpu(scenario, mine)),
      load: rowOf(scenario, mine)?.result.load ?? Number.NaN,
    };
  };
  const oursMemory = memoryRows.filter((row) => row.target === 'ours' || row.target === 'ours+cache');
  const targets = {
    floors: Object.fromEntries(scenarios.filter((scenario) => scenario.name !== 'rest').map((scenario) => [scenario.name, floorOf(scenario.name)])),
    restVsFloor: { ratio: ratio(rps('rest', 'ours'), rps('rest', 'floor/rest')), cpuPerRequestRatio: ratio(cpu('rest', 'floor/rest'), cpu('rest', 'ours')), target: 0.9 },
    oursPeakRssMb: {
      value: Math.max(...oursMemory.map((row) => row.peakRssMb)),
      highestProcess: Math.max(...oursMemory.map((row) => row.peakRssMaxMb)),
      meaning: 'median over the processes (one per round) of each one\'s peak, on the dataset where it is highest',
      target: 150,
      nodeFlags: ours.nodeFlags.join(' '),
    },
  };
  console.log(`\n${JSON.stringify(targets, null, 2)}`);
  console.log(`saved ${await saveResults('graph', { queries: { issue: ISSUE_QUERY, variables: VARIABLES_QUERY, large: LARGE_QUERY }, connections, durationSeconds, rounds, comparedWith: mainTree === undefined ? null : 'main', rows, memory: memoryRows, targets })}`);
} finally {
  await Promise.all([ours.compiled.remove(), main?.compiled.remove()]);
}

