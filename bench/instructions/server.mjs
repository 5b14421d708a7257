/**
 * One target of bench/instructions, run under callgrind by run.ts:
 *   observed       — the service as `npm start` builds it (compiled dist/, the in-process sandbox of
 *                    sandbox mode, production defaults), request log and HTTP and GraphQL metrics on;
 *                    run.ts also runs it without the start script's node flags (default-flags), asked
 *                    for brotli (observed/br) and revalidating its answer (observed/304)
 *   unobserved     — the same graph and REST API composed from their public factories
 *                    (createChannelGraph, createRestHandler) on the app's store, on a node:http server
 *                    of their own, without the request log and the metrics
 *   bare           — createGraphServer on the same SDL, resolvers, store and limits: the generic yoga
 *                    factory, graphql-jit and the document cache on; bare/no-jit without graphql-jit;
 *                    bare/no-document-cache without either (a document cache that keeps nothing, and
 *                    graphql-jit compiles only what it keeps): what each of the two is worth
 *   mercurius+jit  — fastify + mercurius (jit from the first request) on the same SDL, resolvers and
 *                    snapshot store, as bench/graph's target of that name (no request log)
 *   yoga+jit       — plain yoga configured as its documentation shows, as bench/graph's target of that
 *                    name: @envelop/graphql-jit, yoga's own parse and validation cache; yoga+jit+cache
 *                    adds @graphql-yoga/plugin-response-cache
 *   floor          — raw node:http answering the bytes the service answers to the scenario's request
 *                    (taken from the app, which is then closed) with their content type and length,
 *                    as bench/lib/floor.ts does in bench/graph
 *   floor/headers  — the same bytes with every header the service sent with them (on REST its ETag,
 *                    Cache-Control, the CORS header and the X-Request-Id it answered that request
 *                    with): the floor of the whole answer, headers included
 *
 *   node <start flags> server.mjs <target>
 *   env BENCH_RESPONSE_CACHE: `true` or `false` (GRAPHQL_RESPONSE_CACHE)
 *   env BENCH_LOG_BATCH_MS: the longest a log line waits for its batch (lines go to /dev/null)
 *   env BENCH_SANDBOX_PATRONS: the sandbox's patrons (default its own dataset)
 *   env BENCH_REQUEST: JSON { method, path, body? } of the scenario's request (the floors answer it)
 *
 * No .env is read (an operator's live credentials stay out of a bench): the configuration is
 * sandbox mode in a temp directory, on a free port, with no periodic refresh, and an upstream deadline
 * of 10 minutes: under callgrind, four processes at once on a loaded machine, the in-process sandbox's first answers take
 * longer than the production 10 s; idle keep-alive connections are kept 10 minutes too. Sends `{ url }` over
 * the IPC channel once listening and exits when the channel closes.
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChannelApp } from '../../dist/src/app.js';
import { loadConfig } from '../../dist/src/config.js';
import { createLogger, logDestination } from '../../dist/src/observability/logger.js';

/** Headers node:http writes by itself: a floor gives it only the others. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const SCHEMA_DIR = join(import.meta.dirname, '../../schema');
/**
 * The one connection stays open between requests: under callgrind beside other jobs, a process has
 * gone more than the production 5 s without running its event loop, and a server that closes the
 * connection then resets the next request.
 */
const KEEP_ALIVE_MS = 600_000;

const dataDir = await mkdtemp(join(tmpdir(), 'bench-instructions-data-'));
const config = loadConfig({
  cwd: dataDir,
  envFile: join(dataDir, 'no.env'),
  env: {
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, REFRESH_INTERVAL_SECONDS: '0', UPSTREAM_TIMEOUT_MS: '600000', HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    GRAPHQL_RESPONSE_CACHE: process.env.BENCH_RESPONSE_CACHE ?? 'true',
  },
});
const target = process.argv[2];
const logger = createLogger({ level: target === 'observed' ? config.logLevel : 'silent', destination: logDestination('/dev/null', process.env.BENCH_LOG_BATCH_MS === undefined ? {} : { batchMs: Number(process.env.BENCH_LOG_BATCH_MS) }) });
const patrons = process.env.BENCH_SANDBOX_PATRONS;
const app = await createChannelApp(config, { logger, ...(patrons !== undefined && { sandbox: { patrons: Number(patrons) } }) });
await Promise.all(['membership', 'video', 'stats'].map((source) => app.store.read(source)));

/** Listens `listener` on a free port and sends its URL to run.ts. */
function serve(listener) {
  const server = createServer(listener);
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.listen(0, '127.0.0.1', () => process.send?.({ url: `http://127.0.0.1:${server.address().port}` }));
}

/** The channel graph's SDL, resolvers and per-request context over the app's store. */
async function channelSchemaParts() {
  const [{ createChannelGraphContext, createSnapshotIndexes }, { createChannelResolvers }] = await Promise.all([
    import('../../dist/src/graphql/schema/context.js'),
    import('../../dist/src/graphql/schema/resolvers.js'),
  ]);
  const indexes = createSnapshotIndexes(app.store);
  return { resolvers: createChannelResolvers(indexes, app.events), context: () => createChannelGraphContext(app.store, indexes) };
}

if (target === 'floor' || target === 'floor/headers') {
  const { method, path, body: requestBody } = JSON.parse(process.env.BENCH_REQUEST ?? '{"method":"GET","path":"/membership/pledges"}');
  // In identity, as run.ts's requests ask for no coding (fetch would ask for gzip and decode it).
  const answer = await fetch(new URL(path, app.url), {
    method,
    headers: { 'accept-encoding': 'identity', ...(requestBody !== undefined && { 'content-type': 'application/json', accept: 'application/json' }) },
    ...(requestBody !== undefined && { body: requestBody }),
    signal: AbortSignal.timeout(60_000),
  });
  if (answer.status !== 200) throw new Error(`floor: ${method} ${path} answered HTTP ${answer.status}`);
  const body = Buffer.from(await answer.arrayBuffer());
  const headers = target === 'floor'
    ? { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': String(body.length) }
    : [...answer.headers].filter(([name]) => !NODE_OWN_HEADERS.has(name)).flat();
  await app.close();
  // As bench/lib/floor.ts: the request is drained before the answer.
  serve((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, headers);
      response.end(body);
    });
  });
} else if (target === 'unobserved') {
  // The app's composition of the graph and the REST API, without observeRequests and the metrics plugins.
  const [{ createChannelGraph }, { createRestHandler }, { createCompression }] = await Promise.all([
    import('../../dist/src/graphql/channel-graph.js'),
    import('../../dist/src/http/rest-handler.js'),
    import('../../dist/src/lib/compression.js'),
  ]);
  const compression = createCompression();
  const graph = createChannelGraph({ store: app.store, events: app.events, settings: config.graph, compression, logger });
  const rest = createRestHandler({ store: app.store, mode: 'sandbox', webhookSecret: app.sandbox.credentials.webhookSecret, logger, compression });
  serve((request, response) => ((request.url ?? '').startsWith('/graphql') ? graph.requestListener(request, response) : rest(request, response)));
} else if (target.startsWith('bare')) {
  const [{ createGraphServer }, { useLimits }, { createDocumentCache }] = await Promise.all([
    import('../../dist/src/graphql/server.js'),
    import('../../dist/src/graphql/plugins/limits.js'),
    import('../../dist/src/graphql/speed/document-cache.js'),
  ]);
  const keepsNothing = target === 'bare/no-document-cache';
  const yoga = createGraphServer({
    schemaDir: SCHEMA_DIR,
    ...(await channelSchemaParts()),
    plugins: useLimits(config.graph),
    jit: target === 'bare',
    // Every document weighs more than a byte: none is kept.
    documentCache: createDocumentCache(keepsNothing ? { maxBytes: 1 } : {}),
    logging: false,
  });
  serve(yoga);
} else if (target === 'yoga+jit' || target === 'yoga+jit+cache') {
  // As bench/graph/server.ts: the documented yoga on the same SDL, resolvers and snapshot store.
  const [{ createYoga }, { useGraphQlJit }, { useResponseCache }, { createExecutableSchema }] = await Promise.all([
    import('graphql-yoga'),
    import('@envelop/graphql-jit'),
    import('@graphql-yoga/plugin-response-cache'),
    import('../../dist/src/graphql/schema/executable-schema.js'),
  ]);
  const { resolvers, context } = await channelSchemaParts();
  const yoga = createYoga({
    schema: createExecutableSchema({ schemaDir: SCHEMA_DIR }, resolvers),
    context,
    logging: false,
    plugins: [useGraphQlJit(), ...(target === 'yoga+jit+cache' ? [useResponseCache({ session: () => null, ttl: 300_000 })] : [])],
  });
  serve(yoga);
} else if (target === 'mercurius+jit') {
  // As bench/graph/server.ts: the same SDL, resolvers and snapshot store, served by fastify + mercurius.
  const [{ default: Fastify }, { default: mercurius }, { createExecutableSchema }] = await Promise.all([
    import('fastify'),
    import('mercurius'),
    import('../../dist/src/graphql/schema/executable-schema.js'),
  ]);
  const { resolvers, context } = await channelSchemaParts();
  const fastify = Fastify({ logger: false, keepAliveTimeout: KEEP_ALIVE_MS });
  await fastify.register(mercurius, { schema: createExecutableSchema({ schemaDir: SCHEMA_DIR }, resolvers), context, jit: 1 });
  process.send?.({ url: await fastify.listen({ host: '127.0.0.1', port: 0 }) });
} else process.send?.({ url: app.url });
process.on('disconnect', () => process.exit(0));
