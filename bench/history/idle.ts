/**
 * One side of bench/history's memory figure, in a process of its own: the app in sandbox mode, with
 * its history (embedded PGlite) or without, started, refreshed and recorded, then left idle; prints
 * its resident memory as JSON.   npx tsx bench/history/idle.ts on|off <dataDir>
 */
import { createChannelApp } from '../../src/app.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { createLogger } from '../../src/observability/logger.js';

const [withHistory, dataDir] = [process.argv[2] === 'on', process.argv[3] ?? ''];
const app = await createChannelApp(
  { port: 0, host: '127.0.0.1', dataDir, refreshIntervalSeconds: 0, upstream: { mode: 'sandbox' }, graph: { ...DEFAULT_GRAPH_SETTINGS }, history: withHistory },
  { logger: createLogger({ level: 'silent' }) },
);
await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.refresh(source)));
if (app.history !== undefined) {
  await app.history.recorder.settled();
  while (app.history.health().state !== 'open' || app.history.recorder.backlog.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.history.recorder.settled();
  }
}
// Idle: a few seconds for the collector and the allocator to settle.
for (let second = 0; second < 5; second += 1) {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  (globalThis as { gc?: () => void }).gc?.();
}
process.stdout.write(`${JSON.stringify({ rssMb: Math.round(process.memoryUsage().rss / 1e5) / 10 })}\n`);
await app.close();
