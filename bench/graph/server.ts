/**
 * One target of bench/graph, in its own process (forked by run.ts with an IPC channel), so that
 * every server has the CPU and memory of a process to itself and its RSS is its own.
 *
 *   argv[2]: ours | ours/no-jit | ours/no-limits | ours/no-prepared | ours/default-flags | ours/unobserved | ours+cache
 *            | mercurius+jit | yoga/fixed-bytes | floor | floor/rest
 *            (ours/default-flags is ours; run.ts runs it without the start script's node flags)
 *            ours logs every request at LOG_LEVEL info (to /dev/null through the same asynchronous
 *            destination as stdout in production: the cost of writing the line is kept, the terminal
 *            is not flooded) and counts it in the metrics; ours/unobserved does neither
 *            floor/rest is the floor answering REST's bytes (BENCH_FLOOR_BODY is then those)
 *   env BENCH_SANDBOX: JSON { url, credentials } of the sandbox started by run.ts
 *   env BENCH_FLOOR_BODY: the bytes the floor answers with
 *
 * Sends `{ url }` once listening; `'reset-rss'` notes the idle RSS (started, data loaded, one
 * request answered); `'rss'` is answered with `{ idleRss, peakRss }` in bytes, the peak sampled every
 * 50 ms since the reset; `'cpu'` with `{ cpuMicros }`, the CPU time (user + system) the process has used.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelConfig } from '../../src/config.js';
import type { SandboxCredentials } from '../../src/sandbox/index.js';

// Modules are imported by the target that needs them, so each process's RSS holds only its own server.

type Target =
  | 'ours' | 'ours/no-jit' | 'ours/no-limits' | 'ours/no-prepared' | 'ours/default-flags' | 'ours/unobserved' | 'ours+cache'
  | 'mercurius+jit' | 'yoga/fixed-bytes' | 'floor' | 'floor/rest';

const target = process.argv[2] as Target;

async function liveConfig(dataDir: string, graph: { responseCache: boolean; jit: boolean }): Promise<ChannelConfig> {
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

async function startTarget(): Promise<string> {
  if (target === 'floor' || target === 'floor/rest') {
    const { startFloorServer } = await import('../lib/floor.js');
    return (await startFloorServer({ body: process.env.BENCH_FLOOR_BODY ?? '' })).url;
  }
  if (target === 'yoga/fixed-bytes') {
    // yoga answering the floor's bytes from its first hook: the cost of its HTTP adapter alone. The
    // Response must be yoga's own fetchAPI one (the @whatwg-node ponyfill): the adapter writes its body
    // directly, while a native (undici) Response is piped through a web stream, ~3× slower.
    const [{ createYoga, createSchema }, { listen }] = await Promise.all([import('graphql-yoga'), import('../../src/lib/listen.js')]);
    const body = process.env.BENCH_FLOOR_BODY ?? '';
    const yoga = createYoga({
      schema: createSchema({ typeDefs: 'type Query { unused: Int }' }),
      plugins: [{ onRequest: (hook) => hook.endResponse(new hook.fetchAPI.Response(body, { headers: { 'content-type': 'application/json; charset=utf-8' } })) }],
    });
    return (await listen(yoga)).url;
  }
  const [{ CHANNEL_APP_PARTS, createChannelApp }, { createLogger, logDestination }] = await Promise.all([import('../../src/app.js'), import('../../src/observability/logger.js')]);
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-graph-'));
  const observed = target !== 'ours/unobserved';
  const logger = observed ? createLogger({ level: 'info', destination: logDestination('/dev/null') }) : createLogger({ level: 'silent' });
  const config = await liveConfig(dataDir, { responseCache: target === 'ours+cache', jit: target !== 'ours/no-jit' });
  // The ablations: the service's parts, but one left out.
  const { observation, graph } = CHANNEL_APP_PARTS;
  const app = await createChannelApp(config, { logger }, {
    observation: observed ? observation : undefined,
    graph: { guards: target === 'ours/no-limits' ? () => [] : graph.guards, preparedOperations: target === 'ours/no-prepared' ? undefined : graph.preparedOperations },
  });
  await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.read(source)));
  if (target !== 'mercurius+jit') return app.url;

  // The same SDL, resolvers and snapshot store, served by fastify + mercurius with graphql-jit.
  const [{ default: Fastify }, { default: mercurius }, { createChannelGraphContext, createSnapshotIndexes }, { createChannelResolvers }, { createExecutableSchema }] = await Promise.all([
    import('fastify'),
    import('mercurius'),
    import('../../src/graphql/context.js'),
    import('../../src/graphql/resolvers.js'),
    import('../../src/graphql/server.js'),
  ]);
  const indexes = createSnapshotIndexes(app.store);
  const fastify = Fastify({ logger: false });
  await fastify.register(mercurius, {
    schema: createExecutableSchema({ schemaDir: 'schema' }, createChannelResolvers(indexes, app.events)),
    context: () => createChannelGraphContext(app.store, indexes),
    jit: 1,
  });
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
