/**
 * One target of bench/graph, in its own process (forked by run.ts with an IPC channel), so that
 * every server has the CPU and memory of a process to itself and its RSS is its own.
 *
 *   argv[2]: ours | ours+cache | yoga+jit | yoga+jit+cache | mercurius+jit | mercurius+jit+cache | floor/rest
 *            ours and ours+cache are the whole app (createChannelApp) as `npm start` runs it, the
 *            response cache off and on; every request is logged at LOG_LEVEL info (to /dev/null
 *            through the same asynchronous destination as stdout in production: the cost of writing
 *            the line is kept, the terminal is not flooded) and counted in the metrics.
 *            The peers serve the same SDL, resolvers and snapshot store (the app's, which they start
 *            for it), configured the way their documentation shows:
 *              yoga+jit       — createYoga with @envelop/graphql-jit (yoga's own parse and validation
 *                               cache is on by default); +cache: @graphql-yoga/plugin-response-cache
 *              mercurius+jit  — fastify + mercurius, graphql-jit from the first request; +cache:
 *                               mercurius-cache on every Query field
 *            floor/rest is raw node:http answering BENCH_FLOOR_BODY (REST's bytes)
 *   env BENCH_SANDBOX: JSON { url, credentials } of the sandbox started by run.ts
 *
 * Sends `{ url }` once listening; `'reset-rss'` notes the idle RSS (started, data loaded, one
 * request answered); `'rss'` is answered with `{ idleRss, peakRss }` in bytes, the peak sampled every
 * 50 ms since the reset; `'cpu'` with `{ cpuMicros }`, the CPU time (user + system) the process has used.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { MercuriusCacheOptions } from 'mercurius-cache';
import type { ChannelApp } from '../../src/app.js';
import type { ChannelConfig } from '../../src/config.js';
import type { SandboxCredentials } from '../../src/sandbox/index.js';

// Modules are imported by the target that needs them, so each process's RSS holds only its own server.

type Target = 'ours' | 'ours+cache' | 'yoga+jit' | 'yoga+jit+cache' | 'mercurius+jit' | 'mercurius+jit+cache' | 'floor/rest';

const target = process.argv[2] as Target;
/** The peers' response caches keep an answer this long (the app's default TTL). */
const CACHE_TTL_SECONDS = 300;

async function liveConfig(dataDir: string, graph: { responseCache: boolean }): Promise<ChannelConfig> {
  const { DEFAULT_GRAPH_SETTINGS } = await import('../../src/graphql/graph-settings.js');
  const { url, credentials } = JSON.parse(process.env.BENCH_SANDBOX ?? '') as { url: string; credentials: SandboxCredentials };
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    refreshIntervalSeconds: 0,
    upstream: {
      mode: 'live',
      membership: { apiBase: url, ...credentials },
      video: { apiBase: url, members: credentials.members },
    },
    graph: { ...DEFAULT_GRAPH_SETTINGS, graphiql: false, ...graph },
  };
}

/** The peers' graph over the app's store: the same SDL, resolvers and per-request context. */
async function channelSchema(app: ChannelApp) {
  const [{ createChannelGraphContext, createSnapshotIndexes }, { createChannelResolvers }, { createExecutableSchema }] = await Promise.all([
    import('../../src/graphql/schema/context.js'),
    import('../../src/graphql/schema/resolvers.js'),
    import('../../src/graphql/schema/executable-schema.js'),
  ]);
  const indexes = createSnapshotIndexes(app.store);
  return {
    schema: createExecutableSchema({ schemaDir: 'schema' }, createChannelResolvers(indexes, app.events)),
    context: () => createChannelGraphContext(app.store, indexes),
  };
}

async function startTarget(): Promise<string> {
  if (target === 'floor/rest') {
    const { startFloorServer } = await import('../lib/floor.js');
    return (await startFloorServer({ body: process.env.BENCH_FLOOR_BODY ?? '' })).url;
  }
  const [{ createChannelApp }, { createLogger, logDestination }] = await Promise.all([import('../../src/app.js'), import('../../src/observability/logger.js')]);
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-graph-'));
  const ours = target === 'ours' || target === 'ours+cache';
  const logger = ours ? createLogger({ level: 'info', destination: logDestination('/dev/null') }) : createLogger({ level: 'silent' });
  const app = await createChannelApp(await liveConfig(dataDir, { responseCache: target === 'ours+cache' }), { logger });
  await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.read(source)));
  if (ours) return app.url;

  const { schema, context } = await channelSchema(app);
  if (target === 'yoga+jit' || target === 'yoga+jit+cache') {
    const [{ createYoga }, { useGraphQlJit }, { useResponseCache }, { listen }] = await Promise.all([
      import('graphql-yoga'),
      import('@envelop/graphql-jit'),
      import('@graphql-yoga/plugin-response-cache'),
      import('../../src/lib/listen.js'),
    ]);
    const yoga = createYoga({
      schema,
      context,
      logging: false,
      plugins: [useGraphQlJit(), ...(target === 'yoga+jit+cache' ? [useResponseCache({ session: () => null, ttl: CACHE_TTL_SECONDS * 1000 })] : [])],
    });
    return (await listen(yoga)).url;
  }
  const [{ default: Fastify }, { default: mercurius }, { default: mercuriusCache }] = await Promise.all([import('fastify'), import('mercurius'), import('mercurius-cache')]);
  const fastify = Fastify({ logger: false });
  await fastify.register(mercurius, { schema, context, jit: 1 });
  // mercurius-cache is CommonJS whose types declare an ES default export: what the import gives is the plugin itself.
  const cachePlugin = mercuriusCache as unknown as FastifyPluginAsync<MercuriusCacheOptions>;
  if (target === 'mercurius+jit+cache') await fastify.register(cachePlugin, { ttl: CACHE_TTL_SECONDS, all: true });
  return fastify.listen({ host: '127.0.0.1', port: 0 });
}

let peakRss = 0;
let idleRss = 0;
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 50).unref();

const url = await startTarget();
process.send?.({ url });
process.on('message', (message) => {
  if (message === 'reset-rss') idleRss = peakRss = process.memoryUsage.rss();
  if (message === 'rss') process.send?.({ idleRss, peakRss: Math.max(peakRss, process.memoryUsage.rss()) });
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  }
});
process.on('disconnect', () => process.exit(0));
