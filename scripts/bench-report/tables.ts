/**
 * The figures tables of the benchmarks page, one region each, each written from one results file
 * as its bench saved it. A scenario, target or key this report has no words for is an error naming
 * the file and the field: a bench that measures something new needs its label here, not a guess.
 */
import { amount, instructions, int, kilobytes, megabytes, median, met, provenance, table, times } from './format.js';
import type { Results, ResultsName } from './results.js';

/** Reads a results file (once per report). */
export type ReadResults = <N extends ResultsName>(name: N) => Promise<Results<N>>;

function labelOf(labels: Readonly<Record<string, string>>, key: string, file: ResultsName, field: string): string {
  const label = labels[key];
  if (label === undefined) throw new Error(`bench/results/${file}.json: ${field}: "${key}" has no label in scripts/bench-report/tables.ts`);
  return label;
}

export const GRAPH_SCENARIOS: Readonly<Record<string, string>> = {
  issue: 'supporters query (`issue`)',
  variables: '`variables` (`$p` = MEMBERSHIP, VIDEO, null in turn)',
  large: '`large` answer (`SANDBOX_PATRONS=2000`)',
  'issue+cache': 'supporters query, repeated, response caches on',
  'variables+cache': '`variables`, repeated, response caches on',
  'large+cache': '`large` answer, repeated, response caches on',
  rest: 'warm REST `GET /membership/pledges` (`rest`)',
};
export const GRAPH_TARGETS: Readonly<Record<string, string>> = {
  ours: '**ours** (as `npm start` runs it, response cache off)',
  'ours+cache': '**ours** (as `npm start` runs it: response cache on)',
  'yoga+jit': 'yoga + @envelop/graphql-jit (documented)',
  'yoga+jit+cache': 'yoga + @envelop/graphql-jit + @graphql-yoga/plugin-response-cache',
  'mercurius+jit': 'mercurius + graphql-jit',
  'mercurius+jit+cache': 'mercurius + graphql-jit + mercurius-cache',
  main: 'the previous `main` (layer in front of yoga), response cache off',
  'main+cache': 'the previous `main` (layer in front of yoga), response cache on',
  'floor/rest': 'raw `node:http` floor (the REST bytes)',
};

type GraphRow = Results<'graph'>['rows'][number];

/** Rows grouped by scenario, in the file's order. */
function byScenario<Row extends { scenario: string }>(rows: readonly Row[]): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) groups.set(row.scenario, [...(groups.get(row.scenario) ?? []), row]);
  return groups;
}

function queriesList(queries: Results<'graph'>['queries']): string {
  return [
    `- \`issue\`, the supporters query: \`${queries.issue}\``,
    `- \`variables\`: \`${queries.variables}\``,
    `- \`large\`: \`${queries.large}\``,
  ].join('\n');
}

/** The target a scenario's rows are compared with: the documented yoga (the floor of ours), the raw floor for REST. */
function baselineOf(scenario: string): string {
  return scenario === 'rest' ? 'floor/rest' : scenario.endsWith('+cache') ? 'yoga+jit+cache' : 'yoga+jit';
}

async function graph(read: ReadResults): Promise<string> {
  const results = await read('graph');
  const rows: string[][] = [];
  for (const [scenario, group] of byScenario(results.rows)) {
    const label = labelOf(GRAPH_SCENARIOS, scenario, 'graph', 'rows[].scenario');
    const find = (target: string): GraphRow | undefined => group.find((row) => row.target === target);
    const baseline = find(baselineOf(scenario));
    const mercurius = find(scenario.endsWith('+cache') ? 'mercurius+jit+cache' : 'mercurius+jit');
    group.forEach((row, index) => {
      rows.push([
        index === 0 ? label : '',
        labelOf(GRAPH_TARGETS, row.target, 'graph', 'rows[].target'),
        index === 0 ? int(row.responseBytes) : '',
        int(row.result.requestsPerSecond),
        String(row.result.p99Ms),
        baseline === undefined ? '' : times(row.result.requestsPerSecond / baseline.result.requestsPerSecond),
        mercurius === undefined ? '' : times(row.result.requestsPerSecond / mercurius.result.requestsPerSecond),
        int(row.result.cpuMicrosPerRequest),
        row.result.load.toFixed(1),
      ]);
    });
  }
  const { targets } = results;
  const floorRows = Object.entries(targets.floors).map(([scenario, floor]) => {
    const cached = scenario.endsWith('+cache');
    return [
      labelOf(GRAPH_SCENARIOS, scenario, 'graph', 'targets.floors'),
      `ours ≥ ${floor.target.toFixed(1)}× ${cached ? 'yoga with its response cache' : 'yoga + graphql-jit'}`,
      times(floor.vsYoga),
      floor.vsYoga === null ? 'not run' : met(floor.vsYoga >= floor.target),
      times(floor.vsMercurius),
      times(floor.vsMain),
      floor.load === null ? '' : floor.load.toFixed(1),
    ];
  });
  const peak = targets.oursPeakRssMb;
  const rest = targets.restVsFloor;
  return [
    provenance(results),
    `${results.connections} connections, median of ${results.rounds} interleaved rounds of ${results.durationSeconds} s, each in fresh processes; ours runs with \`node ${peak.nodeFlags}\`${results.comparedWith === null ? '' : `; the previous \`${results.comparedWith}\` built and run the same way beside it, with its own start flags`}. "load" is the machine's 1-minute load average at the end of the load (median over the rounds).`,
    '',
    table(['scenario', 'target', 'answer bytes', 'req/s', 'p99 ms', '× yoga (floor: REST\'s)', '× mercurius', 'CPU µs/req', 'load'], 'llrrrrrrr', rows),
    '',
    queriesList(results.queries),
    '',
    table(['scenario', 'floor', 'measured', '', '× mercurius', '× previous main', 'load'], 'lllllll', [
      ...floorRows,
      ['warm REST', `ours ≥ ${rest.target}× the floor`, times(rest.ratio), rest.ratio === null ? 'not run' : met(rest.ratio >= rest.target), '', '', ''],
      ['peak RSS', `ours ≤ ${peak.target} MB (median of its processes' peaks, on the dataset where it is highest)`, `${peak.value} MB (highest process ${peak.highestProcess})`, met(peak.value <= peak.target), '', '', ''],
    ]),
    '',
    'Peak RSS, sampled every 50 ms in each process (median over the rounds\' processes, and the highest):',
    '',
    table(
      ['dataset', 'target', 'idle MB', 'peak MB', 'highest peak MB'],
      'llrrr',
      results.memory.map((row) => [row.dataset, labelOf(GRAPH_TARGETS, row.target, 'graph', 'memory[].target'), String(row.idleRssMb), String(row.peakRssMb), String(row.peakRssMaxMb)]),
    ),
  ].join('\n');
}

export const INSTRUCTION_SCENARIOS: Readonly<Record<string, string>> = {
  issue: 'supporters query (`issue`)',
  variables: '`variables`',
  large: '`large` answer (`SANDBOX_PATRONS=2000`)',
  'issue+cache': 'supporters query, response-cache hit',
  'variables+cache': '`variables`, response-cache hit',
  'large+cache': '`large` answer, response-cache hit',
  rest: 'warm REST `GET /membership/pledges`',
};
export const INSTRUCTION_TARGETS: Readonly<Record<string, string>> = {
  observed: '**ours** (as `npm start` runs it)',
  'default-flags': "ours with V8's default flags",
  unobserved: 'ours without request log and metrics',
  'observed/304': 'ours, revalidated (`If-None-Match` → 304)',
  'observed/br': 'ours, asked for brotli',
  bare: 'createGraphServer: graphql-jit, document cache',
  'bare/no-jit': 'createGraphServer: document cache, no graphql-jit',
  'bare/no-document-cache': 'createGraphServer: neither',
  'yoga+jit': 'yoga + @envelop/graphql-jit (documented)',
  'yoga+jit+cache': 'yoga + @envelop/graphql-jit + @graphql-yoga/plugin-response-cache',
  'mercurius+jit': 'mercurius + graphql-jit',
  floor: 'raw `node:http` floor (same bytes)',
  'floor/headers': 'raw `node:http` floor (same bytes and headers)',
};

async function instructionsTable(read: ReadResults): Promise<string> {
  const results = await read('instructions');
  const range = (value: { lowest: number; highest: number }): string => (results.rounds > 1 ? `${instructions(value.lowest)} (${instructions(value.highest)})` : instructions(value.lowest));
  const share = (value: number): string => `${(value * 100).toFixed(1)} %`;
  const counts: string[][] = [];
  for (const [scenario, group] of byScenario(results.rows)) {
    const main = group.find((row) => row.threads === 'main');
    const all = group.find((row) => row.threads === 'all');
    if (main === undefined || all === undefined) throw new Error(`bench/results/instructions.json: rows: "${scenario}" lacks a thread`);
    const ours = main.targets['observed'];
    Object.entries(main.targets).forEach(([target, count], index) => {
      counts.push([
        index === 0 ? labelOf(INSTRUCTION_SCENARIOS, scenario, 'instructions', 'rows[].scenario') : '',
        labelOf(INSTRUCTION_TARGETS, target, 'instructions', 'rows[].targets'),
        range(count),
        all.targets[target] === undefined ? '' : range(all.targets[target]),
        ours === undefined || target === 'observed' ? '' : times(count.lowest / ours.lowest),
      ]);
    });
  }
  const [scenarioOf, targetOf] = [(key: string): string => key.split(' ')[0] ?? '', (key: string): string => key.split(' ')[1] ?? ''];
  const named = (key: string): string => `${labelOf(INSTRUCTION_SCENARIOS, scenarioOf(key), 'instructions', 'gains[]')}: ${labelOf(INSTRUCTION_TARGETS, targetOf(key), 'instructions', 'gains[]')}`;
  return [
    provenance(results),
    `Node flags: \`${results.nodeFlags.join(' ')}\`. ${results.rounds > 1 ? `Each target counted in ${results.rounds} processes: the lowest, the highest in brackets.` : 'Each target counted in one process.'} Requests warmed up / counted: ${Object.entries(results.requests).map(([scenario, { warmup, counted }]) => `\`${scenario}\` ${int(warmup)} / ${int(counted)}`).join(', ')}.`,
    '',
    table(['scenario', 'target', 'main thread', 'all threads', '× ours (main thread)'], 'llrrr', counts),
    '',
    'What each optimisation the graph keeps saves, on the main thread (the request without it, with it, and the difference), beside the lines of source it takes:',
    '',
    table(
      ['optimisation', 'lines', 'without', 'with', 'saved a request', 'share'],
      'lrllrr',
      results.gains.map((gain) => [gain.optimisation, gain.lines === null ? '—' : String(gain.lines), named(gain.without), named(gain.with), instructions(gain.saved), share(gain.share)]),
    ),
    '',
    `What observing a request costs (main thread; target ≤ ${share(results.overheadTarget)}):`,
    '',
    table(['scenario', 'instructions', 'share', ''], 'lrrl', results.observation.map((row) => [labelOf(INSTRUCTION_SCENARIOS, row.scenario, 'instructions', 'observation[]'), instructions(row.instructions), share(row.share), met(row.share <= results.overheadTarget)])),
  ].join('\n');
}

const STARWARS_TARGETS: Readonly<Record<string, string>> = {
  ours: 'ours (yoga, graphql-js)',
  'ours+jit': 'ours + graphql-jit',
  'ours+plugin-cache': 'ours + @graphql-yoga/plugin-response-cache',
  'ours+response-cache': 'ours + its response cache plugin (`src/graphql/speed/response-cache.ts`)',
  'mercurius+jit': 'mercurius + graphql-jit (same schema and resolvers)',
  floor: 'raw `node:http`, same JSON bytes (floor)',
};
const STARWARS_GOALS: Readonly<Record<string, string>> = {
  oursVsMercurius: 'ours, uncached, against mercurius+jit',
  oursJitVsMercurius: 'ours + graphql-jit, uncached, against mercurius+jit',
  pluginCachedVsFloor: "ours with yoga's plugin cache, against the floor",
  responseCachedVsFloor: 'ours with its response cache plugin, against the floor',
};

async function starwars(read: ReadResults): Promise<string> {
  const results = await read('starwars');
  const rps = (name: string): number => {
    const row = results.rows.find((candidate) => candidate.name === name);
    if (row === undefined) throw new Error(`bench/results/starwars.json: rows: no row "${name}"`);
    return row.result.requestsPerSecond;
  };
  return [
    provenance(results),
    `The hero query \`${results.query}\`, ${results.connections} connections, median of ${results.rounds} interleaved rounds of ${results.durationSeconds} s.`,
    '',
    table(
      ['target', 'req/s', 'p99 ms', '× mercurius+jit', '× floor'],
      'lrrrr',
      results.rows.map((row) => [labelOf(STARWARS_TARGETS, row.name, 'starwars', 'rows[].name'), int(row.result.requestsPerSecond), String(row.result.p99Ms), times(row.result.requestsPerSecond / rps('mercurius+jit')), times(row.result.requestsPerSecond / rps('floor'))]),
    ),
    '',
    table(
      ['target', 'measured', ''],
      'lll',
      Object.entries(results.targets).map(([key, goal]) => [`${labelOf(STARWARS_GOALS, key, 'starwars', 'targets')} ≥ ${goal.target.toFixed(1)}×`, times(goal.ratio), goal.ratio === null ? 'not run' : met(goal.ratio >= goal.target)]),
    ),
  ].join('\n');
}

async function codegen(read: ReadResults): Promise<string> {
  const results = await read('codegen');
  const steps: ReadonlyArray<[string, { medianMs: number; minMs: number; maxMs: number; targetMs?: number }]> = [
    ['cold `npm run codegen` (the graphql-codegen CLI on `codegen.ts`)', results.coldNpmCodegen],
    ['cold `graphql-codegen` called directly', results.coldGraphqlCodegen],
    ['cold `npm run codegen:check`', results.coldCodegenCheck],
    ["loading the CLI alone (`require('@graphql-codegen/cli')`)", results.loadCodegenCli],
    ['loading openapi-typescript alone', results.loadOpenapiTypescript],
    ['`node -e 0` (process floor)', results.loadNode],
    ['watch: SDL save → rewritten file', results.watchSaveToRewrite],
  ];
  return [
    provenance(results),
    `In a temporary copy of the project, ${results.runs} runs each.`,
    '',
    table(
      ['step', 'median ms', 'min–max ms', 'target'],
      'lrrl',
      steps.map(([name, step]) => [name, int(step.medianMs), `${int(step.minMs)}–${int(step.maxMs)}`, step.targetMs === undefined ? '' : `< ${int(step.targetMs)} ms: ${met(step.medianMs < step.targetMs)}`]),
    ),
  ].join('\n');
}

const STARTUP_FLOOR = 'node dist/src/main.js (floor)';

async function startup(read: ReadResults): Promise<string> {
  const results = await read('startup');
  const floor = results.rows[STARTUP_FLOOR];
  if (floor === undefined) throw new Error(`bench/results/startup.json: rows: no row "${STARTUP_FLOOR}"`);
  return [
    provenance(results),
    '',
    table(
      ['start → first answer of `/healthz`', 'median ms', 'min ms', 'max ms', 'runs', '× floor'],
      'lrrrrr',
      Object.entries(results.rows).map(([name, row]) => [name, int(row.medianMs), int(row.minMs), int(row.maxMs), String(row.runs), times(row.medianMs / floor.medianMs)]),
    ),
  ].join('\n');
}

const DEV_STEPS: ReadonlyArray<[keyof Results<'dev'>['steps'], string]> = [
  ['firstAnswer', '`npm run dev` → first answer'],
  ['firstTypecheck', '→ first typecheck done'],
  ['sdlToTypes', 'SDL save → types written'],
  ['sdlToServed', '→ new field served'],
  ['sdlToError', '→ TS error naming the missing resolver printed'],
  ['resolverToServed', 'resolver added → served'],
];

async function dev(read: ReadResults): Promise<string> {
  const results = await read('dev');
  const seconds = (ms: number): string => `≤ ${ms / 1000} s`;
  const sample = (value: { ms: number; load: number }): string => `${int(value.ms)} (${value.load})`;
  const { steps, checkers } = results;
  return [
    provenance(results),
    `On the channel graph. The first two rows are the medians of ${results.runs} first starts each (every one in a fresh copy, ours and the peer's in turn), the loop steps the medians of ${results.runs} saves; "load" is the 1-minute load average when the step ended (2 vCPU: a load of 2 is a busy machine). The targets are for a quiet machine: each first start begins once the load average is at most ${results.quietLoad} (or after two minutes of waiting).`,
    '',
    table(
      ['step', 'ours ms (load)', 'peer ms (load)', 'ours ÷ peer', 'target (quiet)'],
      'lrrrl',
      DEV_STEPS.map(([key, name]) => [name, sample(steps[key].ours), sample(steps[key].peer), times(steps[key].ratio), seconds(steps[key].targetMs)]),
    ),
    '',
    `TypeScript 7 and 5.9 report the same diagnostics (file, position and code) on the project with a missing resolver: ${checkers.agree ? 'yes' : '**no**'} (${checkers.diagnostics.length} diagnostic${checkers.diagnostics.length === 1 ? '' : 's'}; 5.9 ${int(checkers.typescript5Ms)} ms, 7 ${int(checkers.typescript7Ms)} ms).`,
  ].join('\n');
}

async function channelTables(read: ReadResults): Promise<string> {
  const results = await read('channel');
  const cold = [results.coldFetch10k, results.snapshot100k];
  return [
    provenance(results),
    '',
    'Cold fetch of the membership snapshot from the sandbox, through the real adapter and token keeper, in a child process ("patrons" counts members of every status; the snapshot keeps the active ones; snapshot heap is the retained heap after a full GC):',
    '',
    table(
      ['patrons', 'active in snapshot', 'pages', 'wall time ms', 'RSS before → peak MB', 'snapshot heap MB', 'heap / supporter', 'snapshot JSON MB'],
      'rrrrrrrr',
      cold.map((row) => [int(row.patrons), int(row.supporters), String(row.pages), int(row.wallMs), `${amount(row.rssBeforeMb)} → ${amount(row.peakRssMb)}`, String(row.retainedHeapMb), `${int((row.retainedHeapMb * 2 ** 20) / row.supporters)} B`, String(row.snapshotJsonMb)]),
    ),
    '',
    'Warm `GET /membership/pledges` of the whole app against the raw `node:http` floor serving the same bytes:',
    '',
    table(
      ['patrons', 'body bytes', 'app req/s', 'app p99 ms', 'floor req/s', 'floor p99 ms', 'app ÷ floor', 'target'],
      'rrrrrrrl',
      results.warmGets.map(({ patrons, bodyBytes, rows: [app, floor], ratioToFloor, target }) => [int(patrons), int(bodyBytes), int(app.result.requestsPerSecond), String(app.result.p99Ms), int(floor.result.requestsPerSecond), String(floor.result.p99Ms), times(ratioToFloor), `≥ ${target}×: ${met(ratioToFloor >= target)}`]),
    ),
  ].join('\n');
}

const COMPRESSION_SCENARIOS: Readonly<Record<string, string>> = {
  issue: 'supporters query, response cache off (compressed per request)',
  'issue/cache-hit': 'supporters query, response-cache hit (compressed once)',
  rest: 'warm `GET /membership/pledges` (compressed once per snapshot)',
  large: 'tiers and their supporters, response cache off (compressed per request)',
  'large/cache-hit': 'tiers and their supporters, response-cache hit (compressed once)',
};

async function compression(read: ReadResults): Promise<string> {
  const results = await read('compression');
  const rows: string[][] = [];
  const groups = new Map<string, Results<'compression'>['rows']>();
  for (const row of results.rows) groups.set(`${row.dataset} ${row.scenario}`, [...(groups.get(`${row.dataset} ${row.scenario}`) ?? []), row]);
  for (const [key, group] of groups) {
    const identity = group.find((row) => row.coding === 'identity');
    if (identity === undefined) throw new Error(`bench/results/compression.json: rows: no identity row for ${key}`);
    const dataset = identity.dataset === 'default sandbox' ? 'default dataset' : `\`${identity.dataset}\``;
    group.forEach((row, index) => {
      const ratios = results.roundRatios[`${key} ${row.coding}`];
      if (row.coding !== 'identity' && ratios === undefined) throw new Error(`bench/results/compression.json: roundRatios: no "${key} ${row.coding}"`);
      rows.push([
        index === 0 ? `${labelOf(COMPRESSION_SCENARIOS, row.scenario, 'compression', 'rows[].scenario')}, ${dataset}` : '',
        row.coding,
        int(row.bodyBytes),
        row.coding === 'identity' ? '' : times(identity.bodyBytes / row.bodyBytes),
        ratios === undefined ? `${amount(row.result.requestsPerSecond)} req/s` : `${times(median(ratios))} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        int(row.result.cpuMicrosPerRequest),
      ]);
    });
  }
  const { millionBytesList: list, cacheHitVsIdentityHit: hit } = results.targets;
  const codings = (['gzip', 'br', 'zstd'] as const).filter((coding) => list[coding] !== undefined);
  return [
    provenance(results),
    `${results.connections} connections, median of ${results.rounds} interleaved rounds of ${results.durationSeconds} s each in fresh processes of \`npm start\`'s build, over loopback (where a smaller body saves no network time). Each coding is asked for alone; "× identity" is its req/s over identity's, round by round (the median, and the lowest–highest).`,
    '',
    table(['answer', 'coding', 'body bytes', 'smaller by', '× identity', 'CPU µs/request'], 'llrrrr', rows),
    '',
    table(
      ['target', 'measured', ''],
      'lll',
      [
        ...codings.map((coding) => [`the ${megabytes(list.identityBytes)} supporters list ≥ ${list.target}× smaller in ${coding}`, times(list[coding]), met((list[coding] ?? 0) >= list.target)]),
        ...codings.flatMap((coding) => {
          const figure = hit[coding];
          return figure === undefined ? [] : [[`a response-cache hit in ${coding} ≥ ${hit.target}× an identity hit`, `${times(figure.median)} (${figure.lowest.toFixed(2)}–${figure.highest.toFixed(2)})`, met(figure.median >= hit.target)]];
        }),
      ],
    ),
  ].join('\n');
}

async function memory(read: ReadResults): Promise<string> {
  const results = await read('memory');
  const { targets } = results;
  return [
    provenance(results),
    `${int(results.documentCount)} distinct documents of ${int(results.maxDocumentBytes)} bytes (valid and heavy, syntax errors, unknown fields, token-limit breakers, one byte over the limit; POST and GET), ${results.concurrency} at a time; RSS of the \`npm start\` process, "after" ${results.pauseSeconds} s later. Targets: peak < ${targets.peakMb} MB, after − idle < ${targets.afterMinusIdleMb} MB, ${targets.deaths} deaths.`,
    '',
    table(
      ['configuration', 'idle MB', 'peak MB', 'after MB', 'after − idle MB', 'deaths', 'unexpected answers', ''],
      'lrrrrrrl',
      results.rows.map((row) => {
        const holds = row.peakMb < targets.peakMb && row.afterMb - row.idleMb < targets.afterMinusIdleMb && row.deaths <= targets.deaths && row.unexpected === 0;
        return [row.configuration, int(row.idleMb), int(row.peakMb), int(row.afterMb), int(row.afterMb - row.idleMb), String(row.deaths), String(row.unexpected), met(holds)];
      }),
    ),
  ].join('\n');
}

async function events(read: ReadResults): Promise<string> {
  const results = await read('events');
  const { subscribers: count, targets } = results;
  const ms = (value: number): string => `${value} ms`;
  return [
    provenance(results),
    `${count.graphqlSse} GraphQL-over-SSE subscribers, ${count.events} \`GET /events\` streams and ${count.websocket} GraphQL-over-WebSocket subscribers open at once; ${results.rounds} webhooks.`,
    '',
    table(
      ['figure', 'measured', 'target'],
      'lrl',
      [
        [`webhook → last of ${int(count.total)} subscribers, p50`, ms(results.lastSubscriber.p50Ms), ''],
        [`webhook → last of ${int(count.total)} subscribers, p99`, ms(results.lastSubscriber.p99Ms), `< ${targets.lastSubscriberP99Ms} ms: ${met(results.lastSubscriber.p99Ms < targets.lastSubscriberP99Ms)}`],
        ['every delivery, p50 / p99', `${results.everyDelivery.p50Ms} / ${ms(results.everyDelivery.p99Ms)}`, ''],
        ['by transport, p50: GraphQL over SSE / `GET /events` / WebSocket', `${results.byTransport['graphql-sse'].p50Ms} / ${results.byTransport.events.p50Ms} / ${ms(results.byTransport['graphql-ws'].p50Ms)}`, ''],
        ['floor (1 subscriber per transport), p50 / p99', `${results.oneSubscriberPerTransport.p50Ms} / ${ms(results.oneSubscriberPerTransport.p99Ms)}`, ''],
        ['RSS per idle subscriber (after a full GC)', `${results.rss.kbPerIdleSubscriber} KB`, `< ${targets.kbPerIdleSubscriber} KB: ${met(results.rss.kbPerIdleSubscriber < targets.kbPerIdleSubscriber)}`],
        ['lost deliveries', String(results.lostDeliveries), `0: ${met(results.lostDeliveries === 0)}`],
      ],
    ),
  ].join('\n');
}

const REPLICA_SCENARIOS: Readonly<Record<string, string>> = {
  REST: 'REST `GET /membership/pledges`',
  'GraphQL uncached': 'GraphQL, response cache off',
  'GraphQL cached': 'GraphQL, response cache on',
};

async function replicas(read: ReadResults): Promise<string> {
  const results = await read('replicas');
  const choice = results.responseCacheChoice;
  return [
    provenance(results),
    `${results.connections} connections split between the replicas (one autocannon each), ${results.durationSeconds} s.`,
    '',
    table(
      ['deployment', 'scenario', 'req/s', 'p99 ms', '× files/1', 'Redis commands / request'],
      'llrrrr',
      results.rows.map((row) => [row.deployment, labelOf(REPLICA_SCENARIOS, row.scenario, 'replicas', 'rows[].scenario'), int(row.requestsPerSecond), String(row.p99Ms), times(row.ratioToFiles1), row.redisCommandsPerRequest === undefined ? '—' : String(row.redisCommandsPerRequest)]),
    ),
    '',
    `A response-cache hit from memory took ${choice.inMemoryHitMicros} µs, a Redis \`GET\` of the same ${int(choice.answerBytes)}-byte answer ${choice.redisGetMicros} µs (median of 2,000, one after another).`,
  ].join('\n');
}

async function durability(read: ReadResults): Promise<string> {
  const results = await read('durability');
  return [
    provenance(results),
    `${int(results.rounds)} refreshes of a ${results.tokenBytes}-byte token through the real keeper and token store.`,
    '',
    table(['window', 'median ms', 'p99 ms', 'max ms'], 'lrrr', Object.entries(results.windows).map(([name, window]) => [name, window.medianMs.toFixed(1), window.p99Ms.toFixed(1), window.maxMs.toFixed(1)])),
  ].join('\n');
}

async function history(read: ReadResults): Promise<string> {
  const results = await read('history');
  const rows = (['pglite', 'postgres'] as const).flatMap((backend) => {
    const r = results[backend];
    if (r === undefined) return [];
    return [[backend === 'pglite' ? 'PGlite' : 'PostgreSQL', String(r.days), int(r.changes), `${r.storageMb}${'directoryMb' in r ? ` (directory ${r.directoryMb})` : ''}`, String(r.yearByDayMs.p99Ms), String(r.changesPageMs.p99Ms), `${r.refresh.withMs} / ${r.refresh.withoutMs} = ${times(r.refresh.ratio)}`]];
  });
  const idle = results.idleRss;
  return [
    provenance(results),
    `${int(results.patrons)} patrons; load average ${results.loadBefore.split(' ').slice(0, 3).join(' ')} before, ${results.loadAfter.split(' ').slice(0, 3).join(' ')} after.`,
    '',
    table(['database', 'days', 'changes', 'storage MB (≤ 50)', 'history by day p99 ms (≤ 50)', 'page of changes p99 ms (≤ 20)', 'refresh ms with / without recording (≤ 1.2×)'], 'lrrrrrl', rows),
    '',
    `Idle RSS of the service: ${idle.withoutMb} MB without the history, ${idle.withMb} MB with the embedded database (${idle.deltaMb >= 0 ? '+' : ''}${idle.deltaMb} MB; target ≤ +60)${idle.firstStartMb === undefined ? '' : `; ${idle.firstStartMb} MB after the first start, which creates the database`}.`,
  ].join('\n');
}

async function notifications(read: ReadResults): Promise<string> {
  const results = await read('notifications');
  const rows = (['pglite', 'postgres'] as const).flatMap((backend) => {
    const r = results[backend];
    if (r === undefined) return [];
    const { steady, burst, outage } = r;
    const heap = outage.memory.map((sample) => sample.heapMb);
    return [
      [
        backend === 'pglite' ? 'PGlite' : 'PostgreSQL',
        `${int(steady.p50Ms)} / ${int(steady.p99Ms)} (${met(steady.p99Ms <= 1000)})`,
        `${int(burst.deliveriesPerSecond)} (${times(burst.ratioToFloor)})`,
        `${int(outage.events)}; heap ${heap.length === 0 ? '—' : `${Math.min(...heap)}–${Math.max(...heap)}`} MB, growth ${outage.heapGrowthMb} MB`,
        `${outage.recoveryRealSeconds} s (${outage.recoverySimulatedMinutes} simulated min)`,
        outage.allDelivered ? 'yes' : '**no**',
      ],
    ];
  });
  const load = (line: string): string => line.split(' ').slice(0, 3).join(' ');
  return [
    provenance(results),
    `${int(results.events)} events to ${results.destinations} destinations; the floor, bare POSTs at the same concurrency without a database: ${int(results.floor.deliveriesPerSecond)} a second. Load average ${load(results.loadBefore)} before, ${load(results.loadAfter)} after.`,
    '',
    table(
      ['database', `recorded → received p50 / p99 ms at ${results.rate} events/s (p99 ≤ 1,000)`, 'deliveries/s, all at once (× floor)', 'one destination down an hour: events; heap', 'its backlog delivered in', 'every event delivered'],
      'lrrlll',
      rows,
    ),
  ].join('\n');
}

async function oauth2(read: ReadResults): Promise<string> {
  const results = await read('oauth2');
  const { requestsPerSecond: rps, accessTokenGetTimeRatio: ratio, settings } = results;
  return [
    provenance(results),
    `${settings.rounds} rounds of ${settings.roundMs} ms per operation, order rotated, ${settings.concurrency} concurrent loops; the ratio is the median of the per-round time ratios.`,
    '',
    table(
      ['operation', 'req/s', 'accessToken.get() time ÷ this'],
      'lrl',
      [
        ['bare ky GET (global fetch)', int(rps.bareKyGet), `${times(ratio.vsBareKy)} (target ≤ ${results.target}×: ${met(ratio.vsBareKy <= results.target)})`],
        ['ky GET on the library transport', int(rps.kyGetLibraryTransport), times(ratio.vsKyOnLibraryTransport)],
        ['accessToken.get()', int(rps.accessTokenGet), times(1)],
        ['clientCredentials.getToken()', int(rps.clientCredentialsGetToken), ''],
      ],
    ),
  ].join('\n');
}

async function packages(read: ReadResults): Promise<string> {
  const results = await read('packages');
  return [
    provenance(results),
    '',
    table(
      ['package', 'installed packages', 'installed', 'on the disk', 'consumer bundle, min + gzip'],
      'lrrrl',
      results.footprints.map((footprint) => [`\`${footprint.name}\``, String(footprint.packages.length), megabytes(footprint.installedBytes), megabytes(footprint.diskBytes), footprint.bundles.map((bundle) => `${bundle.label} ${kilobytes(bundle.gzippedBytes)}`).join('; ')]),
    ),
  ].join('\n');
}

/** Every region the pages may hold, by name: `<!-- bench-report:<name> -->` … `<!-- /bench-report -->`. */
export const REGIONS: Readonly<Record<string, (read: ReadResults) => Promise<string>>> = {
  graph,
  instructions: instructionsTable,
  starwars,
  codegen,
  startup,
  dev,
  channel: channelTables,
  compression,
  memory,
  events,
  replicas,
  durability,
  history,
  notifications,
  oauth2,
  packages,
};
