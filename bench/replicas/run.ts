/**
 * Scale out on Redis: the same load on
 *   files/1 — one replica, snapshots in files under DATA_DIR (REDIS_URL unset), and
 *   redis/3 — three replicas sharing snapshots, invalidations and events through one redis-server,
 * the load split round-robin-like over the three (one autocannon per replica, connections divided),
 * for GET /membership/pledges (REST), the graph's supporters query with the response cache off
 * (GraphQL uncached) and on (GraphQL cached): requests/s (summed) and p99 (the worst replica's), and
 * the Redis commands per request during each redis/3 load (INFO commandstats; the blocking event read,
 * once a second per idle replica, is counted apart: it is time-driven, not per request).
 * Also the choice of the response cache for several replicas: a hit of a Redis-backed cache costs at
 * least one GET round trip of the cached answer; measured here against the in-memory lookup we keep.
 * Every replica runs in its own process (bench/replicas/replica.ts); on a 2-core machine three
 * replicas share the cores with the load generator, so redis/3 measures the cost of sharing, not a
 * gain of scaling out.
 * Run: `npx tsx bench/replicas/run.ts` (BENCH_DURATION / BENCH_CONNECTIONS override 4 s / 12).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { REDIS_SERVER, startRedisServer } from '../../test/support/redis-server.js';
import { formatTable, ratio, runLoad, saveResults, type LoadResult } from '../lib/index.js';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 12);
const REPLICA = fileURLToPath(new URL('./replica.ts', import.meta.url));
const QUERY = JSON.stringify({ query: '{ supporters { __typename id name amountCents tier { title } } }' });
const GRAPH_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

type Scenario = 'REST' | 'GraphQL uncached' | 'GraphQL cached';
const SCENARIOS: readonly Scenario[] = ['REST', 'GraphQL uncached', 'GraphQL cached'];

interface Replica {
  url: string;
  child: ChildProcess;
  dataDir: string;
}

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-replica-'));
  const child = fork(REPLICA, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env, BENCH_DATA_DIR: dataDir }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`replica exited (${code})`)));
    child.once('message', (message) => resolve((message as { url: string }).url));
  });
  return { url, child, dataDir };
}

async function stopReplicas(replicas: Replica[]): Promise<void> {
  await Promise.all(
    replicas.map(async (replica) => {
      const exited = new Promise((resolve) => replica.child.once('exit', resolve));
      replica.child.disconnect();
      await exited;
      await rm(replica.dataDir, { recursive: true, force: true });
    }),
  );
}

/** Load on every replica at once (connections split between them); req/s summed, p99 the worst. */
async function loadAll(replicas: Replica[], scenario: Scenario): Promise<LoadResult> {
  const each = Math.max(1, Math.round(connections / replicas.length));
  const results = await Promise.all(
    replicas.map((replica) =>
      scenario === 'REST'
        ? runLoad({ url: `${replica.url}/membership/pledges`, connections: each, durationSeconds, warmupSeconds: 1 })
        : runLoad({ url: `${replica.url}/graphql`, method: 'POST', body: QUERY, headers: GRAPH_HEADERS, connections: each, durationSeconds, warmupSeconds: 1 }),
    ),
  );
  return {
    requestsPerSecond: results.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    p50Ms: Math.max(...results.map((result) => result.p50Ms)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    bytesRead: results.reduce((sum, result) => sum + result.bytesRead, 0),
    non2xx: 0,
    errors: 0,
  };
}

async function commandCounts(connection: Redis): Promise<Map<string, number>> {
  const info = await connection.info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((match) => [match[1] ?? '', Number(match[2])]));
}

/** Median of `samples` microsecond timings of `run`. */
async function medianMicros(samples: number, run: () => unknown): Promise<number> {
  const timings: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = process.hrtime.bigint();
    await run();
    timings.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  timings.sort((a, b) => a - b);
  return Math.round((timings[Math.floor(samples / 2)] ?? 0) * 10) / 10;
}

if (REDIS_SERVER.path === undefined) throw new Error(`bench/replicas needs redis-server: ${REDIS_SERVER.install}`);
const redis = await startRedisServer(REDIS_SERVER.path);
const measurement = createRedisConnection({ url: redis.url, prefix: '' });
await measurement.connect();
const sandbox = await startSandbox();
const sandboxEnv = { BENCH_SANDBOX: JSON.stringify({ url: sandbox.url, credentials: sandbox.credentials }) };
const rows: Array<{ deployment: string; scenario: Scenario; result: LoadResult; redisCommandsPerRequest?: number; eventReadsPerSecond?: number }> = [];
try {
  for (const deployment of ['files/1', 'redis/3'] as const) {
    for (const responseCache of [false, true]) {
      const env = { ...sandboxEnv, BENCH_RESPONSE_CACHE: String(responseCache), ...(deployment === 'redis/3' ? { BENCH_REDIS_URL: redis.url } : {}) };
      const replicas: Replica[] = [];
      try {
        for (let index = 0; index < (deployment === 'redis/3' ? 3 : 1); index += 1) replicas.push(await startReplica(env));
        for (const scenario of SCENARIOS.filter((name) => (name === 'GraphQL cached') === responseCache || (name === 'REST' && !responseCache))) {
          const before = await commandCounts(measurement);
          const started = performance.now();
          const result = await loadAll(replicas, scenario);
          const seconds = (performance.now() - started) / 1000;
          const after = await commandCounts(measurement);
          const delta = (command: string): number => (after.get(command) ?? 0) - (before.get(command) ?? 0);
          const perRequest = [...after.keys()].filter((command) => command !== 'xread' && command !== 'info').reduce((sum, command) => sum + delta(command), 0);
          // The load includes its warm-up second: divide by everything sent, measured or not.
          const sent = result.requests * ((durationSeconds + 1) / durationSeconds);
          rows.push({
            deployment,
            scenario,
            result,
            ...(deployment === 'redis/3' && { redisCommandsPerRequest: perRequest / sent, eventReadsPerSecond: Math.round((delta('xread') / seconds) * 10) / 10 }),
          });
          console.log(`${deployment} ${scenario}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms${deployment === 'redis/3' ? `, ${perRequest} Redis commands (besides the event reads) over ~${Math.round(sent)} requests` : ''}`);
        }
      } finally {
        await stopReplicas(replicas);
      }
    }
  }

  // The response cache for several replicas: in memory per replica (pub/sub invalidation, what we
  // keep) versus in Redis (@envelop/response-cache-redis): its hit is at least a GET of the answer.
  const answer = await (async () => {
    const replica = await startReplica({ ...sandboxEnv, BENCH_RESPONSE_CACHE: 'true' });
    try {
      const response = await fetch(`${replica.url}/graphql`, { method: 'POST', headers: GRAPH_HEADERS, body: QUERY });
      return await response.text();
    } finally {
      await stopReplicas([replica]);
    }
  })();
  await measurement.set('bench:cached-answer', answer);
  const inMemory = new Map([['key', Buffer.from(answer)]]);
  const redisGetMicros = await medianMicros(2_000, () => measurement.getBuffer('bench:cached-answer'));
  const memoryGetMicros = await medianMicros(2_000, () => inMemory.get('key'));

  const baseline = (scenario: Scenario) => rows.find((row) => row.deployment === 'files/1' && row.scenario === scenario)?.result.requestsPerSecond ?? Number.NaN;
  console.log(
    `\n${formatTable(
      ['deployment', 'scenario', 'req/s', 'p99 ms', '× files/1', 'Redis cmds/request'],
      rows.map((row) => [
        row.deployment,
        row.scenario,
        row.result.requestsPerSecond.toFixed(0),
        row.result.p99Ms.toFixed(1),
        ratio(row.result.requestsPerSecond, baseline(row.scenario)).toFixed(2),
        row.redisCommandsPerRequest === undefined ? '-' : row.redisCommandsPerRequest.toFixed(4),
      ]),
    )}`,
  );
  console.log(`\nresponse cache hit: in memory ${memoryGetMicros} µs; a Redis GET of the ${answer.length}-byte answer ${redisGetMicros} µs (median of 2,000, sequential)`);
  const file = await saveResults('replicas', {
    command: 'npx tsx bench/replicas/run.ts',
    durationSeconds,
    connections,
    rows: rows.map((row) => ({
      deployment: row.deployment,
      scenario: row.scenario,
      requestsPerSecond: Math.round(row.result.requestsPerSecond),
      p50Ms: row.result.p50Ms,
      p99Ms: row.result.p99Ms,
      ratioToFiles1: ratio(row.result.requestsPerSecond, baseline(row.scenario)),
      ...(row.redisCommandsPerRequest !== undefined && { redisCommandsPerRequest: row.redisCommandsPerRequest, eventReadsPerSecond: row.eventReadsPerSecond }),
    })),
    responseCacheChoice: { answerBytes: answer.length, inMemoryHitMicros: memoryGetMicros, redisGetMicros, chosen: 'in memory per replica, emptied on every replica through the change notification' },
    note: 'shared 2-core machine: three replicas, the load generator and redis-server compete for the same cores',
  });
  console.log(`saved ${file}`);
} finally {
  await closeRedisConnection(measurement);
  await sandbox.close();
  await redis.stop();
}
