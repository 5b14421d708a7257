import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'obs-settings-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('LOG_LEVEL and METRICS_TOKEN', () => {
  it('default: info, no metrics token', () => {
    const config = loadConfig({ cwd, env: {} });
    expect(config.logLevel).toBe('info');
    expect(config.metricsToken).toBeUndefined();
  });

  it('read from the environment', () => {
    expect(loadConfig({ cwd, env: { LOG_LEVEL: 'debug', METRICS_TOKEN: 'scrape-me' } })).toMatchObject({ logLevel: 'debug', metricsToken: 'scrape-me' });
    expect(loadConfig({ cwd, env: { LOG_LEVEL: 'silent', METRICS_TOKEN: '' } }).metricsToken).toBeUndefined();
  });

  it('an unknown level stops start-up with one line naming the variable and the levels', () => {
    expect(() => loadConfig({ cwd, env: { LOG_LEVEL: 'loud' } })).toThrow(ConfigError);
    expect(() => loadConfig({ cwd, env: { LOG_LEVEL: 'loud' } })).toThrow('environment: LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"');
  });
});
