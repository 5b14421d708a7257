/**
 * One target of bench/instructions, run under callgrind by run.ts: the service as `npm start` builds
 * it (compiled dist/, the in-process sandbox of sandbox mode, production defaults) with the request
 * log and the HTTP and GraphQL metrics on or off; or (`floor`) the floor of a GET: raw node:http
 * answering the bytes of the service's `GET /membership/pledges` (taken from the app, which is then
 * closed) with their content type and length, as bench/lib/floor.ts does in bench/graph.
 *
 *   node <start flags> server.mjs observed|unobserved|floor
 *   env BENCH_RESPONSE_CACHE: `true` or `false` (GRAPHQL_RESPONSE_CACHE)
 *   env BENCH_LOG_BATCH_MS: the longest a log line waits for its batch (lines go to /dev/null)
 *
 * No .env is read (an operator's live credentials stay out of a bench): the configuration is
 * sandbox mode in a temp directory, on a free port, with no periodic refresh. Sends `{ url }` over
 * the IPC channel once listening and exits when the channel closes.
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChannelApp } from '../../dist/src/app.js';
import { loadConfig } from '../../dist/src/config.js';
import { createLogger, logDestination } from '../../dist/src/observability/logger.js';

const dataDir = await mkdtemp(join(tmpdir(), 'bench-instructions-data-'));
const config = loadConfig({
  cwd: dataDir,
  envFile: join(dataDir, 'no.env'),
  env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, REFRESH_INTERVAL_SECONDS: '0', GRAPHQL_RESPONSE_CACHE: process.env.BENCH_RESPONSE_CACHE ?? 'true' },
});
const logger = createLogger({ level: config.logLevel, destination: logDestination('/dev/null', process.env.BENCH_LOG_BATCH_MS === undefined ? {} : { batchMs: Number(process.env.BENCH_LOG_BATCH_MS) }) });
const target = process.argv[2];
const app = await createChannelApp(config, { logger, observeRequests: target !== 'unobserved' });
if (target === 'floor') {
  const answer = await fetch(new URL('/membership/pledges', app.url), { signal: AbortSignal.timeout(60_000) });
  if (answer.status !== 200) throw new Error(`floor: GET /membership/pledges answered HTTP ${answer.status}`);
  const body = Buffer.from(await answer.arrayBuffer());
  const headers = { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': String(body.length) };
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
} else process.send?.({ url: app.url });
process.on('disconnect', () => process.exit(0));
