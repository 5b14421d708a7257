import pino from 'pino';
import { createChannelApp } from '../src/app.js';
import { DEFAULT_GRAPH_SETTINGS } from '../src/graphql/graph-settings.js';
import { createLogger } from '../src/observability/logger.js';
import { runLoad } from './lib/index.js';
const QUERY = '{ supporters { __typename id name amountCents tier { title } ... on Patron { lifetimeCents } } }';
const body = JSON.stringify({ query: QUERY });
const headers = { 'content-type': 'application/json', accept: 'application/json' };
const variant = process.argv[2]!;
const observed = variant !== 'unobserved';
const logger = variant === 'observed' ? createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: true }) }) : createLogger({ level: 'silent' });
const app = await createChannelApp({ port: 0, host: '127.0.0.1', dataDir: `/tmp/live/data-${variant}`, refreshIntervalSeconds: 0, upstream: { mode: 'sandbox' }, graph: { ...DEFAULT_GRAPH_SETTINGS, responseCache: false, jit: true } }, { logger, observeRequests: observed });
await Promise.all((['membership', 'video', 'stats'] as const).map((s) => app.store.read(s)));
await runLoad({ url: `${app.url}/graphql`, method: 'POST', body, headers, connections: 10, durationSeconds: 2, warmupSeconds: 1 });
const results = [];
for (let i = 0; i < 3; i++) {
  const before = process.cpuUsage();
  const r = await runLoad({ url: `${app.url}/graphql`, method: 'POST', body, headers, connections: 10, durationSeconds: 3, warmupSeconds: 0 });
  const cpu = process.cpuUsage(before);
  results.push(((cpu.user + cpu.system) / r.requests).toFixed(0));
}
console.log(variant, 'CPU µs/request', results.join(' '));
await app.close();
process.exit(0);
