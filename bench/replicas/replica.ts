/**
 * One replica of the app for bench/replicas, in a process of its own: live mode against the bench's
 * sandbox (BENCH_SANDBOX), its own DATA_DIR (BENCH_DATA_DIR), REDIS_URL when BENCH_REDIS_URL is set,
 * the response cache on or off (BENCH_RESPONSE_CACHE). Sends `{ url }` once listening; exits when the
 * bench goes away.
 */
import { createChannelApp, sandboxUpstream } from '../../src/app.js';
import { SOURCE_NAMES } from '../../src/channel/snapshot-store.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { createLogger } from '../../src/observability/logger.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';

const sandbox = JSON.parse(process.env.BENCH_SANDBOX ?? '{}') as Pick<RunningSandbox, 'url' | 'credentials'>;
const redisUrl = process.env.BENCH_REDIS_URL;
const app = await createChannelApp(
  {
    port: 0,
    host: '127.0.0.1',
    dataDir: process.env.BENCH_DATA_DIR ?? '.',
    refreshIntervalSeconds: 300,
    upstream: { mode: 'live', ...sandboxUpstream(sandbox as RunningSandbox) },
    graph: { ...DEFAULT_GRAPH_SETTINGS, responseCache: process.env.BENCH_RESPONSE_CACHE === 'true' },
    ...(redisUrl === undefined ? {} : { redis: { url: redisUrl, prefix: 'bench:' } }),
  },
  { logger: createLogger({ level: 'silent' }) },
);
await Promise.all(SOURCE_NAMES.map((source) => app.store.read(source)));
// The start-up refreshes (and, on Redis, their lease and writes) are over before the load is measured.
await new Promise((resolve) => setTimeout(resolve, 1_000));
process.send?.({ url: app.url });
process.on('disconnect', () => {
  void app.close().finally(() => process.exit(0));
});
