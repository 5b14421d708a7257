import { ConfigError, loadConfig, type LoadConfigOptions } from '../../src/config.js';

/** The ConfigError loadConfig throws for these options; fails the test if it throws none. */
export function configErrorOf(options: LoadConfigOptions): ConfigError {
  try {
    loadConfig(options);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
