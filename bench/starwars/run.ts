/**
 * Star Wars hero query: requests/s and p99 of
 *   ours          — createStarWarsServer (yoga), no cache
 *   ours+jit      — the same with @envelop/graphql-jit (what mercurius gets)
 *   ours+plugin-cache — the same with @graphql-yoga/plugin-response-cache (cache inside yoga)
 *   ours+response-cache — the same with src/graphql/speed/response-cache.ts, the product's response
 *                   cache plugin (what `npm start` uses for the channel graph)
 *   mercurius+jit — fastify + mercurius (jit from the first request) on the same executable schema
 *   floor         — raw node:http returning the same JSON bytes
 * Targets (measured, not asserted): ours ≥ 1.0× mercurius; ours with a response cache ≥ 0.7× floor.
 * Run: `npx tsx bench/starwars/run.ts` (BENCH_DURATION / BENCH_CONNECTIONS / BENCH_ROUNDS override
 * 4 s / 10 / 3: each target gets three interleaved 4 s rounds, ~12 s in all).
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import { useResponseCache } from '@graphql-yoga/plugin-response-cache';
import type { Plugin } from 'graphql-yoga';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { createStarWarsData } from '../../examples/starwars/context.js';
import { resolvers } from '../../examples/starwars/resolvers.js';
import { createStarWarsServer, starWarsSchemaDir } from '../../examples/starwars/server.js';
import { createExecutableSchema } from '../../src/graphql/schema/executable-schema.js';
import { createResponseCache } from '../../src/graphql/speed/response-cache.js';
import { formatLoadTable, listen, ratio, runLoad, saveResults, startFloorServer, type LoadResult, type Listening, type Row } from '../lib/index.js';

const heroQuery =
  '{ hero { __typename name friends { name ... on Human { homePlanet } ... on Droid { primaryFunction } } } }';
const requestBody = JSON.stringify({ query: heroQuery });
const headers = { 'content-type': 'application/json', accept: 'application/json' };
const durationSeconds = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** graphql-jit's envelop plugin, typed as the context-agnostic yoga plugin it is (envelop's generic is invariant). */
const jit = (): Plugin => useGraphQlJit() as Plugin;

interface Target {
  name: string;
  start(): Promise<Listening>;
}

async function startMercurius(): Promise<Listening> {
  const data = createStarWarsData();
  const app = Fastify({ logger: false });
  await app.register(mercurius, {
    schema: createExecutableSchema({ schemaDir: starWarsSchemaDir }, resolvers),
    context: () => ({ starWars: data }),
    jit: 1,
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: address, close: async () => void (await app.close()) };
}

/** The Star Wars data never changes: entries leave the cache only by TTL. */
function startResponseCached(): Promise<Listening> {
  const cache = createResponseCache({ ttlMs: 60_000 });
  return listen(createStarWarsServer({ graphiql: false, plugins: [cache.plugin] }));
}

/** The exact bytes every target must answer with; also the floor's body. */
async function expectedBody(): Promise<string> {
  const reference = await listen(createStarWarsServer({ graphiql: false }));
  try {
    return await postHero(reference.url);
  } finally {
    await reference.close();
  }
}

async function postHero(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body: requestBody });
  if (!response.ok) throw new Error(`${baseUrl}: HTTP ${response.status}`);
  return response.text();
}

const body = await expectedBody();
const targets: Target[] = [
  { name: 'ours', start: () => listen(createStarWarsServer({ graphiql: false })) },
  { name: 'ours+jit', start: () => listen(createStarWarsServer({ graphiql: false, plugins: [jit()] })) },
  {
    name: 'ours+plugin-cache',
    start: () => listen(createStarWarsServer({ graphiql: false, plugins: [useResponseCache({ session: () => null })] })),
  },
  { name: 'ours+response-cache', start: startResponseCached },
  { name: 'mercurius+jit', start: startMercurius },
  { name: 'floor', start: () => startFloorServer({ body }) },
];

const rows: Row[] = [];
/**
 * The machine is shared, so load varies over time: every target runs in each of `rounds` short
 * rounds, in turn, and its figure is the round with the median throughput.
 */
const servers = new Map<string, Listening>();
try {
  for (const target of targets) {
    const server = await target.start();
    servers.set(target.name, server);
    const answer = await postHero(server.url);
    if (JSON.stringify(JSON.parse(answer)) !== JSON.stringify(JSON.parse(body))) {
      throw new Error(`${target.name} answers ${answer}, expected ${body}`);
    }
  }
  const samples = new Map<string, LoadResult[]>(targets.map((target) => [target.name, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const target of targets) {
      const url = `${servers.get(target.name)?.url}/graphql`;
      const result = await runLoad({ url, method: 'POST', body: requestBody, headers, connections, durationSeconds, warmupSeconds: round === 1 ? 2 : 1 });
      samples.get(target.name)?.push(result);
      console.log(`round ${round}/${rounds} ${target.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms`);
    }
  }
  for (const target of targets) {
    const sorted = (samples.get(target.name) ?? []).sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const median = sorted[Math.floor(sorted.length / 2)];
    if (median) rows.push({ name: target.name, result: median });
  }
} finally {
  await Promise.all([...servers.values()].map((server) => server.close()));
}

console.log(`\nhero query, ${connections} connections, median of ${rounds} rounds of ${durationSeconds} s per target\n`);
console.log(formatLoadTable(rows, ['mercurius+jit', 'floor']));

const rps = (name: string): number => rows.find((row) => row.name === name)?.result.requestsPerSecond ?? Number.NaN;
const targetsMet = {
  oursVsMercurius: { ratio: ratio(rps('ours'), rps('mercurius+jit')), target: 1.0 },
  oursJitVsMercurius: { ratio: ratio(rps('ours+jit'), rps('mercurius+jit')), target: 1.0 },
  pluginCachedVsFloor: { ratio: ratio(rps('ours+plugin-cache'), rps('floor')), target: 0.7 },
  responseCachedVsFloor: { ratio: ratio(rps('ours+response-cache'), rps('floor')), target: 0.7 },
};
console.log(`\nours / mercurius = ${targetsMet.oursVsMercurius.ratio} (target ≥ 1.0); ours+jit / mercurius = ${targetsMet.oursJitVsMercurius.ratio}; ours+plugin-cache / floor = ${targetsMet.pluginCachedVsFloor.ratio}; ours+response-cache / floor = ${targetsMet.responseCachedVsFloor.ratio} (target ≥ 0.7)`);
const file = await saveResults('starwars', { query: heroQuery, connections, durationSeconds, rounds, rows, targets: targetsMet });
console.log(`saved ${file}`);
