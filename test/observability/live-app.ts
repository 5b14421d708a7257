import { afterEach, beforeEach } from 'vitest';
import { createChannelApp, type ChannelApp, type ChannelAppOptions } from '../../src/app.js';
import type { ChannelConfig } from '../../src/config.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, silentLogger, testConfig } from '../http/harness.js';

/**
 * The setup of the observability tests: a sandbox per test (faults set on it before the app's first
 * fetch stay local to the test) and the app in live mode against it, both stopped after the test.
 * Call once at the top of a test file; use `sandbox()` and `startApp()` inside the tests.
 */
export function useLiveApps(): {
  sandbox(): RunningSandbox;
  startApp(overrides?: Partial<ChannelConfig>, options?: Omit<ChannelAppOptions, 'logger'>): Promise<ChannelApp>;
} {
  let running: RunningSandbox | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeEach(async () => {
    running = await startSandbox();
  });
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
    await running?.close();
  });
  const sandbox = (): RunningSandbox => {
    if (running === undefined) throw new Error('useLiveApps: the sandbox runs only inside a test');
    return running;
  };
  return {
    sandbox,
    async startApp(overrides = {}, options = {}) {
      const dataDir = await makeDataDir();
      const app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox()), overrides), { logger: silentLogger, ...options });
      cleanups.push(async () => {
        await app.close().catch(() => undefined);
        await dataDir.remove();
      });
      return app;
    },
  };
}
