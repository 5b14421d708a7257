/**
 * One target of bench/instructions, run under callgrind by run.ts:
 *   observed       — the service as `npm start` builds it (compiled dist/, the in-process sandbox of
 *                    sandbox mode, production defaults), request log and HTTP and GraphQL metrics on
 *   unobserved     — the same without the request log and the metrics
 *   mercurius+jit  — fastify + mercurius (jit from the first request) on the same SDL, resolvers and
 *                    snapshot store, as bench/graph's target of that name (no request log)
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
 * longer than the production 10 s. Sends `{ url }` over
 * the IPC channel once listening and exits when the channel closes.
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHANNEL_APP_PARTS, createChannelApp } from '../../dist/src/app.js';
import { loadConfig } from '../../dist/src/config.js';
import { createLogger, logDestination } from '../../dist/src/observability/logger.js';

/** Headers node:http writes by itself: a floor gives it only the others. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

const dataDir = await mkdtemp(join(tmpdir(), 'bench-instructions-data-'));
const config = loadConfig({
  cwd: dataDir,
  envFile: join(dataDir, 'no.env'),
  env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, REFRESH_INTERVAL_SECONDS: '0', UPSTREAM_TIMEOUT_MS: '600000', GRAPHQL_RESPONSE_CACHE: process.env.BENCH_RESPONSE_CACHE ?? 'true' },
});
const logger = createLogger({ level: config.logLevel, destination: logDestination('/dev/null', process.env.BENCH_LOG_BATCH_MS === undefined ? {} : { batchMs: Number(process.env.BENCH_LOG_BATCH_MS) }) });
const target = process.argv[2];
const patrons = process.env.BENCH_SANDBOX_PATRONS;
const observed = target !== 'unobserved' && target !== 'mercurius+jit';
const app = await createChannelApp(config, { logger, ...(patrons !== undefined && { sandbox: { patrons: Number(patrons) } }) }, observed ? CHANNEL_APP_PARTS : { ...CHANNEL_APP_PARTS, observation: undefined });
await Promise.all(['membership', 'video', 'stats'].map((source) => app.store.read(source)));

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
  const floor = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, headers);
      response.end(body);
    });
  });
  floor.listen(0, '127.0.0.1', () => process.send?.({ url: `http://127.0.0.1:${floor.address().port}` }));
} else if (target === 'mercurius+jit') {
  // As bench/graph/server.ts: the same SDL, resolvers and snapshot store, served by fastify + mercurius.
  const [{ default: Fastify }, { default: mercurius }, { createChannelGraphContext, createSnapshotIndexes }, { createChannelResolvers }, { createExecutableSchema }] = await Promise.all([
    import('fastify'),
    import('mercurius'),
    import('../../dist/src/graphql/schema/context.js'),
    import('../../dist/src/graphql/schema/resolvers.js'),
    import('../../dist/src/graphql/server.js'),
  ]);
  const indexes = createSnapshotIndexes(app.store);
  const fastify = Fastify({ logger: false });
  await fastify.register(mercurius, {
    schema: createExecutableSchema({ schemaDir: join(import.meta.dirname, '../../schema') }, createChannelResolvers(indexes, app.events)),
    context: () => createChannelGraphContext(app.store, indexes),
    jit: 1,
  });
  process.send?.({ url: await fastify.listen({ host: '127.0.0.1', port: 0 }) });
} else process.send?.({ url: app.url });
process.on('disconnect', () => process.exit(0));
