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
  rest: 'warm REST `GET /membership/pledges` (`rest`)',
};
export const GRAPH_TARGETS: Readonly<Record<string, string>> = {
  ours: '**ours** (as `npm start` runs it)',
  'ours/no-jit': 'ours, `GRAPHQL_JIT=false`',
  'ours/no-limits': 'ours without the limits',
  'ours/no-prepared': 'ours without prepared operations',
  'ours/default-flags': "ours with V8's default flags",
  'ours/unobserved': 'ours without request log, request and operation metrics',
  'ours+cache': 'ours + response cache (the default)',
  'mercurius+jit': 'mercurius + graphql-jit',
  'yoga/fixed-bytes': 'yoga answering fixed bytes from its first hook',
  floor: 'raw `node:http` floor (same bytes)',
  'floor/rest': 'raw `node:http` floor (the REST bytes)',
};
/** The floor each scenario is compared with. */
const FLOOR_OF: Readonly<Record<string, string>> = { issue: 'floor', rest: 'floor/rest' };

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

async function graph(read: ReadResults): Promise<string> {
  const results = await read('graph');
  const rows: string[][] = [];
  for (const [scenario, group] of byScenario(results.rows)) {
    const label = labelOf(GRAPH_SCENARIOS, scenario, 'graph', 'rows[].scenario');
    const find = (target: string | undefined): GraphRow | undefined => group.find((row) => row.target === target);
    const mercurius = find('mercurius+jit');
    const floor = find(FLOOR_OF[scenario]);
    group.forEach((row, index) => {
      const cpu = row.result.cpuMicrosPerRequest;
      rows.push([
        index === 0 ? label : '',
        labelOf(GRAPH_TARGETS, row.target, 'graph', 'rows[].target'),
        index === 0 ? int(row.responseBytes) : '',
        int(row.result.requestsPerSecond),
        String(row.result.p99Ms),
        mercurius === undefined ? '' : times(row.result.requestsPerSecond / mercurius.result.requestsPerSecond),
        floor === undefined ? '' : times(row.result.requestsPerSecond / floor.result.requestsPerSecond),
        int(cpu),
        mercurius === undefined ? '' : times(mercurius.result.cpuMicrosPerRequest / cpu),
      ]);
    });
  }
  const { targets } = results;
  const versus = (name: string, target: typeof targets.issueVsMercurius): string[] => {
    const p99 = target.p99Ms !== undefined && target.mercuriusP99Ms !== undefined ? `, p99 ${target.p99Ms} vs ${target.mercuriusP99Ms} ms` : '';
    const holds = target.ratio !== null && target.ratio >= target.target && (target.p99Ms ?? Infinity) <= (target.mercuriusP99Ms ?? -Infinity);
    return [`${name} ≥ ${target.target.toFixed(1)}× mercurius+jit (stretch ${target.stretch.toFixed(1)}×), p99 ≤ mercurius's`, `${times(target.ratio)}${p99}`, target.ratio === null ? 'not run' : met(holds)];
  };
  const floorTarget = (name: string, target: typeof targets.cachedVsFloor): string[] => [
    `${name} ≥ ${target.target}× the floor`,
    times(target.ratio),
    target.ratio === null ? 'not run' : met(target.ratio >= target.target),
  ];
  const peak = targets.oursPeakRssMb;
  const ablations = Object.entries(targets.ablationsOverOurs);
  const ablationNames = [...new Set(ablations.flatMap(([, values]) => Object.keys(values)))];
  return [
    provenance(results),
    `${results.connections} connections, median of ${results.rounds} interleaved rounds of ${results.durationSeconds} s, each in fresh processes; ours runs with \`node ${peak.nodeFlags}\`.`,
    '',
    table(['scenario', 'target', 'answer bytes', 'req/s', 'p99 ms', '× mercurius+jit', '× floor', 'CPU µs/req', 'CPU × mercurius+jit'], 'llrrrrrrr', rows),
    '',
    queriesList(results.queries),
    '',
    table(
      ['target', 'measured', ''],
      'lll',
      [
        versus('supporters query', targets.issueVsMercurius),
        versus('`variables`', targets.variablesVsMercurius),
        versus('`large` answer', targets.largeVsMercurius),
        [`peak RSS of ours ≤ ${peak.target} MB (median of its processes' peaks, on the dataset where it is highest)`, `${peak.value} MB (highest process ${peak.highestProcess})`, met(peak.value <= peak.target)],
        floorTarget('response-cache hit', targets.cachedVsFloor),
        floorTarget('warm REST', targets.restVsFloor),
      ],
    ),
    '',
    `Each ablation's req/s ÷ ours (above 1, the part it removes costs that much; below 1, the part pays for itself); yoga answering fixed bytes, the ceiling of any server behind yoga, reached ${times(targets.yogaAdapterVsFloor.ratio)} the floor:`,
    '',
    table(['scenario', ...ablationNames.map((name) => labelOf(GRAPH_TARGETS, name, 'graph', 'targets.ablationsOverOurs'))], `l${'r'.repeat(ablationNames.length)}`, ablations.map(([scenario, values]) => [labelOf(GRAPH_SCENARIOS, scenario, 'graph', 'targets.ablationsOverOurs'), ...ablationNames.map((name) => times(values[name]))])),
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

async function graphFixedRate(read: ReadResults): Promise<string> {
  const results = await read('graph-fixed-rate');
  const rows: string[][] = [];
  for (const [scenario, group] of byScenario(results.rows)) {
    const mercurius = group.find((row) => row.target === 'mercurius+jit');
    group.forEach((row, index) => {
      rows.push([
        index === 0 ? labelOf(GRAPH_SCENARIOS, scenario, 'graph-fixed-rate', 'rows[].scenario') : '',
        labelOf(GRAPH_TARGETS, row.target, 'graph-fixed-rate', 'rows[].target'),
        int(row.result.requestsPerSecond),
        String(row.result.p99Ms),
        int(row.result.cpuMicrosPerRequest),
        mercurius === undefined ? '' : times(mercurius.result.cpuMicrosPerRequest / row.result.cpuMicrosPerRequest),
      ]);
    });
  }
  return [
    provenance(results),
    `A fixed ${int(results.overallRate)} requests/s over ${results.connections} connections, median of ${results.rounds} interleaved rounds of ${results.durationSeconds} s: every target answers the same requests at the same pace, so CPU µs per request is the figure.`,
    '',
    table(['scenario', 'target', 'req/s', 'p99 ms', 'CPU µs/req', 'CPU × mercurius+jit'], 'llrrrr', rows),
  ].join('\n');
}

export const INSTRUCTION_SCENARIOS: Readonly<Record<string, string>> = {
  issue: 'supporters query (`issue`)',
  variables: '`variables`',
  large: '`large` answer (`SANDBOX_PATRONS=2000`)',
  'issue+cache': 'supporters query, response-cache hit',
  'variables+cache': '`variables`, response-cache hit',
  rest: 'warm REST `GET /membership/pledges`',
};

async function instructionsTable(read: ReadResults): Promise<string> {
  const results = await read('instructions');
  const range = (value: { lowest: number; highest: number } | undefined): string =>
    value === undefined ? '' : results.rounds > 1 ? `${instructions(value.lowest)} (${instructions(value.highest)})` : instructions(value.lowest);
  const share = (value: number): string => `${(value * 100).toFixed(1)} %`;
  const withBrotli = results.rows.some((row) => row.inBrotli !== undefined);
  const threadTable = (threads: 'main' | 'all'): string =>
    table(
      ['scenario', 'ours', 'unobserved', 'observation', 'mercurius+jit', '× mercurius+jit', 'floor', '× floor', 'floor/headers', '× floor/headers', ...(withBrotli ? ['ours in br', 'br ÷ identity'] : [])],
      `l${'r'.repeat(withBrotli ? 11 : 9)}`,
      results.rows
        .filter((row) => row.threads === threads)
        .map((row) => [
          labelOf(INSTRUCTION_SCENARIOS, row.scenario, 'instructions', 'rows[].scenario'),
          range(row.observed),
          range(row.unobserved),
          row.overheadInstructions === undefined || row.overhead === undefined ? '' : `${instructions(row.overheadInstructions)}, ${share(row.overhead)}`,
          range(row.mercurius),
          row.timesMercurius === undefined ? '' : times(row.timesMercurius),
          range(row.floor),
          row.timesFloor === undefined ? '' : times(row.timesFloor),
          range(row.floorWithHeaders),
          row.timesFloorWithHeaders === undefined ? '' : times(row.timesFloorWithHeaders),
          ...(withBrotli ? [range(row.inBrotli), row.brotliOverIdentity === undefined ? '' : times(row.brotliOverIdentity)] : []),
        ]),
    );
  const observed = results.rows.filter((row) => row.threads === 'main' && row.overhead !== undefined);
  const over = observed.filter((row) => (row.overhead ?? 0) > results.overheadTarget);
  const within = observed.filter((row) => (row.overhead ?? 0) <= results.overheadTarget);
  const names = (rows: typeof observed): string => rows.map((row) => labelOf(INSTRUCTION_SCENARIOS, row.scenario, 'instructions', 'rows[].scenario')).join(', ');
  return [
    provenance(results),
    `Node flags: \`${results.nodeFlags.join(' ')}\`. ${results.rounds > 1 ? `Each target counted in ${results.rounds} processes: the lowest, the highest in brackets.` : 'Each target counted in one process.'} Requests warmed up / counted: ${Object.entries(results.requests).map(([scenario, { warmup, counted }]) => `\`${scenario}\` ${int(warmup)} / ${int(counted)}`).join(', ')}.`,
    '',
    'Main thread (the figure to go by):',
    '',
    threadTable('main'),
    '',
    'All threads (V8\'s compiler threads included):',
    '',
    threadTable('all'),
    '',
    `Observation ≤ ${share(results.overheadTarget)} of the request on the main thread: ${within.length > 0 ? `met on ${names(within)}` : 'met nowhere'}${over.length > 0 ? `; **not met** on ${names(over)}` : ''}.`,
  ].join('\n');
}

const STARWARS_TARGETS: Readonly<Record<string, string>> = {
  ours: 'ours (yoga, graphql-js)',
  'ours+jit': 'ours + graphql-jit',
  'ours+plugin-cache': 'ours + @graphql-yoga/plugin-response-cache',
  'ours+http-cache': 'ours + HTTP-level response cache (`src/graphql/response-cache.ts`)',
  'mercurius+jit': 'mercurius + graphql-jit (same schema and resolvers)',
  floor: 'raw `node:http`, same JSON bytes (floor)',
};
const STARWARS_GOALS: Readonly<Record<string, string>> = {
  oursVsMercurius: 'ours, uncached, against mercurius+jit',
  oursJitVsMercurius: 'ours + graphql-jit, uncached, against mercurius+jit',
  pluginCachedVsFloor: "ours with yoga's plugin cache, against the floor",
  httpCachedVsFloor: 'ours with the HTTP-level cache, against the floor',
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
      ['package', 'installed packages', 'installed', 'consumer bundle, min + gzip'],
      'lrrl',
      results.footprints.map((footprint) => [`\`${footprint.name}\``, String(footprint.packages.length), megabytes(footprint.installedBytes), footprint.bundles.map((bundle) => `${bundle.label} ${kilobytes(bundle.gzippedBytes)}`).join('; ')]),
    ),
  ].join('\n');
}

/** Every region the pages may hold, by name: `<!-- bench-report:<name> -->` … `<!-- /bench-report -->`. */
export const REGIONS: Readonly<Record<string, (read: ReadResults) => Promise<string>>> = {
  graph,
  'graph-fixed-rate': graphFixedRate,
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
