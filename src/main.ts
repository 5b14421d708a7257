/**
 * `npm start`: loads and validates the configuration, starts the service and stops it cleanly on
 * SIGINT/SIGTERM. A bad configuration ends the process with one line on stderr (exit code 78,
 * EX_CONFIG of sysexits.h) naming the file, the field and what is expected — among them
 * `NODE_ENV=production` without membership credentials and without `SANDBOX=true`. Sandbox mode is
 * announced by a warning line and in the start line.
 */
import { constants } from 'node:os';
import { createChannelApp, type ChannelApp } from './app.js';
import { ConfigError, DEFAULT_SHUTDOWN_TIMEOUT_MS, loadConfig, type ChannelConfig } from './config.js';
import { joinDevLoop } from './lib/dev-loop.js';
import { createLogger, prettyDestination } from './observability/logger.js';

const EX_CONFIG = 78;

let config: ChannelConfig;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`configuration error: ${error.message}\n`);
  process.exit(EX_CONFIG);
}

// JSON lines, unless a developer watches a terminal (NODE_ENV=development and stdout a TTY).
const pretty = config.graph.development && process.stdout.isTTY ? await prettyDestination() : undefined;
const rootLogger = createLogger({ level: config.logLevel, ...(pretty && { destination: pretty }) });
// Every line carries a component; the service's own parts get theirs from the app.
const logger = rootLogger.child({ component: 'main' });
const { mode } = config.upstream;

if (config.upstream.mode === 'sandbox') {
  logger.warn(
    { mode },
    'sandbox mode: no membership credentials are set, so the platform sandbox runs in-process and every answer is its made-up test data, not a channel\'s (to serve your channel: docs/operating.md#setup-for-your-channel)',
  );
} else {
  logger.info({ mode }, `live mode: membership API ${config.upstream.membership.apiBase}, video API ${config.upstream.video.apiBase}`);
}

/**
 * A signal repeated within this time counts as the same one: a Ctrl-C in a terminal reaches the
 * whole foreground process group, and npm forwards it to this process a second time.
 */
const REPEATED_SIGNAL_MS = 1_000;

let app: ChannelApp | undefined;
let stoppingSince: number | undefined;

/** Exits once every log line is written (the log destination is asynchronous). */
function exitAfterLog(code: number): void {
  logger.flush(() => process.exit(code));
}

function closeAndExit(running: ChannelApp): void {
  running.close().then(
    () => {
      logger.info('closed');
      exitAfterLog(0);
    },
    (error: unknown) => {
      logger.error(`error while closing: ${error instanceof Error ? error.message : String(error)}`);
      exitAfterLog(1);
    },
  );
}

// Installed before the start: the first token refresh can be under way before the server listens.
function stop(signal: NodeJS.Signals): void {
  if (stoppingSince !== undefined) {
    if (Date.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
    process.stderr.write(`${signal} again: exiting at once, without waiting for requests, a token refresh or the snapshot writes\n`);
    process.exit(128 + constants.signals[signal]);
  }
  stoppingSince = Date.now();
  const timeoutMs = config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  logger.info(`${signal}: closing within ${timeoutMs} ms (requests in flight finish, a token refresh in flight and the snapshot writes are saved; ${signal} again exits at once)`);
  if (app !== undefined) closeAndExit(app);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

try {
  app = await createChannelApp(config, { logger: rootLogger });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  const listenFailure: Record<string, string> = {
    EADDRINUSE: 'the address is in use (set PORT or HOST in .env)',
    EACCES: 'permission denied (choose a PORT above 1023)',
    EADDRNOTAVAIL: 'this machine has no such address (check HOST in .env)',
  };
  const reason = code !== undefined && code in listenFailure ? `cannot listen on ${config.host}:${config.port}: ${listenFailure[code]}` : (error as Error).message;
  process.stderr.write(`could not start: ${reason}\n`);
  process.exit(1);
}
logger.info(
  { mode },
  `channel api listening on ${app.url} in ${mode} mode (REST: /membership/pledges /video/members /video/stats /healthz, GraphQL: /graphql, live events: /events, overlay: /overlay, operations: /readyz /metrics)`,
);
if (app.sandbox !== undefined) logger.info(`sandbox platforms at ${app.sandbox.url} (control: ${app.sandbox.url}/__sandbox/…)`);

// Lines are written in batches (observability/logger.ts): the start-up lines go out now, not with the first batch.
const started = app;
logger.flush(() =>
  // Under `npm run dev` (after the lines above: its banner follows them): the URLs for its banner,
  // and a regenerated SDL is swapped in without a restart.
  joinDevLoop({
    urls: [
      { name: 'GraphQL', url: `${started.url}/graphql` },
      { name: 'REST', url: `${started.url}/membership/pledges` },
      { name: 'overlay', url: `${started.url}/overlay` },
      ...(config.dashboard === true ? [{ name: 'dashboard', url: `${started.url}/dashboard` }] : []),
      ...(started.sandbox === undefined ? [] : [{ name: 'sandbox', url: started.sandbox.url }]),
    ],
    reloadSchema: started.reloadSchema,
  }),
);
// A signal that came during the start closes the service now that it can be closed.
if (stoppingSince !== undefined) closeAndExit(app);

