/**
 * The app of bench/events in its own process (so that its RSS is its own): `npm start`'s
 * configuration read from the environment (production, sandbox mode), logs at warn. Prints one JSON
 * line `{ url, sandboxUrl }` once listening; SIGUSR2 runs a full GC (the process has --expose-gc)
 * so that the RSS the parent samples next is not inflated by garbage; SIGTERM closes the app.
 */
import { createChannelApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';

const app = await createChannelApp(loadConfig(), { logger: createLogger({ level: 'warn' }) });
process.on('SIGUSR2', () => globalThis.gc?.());
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: app.url, sandboxUrl: app.sandbox?.url })}\n`);
