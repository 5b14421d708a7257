/**
 * `npm start`: loads and validates the configuration, starts the service and stops it cleanly on
 * SIGINT/SIGTERM. A bad configuration ends the process with one line on stderr (exit code 78,
 * EX_CONFIG of sysexits.h) naming the file, the field and what is expected.
 */
import { createChannelApp, type ChannelApp } from './app.js';
import { ConfigError, loadConfig, type ChannelConfig } from './config.js';

const EX_CONFIG = 78;

let config: ChannelConfig;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`configuration error: ${error.message}\n`);
  process.exit(EX_CONFIG);
}

if (config.upstream.mode === 'sandbox') {
  console.info('sandbox mode: no membership credentials in .env, so the platform sandbox runs in-process and serves test data (see .env.example to connect your channel)');
} else {
  console.info(`live mode: membership API ${config.upstream.membership.apiBase}, video API ${config.upstream.video.apiBase}`);
}

let app: ChannelApp;
try {
  app = await createChannelApp(config);
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

let stopping = false;
function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  console.info(`${signal}: closing (requests in flight finish, snapshots are flushed to disk)`);
  app.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`error while closing: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

console.info(`channel api listening on ${app.url} (REST: /membership/pledges /video/members /video/stats /healthz, GraphQL: /graphql)`);
if (app.sandbox !== undefined) console.info(`sandbox platforms at ${app.sandbox.url} (control: ${app.sandbox.url}/__sandbox/…)`);

