/**
 * The results files the benches write (`bench/results/<name>.json`, through bench/lib/results.ts),
 * read against the shape each bench gives them. A field a bench always writes is required; one it
 * writes only for some scenarios or targets is optional here too. A file that lacks a required field
 * is an error naming the file and the field, never a table with a hole in it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What bench/lib/results.ts stamps on every file. */
const stamp = {
  name: z.string(),
  measuredAt: z.string(),
  machine: z.object({ node: z.string(), cpus: z.number(), cpuModel: z.string(), memoryGb: z.number() }),
};

/** bench/lib/load.ts's figures of one autocannon run. */
const load = z.object({ requestsPerSecond: z.number(), p50Ms: z.number(), p99Ms: z.number(), requests: z.number(), non2xx: z.number(), errors: z.number() });
const measuredLoad = load.extend({ cpuMicrosPerRequest: z.number() });
/** A ratio the bench computed; JSON writes NaN (a target left out of the run) as null. */
const ratio = z.number().nullable();
const range = z.object({ lowest: z.number(), highest: z.number() });
/** A wall time measured several times (bench/codegen). */
const timing = z.object({ medianMs: z.number(), minMs: z.number(), maxMs: z.number() });
const queries = z.object({ issue: z.string(), variables: z.string(), large: z.string() });

/** One scenario's floor in bench/graph: ours against the documented yoga, the other peers beside it. */
const graphFloor = z.object({ vsYoga: ratio, target: z.number(), vsMercurius: ratio, vsMain: ratio.optional(), cpuVsYoga: ratio, load: z.number().nullable() });

/** bench/notifications's figures on one database. */
const notificationsBackend = z.object({
  steady: z.object({ eventsPerSecond: z.number(), events: z.number(), deliveries: z.number(), p50Ms: z.number(), p99Ms: z.number(), maxMs: z.number() }),
  burst: z.object({ deliveriesPerSecond: z.number(), seconds: z.number(), ratioToFloor: ratio }),
  outage: z.object({
    speedup: z.number(),
    events: z.number(),
    memory: z.array(z.object({ atSimulatedMinute: z.number(), heapMb: z.number(), rssMb: z.number(), backlog: z.number() })),
    heapGrowthMb: z.number(),
    recoverySimulatedMinutes: z.number(),
    recoveryRealSeconds: z.number(),
    allDelivered: z.boolean(),
  }),
});

export const SCHEMAS = {
  graph: z.object({
    ...stamp,
    queries,
    connections: z.number(),
    durationSeconds: z.number(),
    rounds: z.number(),
    /** `main` when BENCH_MAIN ran today's main beside ours. */
    comparedWith: z.string().nullable(),
    rows: z.array(z.object({ scenario: z.string(), target: z.string(), result: measuredLoad.extend({ load: z.number() }), responseBytes: z.number() })),
    memory: z.array(z.object({ dataset: z.string(), target: z.string(), idleRssMb: z.number(), peakRssMb: z.number(), peakRssMaxMb: z.number() })),
    targets: z.object({
      floors: z.record(z.string(), graphFloor),
      restVsFloor: z.object({ ratio, cpuPerRequestRatio: ratio, target: z.number() }),
      oursPeakRssMb: z.object({ value: z.number(), highestProcess: z.number(), target: z.number(), nodeFlags: z.string() }),
    }),
  }),
  instructions: z.object({
    ...stamp,
    queries,
    requests: z.record(z.string(), z.object({ warmup: z.number(), counted: z.number() })),
    rounds: z.number(),
    nodeFlags: z.array(z.string()),
    overheadTarget: z.number(),
    rows: z.array(z.object({ scenario: z.string(), responseCache: z.boolean(), threads: z.enum(['all', 'main']), targets: z.record(z.string(), range) })),
    gains: z.array(z.object({ optimisation: z.string(), lines: z.number().nullable(), without: z.string(), with: z.string(), saved: z.number(), share: z.number() })),
    observation: z.array(z.object({ scenario: z.string(), instructions: z.number(), share: z.number() })),
  }),
  starwars: z.object({
    ...stamp,
    query: z.string(),
    connections: z.number(),
    durationSeconds: z.number(),
    rounds: z.number(),
    rows: z.array(z.object({ name: z.string(), result: load })),
    targets: z.record(z.string(), z.object({ ratio, target: z.number() })),
  }),
  codegen: z.object({
    ...stamp,
    runs: z.number(),
    coldNpmCodegen: timing.extend({ targetMs: z.number() }),
    coldGraphqlCodegen: timing,
    coldCodegenCheck: timing,
    loadCodegenCli: timing,
    loadOpenapiTypescript: timing,
    loadNode: timing,
    watchSaveToRewrite: timing.extend({ targetMs: z.number() }),
  }),
  startup: z.object({
    ...stamp,
    rounds: z.number(),
    rebuildRounds: z.number(),
    rows: z.record(z.string(), z.object({ medianMs: z.number(), minMs: z.number(), maxMs: z.number(), runs: z.number() })),
  }),
  dev: z.object({
    ...stamp,
    runs: z.number(),
    quietLoad: z.number(),
    checkers: z.object({ agree: z.boolean(), typescript5Ms: z.number(), typescript7Ms: z.number(), diagnostics: z.array(z.string()) }),
    steps: z.record(
      z.enum(['firstAnswer', 'firstTypecheck', 'sdlToTypes', 'sdlToServed', 'sdlToError', 'resolverToServed']),
      z.object({ ours: z.object({ ms: z.number(), load: z.number() }), peer: z.object({ ms: z.number(), load: z.number() }), ratio: z.number(), targetMs: z.number() }),
    ),
  }),
  channel: z.object({
    ...stamp,
    coldFetch10k: z.object({ patrons: z.number(), pages: z.number(), supporters: z.number(), wallMs: z.number(), rssBeforeMb: z.number(), peakRssMb: z.number(), retainedHeapMb: z.number(), snapshotJsonMb: z.number() }),
    snapshot100k: z.object({ patrons: z.number(), pages: z.number(), supporters: z.number(), wallMs: z.number(), rssBeforeMb: z.number(), peakRssMb: z.number(), retainedHeapMb: z.number(), snapshotJsonMb: z.number() }),
    warmGets: z.array(z.object({ patrons: z.number(), bodyBytes: z.number(), rows: z.tuple([z.object({ name: z.string(), result: load }), z.object({ name: z.string(), result: load })]), ratioToFloor: z.number(), target: z.number() })),
  }),
  compression: z.object({
    ...stamp,
    connections: z.number(),
    durationSeconds: z.number(),
    rounds: z.number(),
    rows: z.array(z.object({ dataset: z.string(), scenario: z.string(), coding: z.string(), bodyBytes: z.number(), result: measuredLoad.extend({ wireBytesPerResponse: z.number() }) })),
    roundRatios: z.record(z.string(), z.array(z.number())),
    targets: z.object({
      millionBytesList: z.object({ identityBytes: z.number(), gzip: z.number(), br: z.number(), zstd: z.number().optional(), target: z.number() }),
      cacheHitVsIdentityHit: z.object({ gzip: range.extend({ median: z.number() }), br: range.extend({ median: z.number() }), zstd: range.extend({ median: z.number() }).optional(), target: z.number() }),
    }),
  }),
  memory: z.object({
    ...stamp,
    documentCount: z.number(),
    maxDocumentBytes: z.number(),
    concurrency: z.number(),
    pauseSeconds: z.number(),
    targets: z.object({ peakMb: z.number(), afterMinusIdleMb: z.number(), deaths: z.number() }),
    rows: z.array(z.object({ configuration: z.string(), documents: z.number(), unexpected: z.number(), idleMb: z.number(), peakMb: z.number(), afterMb: z.number(), deaths: z.number() })),
  }),
  events: z.object({
    ...stamp,
    subscribers: z.object({ graphqlSse: z.number(), events: z.number(), websocket: z.number(), total: z.number() }),
    rounds: z.number(),
    lostDeliveries: z.number(),
    oneSubscriberPerTransport: z.object({ p50Ms: z.number(), p99Ms: z.number() }),
    lastSubscriber: z.object({ p50Ms: z.number(), p99Ms: z.number() }),
    everyDelivery: z.object({ p50Ms: z.number(), p99Ms: z.number() }),
    byTransport: z.object({ 'graphql-sse': z.object({ p50Ms: z.number() }), events: z.object({ p50Ms: z.number() }), 'graphql-ws': z.object({ p50Ms: z.number() }) }),
    rss: z.object({ kbPerIdleSubscriber: z.number() }),
    targets: z.object({ lastSubscriberP99Ms: z.number(), kbPerIdleSubscriber: z.number() }),
  }),
  replicas: z.object({
    ...stamp,
    durationSeconds: z.number(),
    connections: z.number(),
    rows: z.array(z.object({ deployment: z.string(), scenario: z.string(), requestsPerSecond: z.number(), p99Ms: z.number(), ratioToFiles1: ratio, redisCommandsPerRequest: z.number().optional(), eventReadsPerSecond: z.number().optional() })),
    responseCacheChoice: z.object({ answerBytes: z.number(), inMemoryHitMicros: z.number(), redisGetMicros: z.number() }),
  }),
  history: z.object({
    ...stamp,
    patrons: z.number(),
    loadBefore: z.string(),
    loadAfter: z.string(),
    pglite: z.object({ days: z.number(), changes: z.number(), storageMb: z.number(), directoryMb: z.number(), yearByDayMs: z.object({ p99Ms: z.number() }), changesPageMs: z.object({ p99Ms: z.number() }), refresh: z.object({ withMs: z.number(), withoutMs: z.number(), ratio: z.number() }) }).optional(),
    postgres: z.object({ days: z.number(), changes: z.number(), storageMb: z.number(), yearByDayMs: z.object({ p99Ms: z.number() }), changesPageMs: z.object({ p99Ms: z.number() }), refresh: z.object({ withMs: z.number(), withoutMs: z.number(), ratio: z.number() }) }).optional(),
    idleRss: z.object({ withoutMb: z.number(), withMb: z.number(), firstStartMb: z.number().optional(), deltaMb: z.number() }),
  }),
  notifications: z.object({
    ...stamp,
    events: z.number(),
    rate: z.number(),
    destinations: z.number(),
    loadBefore: z.string(),
    loadAfter: z.string(),
    floor: z.object({ deliveriesPerSecond: z.number() }),
    pglite: notificationsBackend.optional(),
    postgres: notificationsBackend.optional(),
  }),
  durability: z.object({
    ...stamp,
    rounds: z.number(),
    tokenBytes: z.number(),
    windows: z.record(z.string(), z.object({ medianMs: z.number(), p99Ms: z.number(), maxMs: z.number() })),
  }),
  oauth2: z.object({
    ...stamp,
    settings: z.object({ rounds: z.number(), roundMs: z.number(), concurrency: z.number() }),
    requestsPerSecond: z.object({ bareKyGet: z.number(), kyGetLibraryTransport: z.number(), accessTokenGet: z.number(), clientCredentialsGetToken: z.number() }),
    accessTokenGetTimeRatio: z.object({ vsBareKy: z.number(), vsKyOnLibraryTransport: z.number() }),
    target: z.number(),
  }),
  packages: z.object({
    ...stamp,
    footprints: z.array(z.object({ name: z.string(), packages: z.array(z.string()), installedBytes: z.number(), diskBytes: z.number(), bundles: z.array(z.object({ label: z.string(), minifiedBytes: z.number(), gzippedBytes: z.number() })) })),
  }),
} as const;

export type ResultsName = keyof typeof SCHEMAS;
export type Results<N extends ResultsName> = z.infer<(typeof SCHEMAS)[N]>;
export type Stamp = Pick<Results<'graph'>, 'name' | 'measuredAt' | 'machine'>;

export const RESULTS_DIR = 'bench/results';

/** A results file's text, checked against its bench's shape: an error names the file and the first fields that are not as written. */
export function parseResults<N extends ResultsName>(name: N, text: string): Results<N> {
  const file = `${RESULTS_DIR}/${name}.json`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  const parsed = SCHEMAS[name].safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.map(String).join('.') || '(the document)'}: ${issue.message}`);
    throw new Error(`${file}: ${fields.join('; ')}`);
  }
  return parsed.data as Results<N>;
}

export async function readResults<N extends ResultsName>(root: string, name: N): Promise<Results<N>> {
  return parseResults(name, await readFile(join(root, RESULTS_DIR, `${name}.json`), 'utf8'));
}
