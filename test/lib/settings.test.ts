import { describe, expect, it } from 'vitest';
import {
  boolean,
  closestName,
  documentedDefault,
  httpUrl,
  integer,
  milliseconds,
  oneOf,
  readSettings,
  SettingError,
  text,
  unknownSettingWarnings,
  urlOf,
  Variables,
} from '../../src/lib/settings.js';

const SETTINGS = {
  level: oneOf({ name: 'TEST_LEVEL', values: ['debug', 'info', 'warn'], default: 'info', description: 'a level' }),
  count: integer({ name: 'TEST_COUNT', min: 1, max: 10, default: 5, description: 'a count' }),
  delay: milliseconds({ name: 'TEST_DELAY_MS', min: 1, max: 1000, default: 100, description: 'a delay' }),
  verbose: boolean({ name: 'TEST_VERBOSE', default: { documented: '`true` when TEST_LEVEL=debug', from: (env) => env.TEST_LEVEL === 'debug' }, description: 'verbose' }),
  base: httpUrl({ name: 'TEST_BASE', default: 'https://example.org', description: 'a URL' }),
  token: text({ name: 'TEST_TOKEN', secret: true, description: 'a secret' }),
};

function settingError(env: Record<string, string>, variables?: Variables): SettingError {
  try {
    readSettings(SETTINGS, variables ?? env);
  } catch (error) {
    if (error instanceof SettingError) return error;
    throw error;
  }
  throw new Error('expected a SettingError');
}

describe('readSettings', () => {
  it('gives the defaults for unset and empty variables, derived defaults included', () => {
    expect(readSettings(SETTINGS, { TEST_COUNT: '' })).toEqual({ level: 'info', count: 5, delay: 100, verbose: false, base: 'https://example.org', token: undefined });
    expect(readSettings(SETTINGS, { TEST_LEVEL: 'debug' }).verbose).toBe(true);
  });

  it('parses each kind', () => {
    expect(readSettings(SETTINGS, { TEST_LEVEL: 'warn', TEST_COUNT: '10', TEST_DELAY_MS: '1', TEST_VERBOSE: '0', TEST_BASE: 'http://h:1/a//', TEST_TOKEN: 't' })).toEqual({
      level: 'warn',
      count: 10,
      delay: 1,
      verbose: false,
      base: 'http://h:1/a',
      token: 't',
    });
  });

  it.each([
    ['TEST_LEVEL', 'loud', 'expected one of debug, info, warn, got "loud"'],
    ['TEST_COUNT', '11', 'expected an integer 1-10, got "11"'],
    ['TEST_COUNT', '1.5', 'expected an integer 1-10, got "1.5"'],
    ['TEST_DELAY_MS', '0', 'expected milliseconds 1-1000, got "0"'],
    ['TEST_VERBOSE', 'yes', 'expected true or false, got "yes"'],
    ['TEST_BASE', 'file:///etc', 'expected an http(s) URL, got "file:///etc"'],
  ])('%s=%s → %s', (name, value, detail) => {
    const error = settingError({ [name]: value });
    expect(error).toMatchObject({ source: 'environment', setting: name, detail, message: `${name}: ${detail}` });
  });

  it('names the layer a value came from: the last one that sets it', () => {
    const variables = new Variables([
      { source: '.env', variables: { TEST_COUNT: 'x', TEST_LEVEL: 'info' } },
      { source: 'environment', variables: { TEST_LEVEL: 'nope' } },
    ]);
    expect(settingError({}, variables).source).toBe('environment');
    expect(variables.sourceOf('TEST_COUNT')).toBe('.env');
    expect(variables.sourceOf('UNSET')).toBe('.env');
  });

  it("documents defaults as the docs' settings tables show them", () => {
    expect(SETTINGS.count.default).toBe(5);
    expect([documentedDefault(SETTINGS.count), documentedDefault(SETTINGS.verbose), documentedDefault(SETTINGS.token)]).toEqual(['`5`', '`true` when TEST_LEVEL=debug', '—']);
  });
});

describe('urlOf', () => {
  const STORE = { url: urlOf({ name: 'TEST_STORE_URL', protocols: ['redis', 'rediss'], expected: 'a redis:// or rediss:// URL', secret: true, description: 'a store' }) };

  it('keeps a URL of one of its protocols as written', () => {
    expect(readSettings(STORE, { TEST_STORE_URL: 'rediss://user:pw@cache.internal:6380/2' }).url).toBe('rediss://user:pw@cache.internal:6380/2');
    expect(readSettings(STORE, { TEST_STORE_URL: 'redis://127.0.0.1:6379' }).url).toBe('redis://127.0.0.1:6379');
  });

  it.each(['http://cache:6379', 'redis-cache:6379', 'not a url'])('refuses %s without echoing the secret', (value) => {
    let error: unknown;
    try {
      readSettings(STORE, { TEST_STORE_URL: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SettingError);
    expect((error as SettingError).detail).toMatch(/^expected a redis:\/\/ or rediss:\/\/ URL/);
    expect((error as SettingError).message).not.toContain(value);
  });
});

describe('unknown variables', () => {
  it('suggest the closest known name', () => {
    expect(closestName('TEST_CUONT', ['TEST_COUNT', 'TEST_LEVEL'])).toBe('TEST_COUNT');
    const variables = Variables.of({ TEST_LEVL: 'x', TEST_COUNT: '1', OTHER: 'y' });
    expect(unknownSettingWarnings(variables, new Set(['TEST_LEVEL', 'TEST_COUNT']), ['TEST_'])).toEqual([
      'environment: TEST_LEVL is not a known setting and is ignored (did you mean TEST_LEVEL?)',
    ]);
  });
});
