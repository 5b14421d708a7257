import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadAuthorizeConfig, loadConfig } from '../src/config.js';
import { configErrorOf } from './support/config-error.js';
import { sandboxCredentials } from '../src/sandbox/credentials.js';

/** Configuration is strict (no silently ignored line or typo) and discreet (no secret, no file content echoed). */
let cwd: string;

const LIVE_ENV = [
  'MEMBERSHIP_CLIENT_ID=client-id-value',
  'MEMBERSHIP_CLIENT_SECRET=client-secret-value',
  'MEMBERSHIP_CAMPAIGN_ID=12345',
  'MEMBERSHIP_WEBHOOK_SECRET=webhook-secret-value',
];

function configError(env: Record<string, string> = {}): ConfigError {
  return configErrorOf({ cwd, env, onWarning: () => undefined });
}

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'channel-config-'));
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

describe('members.json syntax errors', () => {
  it('name the file, line, column and what was expected, never the content (it holds cookies)', async () => {
    await writeFile(join(cwd, '.env'), `${LIVE_ENV.join('\n')}\n`);
    const members = JSON.stringify({ ...sandboxCredentials().members, headers: { authorization: 'SAPISIDHASH secret-authorization', cookie: 'SID=secret-cookie-value' } }, null, 2);
    // A stray word after the cookie value: JSON.parse's own message would quote the text around it.
    const broken = members.replace('"SID=secret-cookie-value"', '"SID=secret-cookie-value" secret-trailing-word');
    await writeFile(join(cwd, 'members.json'), broken);
    const lines = broken.split('\n');
    const line = lines.findIndex((text) => text.includes('secret-trailing-word')) + 1;
    const column = (lines[line - 1] as string).indexOf('secret-trailing-word') + 1;

    const error = configError();
    expect(error.message).toBe(`${join(cwd, 'members.json')}: line ${line}, column ${column}: expected ',' or '}' (the file is not valid JSON)`);
    for (const secret of ['secret-cookie-value', 'secret-trailing-word', 'secret-authorization', 'SID=']) expect(error.message).not.toContain(secret);
  });

  it.each([
    ['{\n  "key": "k",\n  "key2": \n}', 4, 1, 'a value (an object, array, string in double quotes, number, true, false or null)'],
    ['{ "key": "unterminated', 1, 23, 'a closing " of the string, not the end of the file'],
    ["{ 'key': 1 }", 1, 3, 'a property name in double quotes'],
    ['{ "a": 1 } x', 1, 12, 'the end of the file after the value'],
    ['{ "a": "line\nbreak" }', 1, 13, 'no control character (a line break, a tab) inside a string: escape it'],
    ['[1, 2,', 1, 7, 'a value, not the end of the file'],
    ['{ "a": tru }', 1, 8, 'a value (true?)'],
  ])('%j → line %i, column %i: expected %s', async (text, line, column, expected) => {
    await writeFile(join(cwd, '.env'), `${LIVE_ENV.join('\n')}\n`);
    await writeFile(join(cwd, 'members.json'), text);
    expect(configError().message).toBe(`${join(cwd, 'members.json')}: line ${line}, column ${column}: expected ${expected} (the file is not valid JSON)`);
  });
});

describe('file sizes', () => {
  it('a members.json or .env over 1 MiB is refused before it is read', async () => {
    await writeFile(join(cwd, '.env'), `${LIVE_ENV.join('\n')}\n`);
    await writeFile(join(cwd, 'members.json'), ' '.repeat(1024 * 1024 + 1));
    expect(configError().message).toBe(`${join(cwd, 'members.json')}: (file): expected at most 1048576 bytes`);
    await writeFile(join(cwd, '.env'), `# ${'x'.repeat(1024 * 1024)}\n`);
    expect(configError().message).toBe(`${join(cwd, '.env')}: (file): expected at most 1048576 bytes`);
  });
});

describe('members.json header values', () => {
  it.each([
    ['a CR LF (header injection)', 'SID=a\r\nX-Injected: yes'],
    ['a lone LF', 'SID=a\nX-Injected: yes'],
    ['a NUL', 'SID=a\u0000'],
    ['a leading space', ' SID=a'],
    ['a character above U+00FF', 'SID=\u2028'],
  ])('refuses %s as an RFC 9110 field value, without echoing it', async (_, cookie) => {
    await writeFile(join(cwd, '.env'), `${LIVE_ENV.join('\n')}\n`);
    await writeFile(join(cwd, 'members.json'), JSON.stringify({ ...sandboxCredentials().members, headers: { authorization: 'SAPISIDHASH x', cookie } }));
    const error = configError();
    expect(error.message).toBe(
      `${join(cwd, 'members.json')}: headers.cookie: expected an HTTP header value (RFC 9110 field value: no CR, LF or other control character, no leading or trailing space)`,
    );
    expect(error.message).not.toContain('SID');
  });

  it('accepts a value with inner spaces, tabs and obs-text', async () => {
    await writeFile(join(cwd, '.env'), `${LIVE_ENV.join('\n')}\n`);
    await writeFile(join(cwd, 'members.json'), JSON.stringify({ ...sandboxCredentials().members, headers: { authorization: 'SAPISIDHASH 1 abc', cookie: 'a=b;\tc=d; e=\u00e9' } }));
    expect(loadConfig({ cwd, env: {} }).upstream.mode).toBe('live');
  });
});

describe('.env lines', () => {
  it.each([
    [['PORT=4000', '', 'HOST 0.0.0.0'], 3, 'NAME=value, a # comment or a blank line'],
    [['# a comment', 'DATA_DIR=data', 'MEMBERSHIP_CLIENT_SECRET'], 3, 'NAME=value, a # comment or a blank line'],
    [['PORT=4000', 'MEMBERSHIP_CLIENT_SECRET="sec', 'ret'], 2, 'a closing " for the value of MEMBERSHIP_CLIENT_SECRET'],
    [["HOST='0.0.0.0' extra"], 1, "nothing but a # comment after the closing ' of HOST"],
  ])('%j: a malformed line is an error naming the file and the line, not skipped', async (lines, line, expected) => {
    await writeFile(join(cwd, '.env'), `${lines.join('\n')}\n`);
    const error = configError();
    expect(error.message).toBe(`.env: line ${line}: expected ${expected}`);
    expect(error.message).not.toContain('sec');
  });

  it('reads export, quotes, multi-line values, comments, CRLF and a byte order mark (which parseEnv misreads)', async () => {
    await writeFile(
      join(cwd, '.env'),
      ['\uFEFF# comment', 'export PORT=4555', 'HOST = "0.0.0.0" # comment', "DATA_DIR='/var/lib/x'", 'REFRESH_INTERVAL_SECONDS=60 # one minute', 'MEMBERS_CONFIG="a', 'b"', ''].join('\r\n'),
    );
    expect(loadConfig({ cwd, env: {} })).toMatchObject({ port: 4555, host: '0.0.0.0', dataDir: '/var/lib/x', refreshIntervalSeconds: 60 });
  });

  it('also stops npm run authorize', async () => {
    await writeFile(join(cwd, '.env'), 'MEMBERSHIP_CLIENT_ID client\n');
    expect(() => loadAuthorizeConfig({ cwd, env: {} })).toThrow('.env: line 1: expected NAME=value, a # comment or a blank line');
  });
});

describe('npm run authorize without the OAuth client', () => {
  it('names where the value was looked for, truthfully, and points to the sandbox recipe', async () => {
    const load = (): unknown => loadAuthorizeConfig({ cwd, env: {}, onWarning: () => undefined });
    const sandboxRecipe = "(its developer portal shows it; to try the login on the sandbox's test client, see docs/sandbox.md#test-credentials)";
    expect(load).toThrow(new ConfigError('environment (no .env file)', 'MEMBERSHIP_CLIENT_ID', `expected a value: the OAuth client of the membership platform ${sandboxRecipe}`));
    await writeFile(join(cwd, '.env'), 'MEMBERSHIP_CLIENT_ID=client-id-value\n');
    expect(load).toThrow(new ConfigError('.env', 'MEMBERSHIP_CLIENT_SECRET', `expected a value: the OAuth client of the membership platform ${sandboxRecipe}`));
  });
});

/**
 * Sandbox or live, for every combination of NODE_ENV (production or not), the membership credentials
 * (all, none, some) and SANDBOX (unset, true, false): what `npm start` does — serve in a mode (exit
 * code 0 at SIGTERM), or stop with one line (exit code 78; test/config.slow.test.ts runs the process).
 */
describe('sandbox mode is chosen, never fallen into', () => {
  const CREDENTIALS = Object.fromEntries(LIVE_ENV.map((line) => line.split('=') as [string, string]));
  const CREDENTIAL_SETS = {
    all: CREDENTIALS,
    none: {},
    partial: { MEMBERSHIP_CLIENT_ID: 'client-id-value', MEMBERSHIP_CLIENT_SECRET: 'client-secret-value' },
  };
  const ALL = 'MEMBERSHIP_CLIENT_ID, MEMBERSHIP_CLIENT_SECRET, MEMBERSHIP_CAMPAIGN_ID, MEMBERSHIP_WEBHOOK_SECRET';
  const SETUP = 'docs/operating.md#setup-for-your-channel';
  const sandboxWithCredentials = (given: string): string =>
    `environment: SANDBOX: expected no membership credentials with SANDBOX=true (the sandbox brings its own), but ${given} set: remove them, or unset SANDBOX to serve your channel`;
  const noCredentials = (because: string): string =>
    `environment (no .env file): ${ALL}: expected values: ${because} serves your channel, with its membership credentials (${SETUP}); SANDBOX=true serves the built-in sandbox's test data instead`;
  const partial = (sandboxMode: string): string =>
    `environment (no .env file): MEMBERSHIP_CAMPAIGN_ID: expected a value: the membership credentials are all set (live mode) or ${sandboxMode}; MEMBERSHIP_CLIENT_ID, MEMBERSHIP_CLIENT_SECRET set`;

  type Outcome = { exitCode: 0; mode: 'sandbox' | 'live' } | { exitCode: 78; line: string };
  const serves = (mode: 'sandbox' | 'live'): Outcome => ({ exitCode: 0, mode });
  const stops = (message: string): Outcome => ({ exitCode: 78, line: `configuration error: ${message}` });

  /** What src/main.ts does with the configuration: serve in its mode, or print the ConfigError's line and exit 78. */
  function startOutcome(env: Record<string, string>): Outcome {
    try {
      return serves(loadConfig({ cwd, env, onWarning: () => undefined }).upstream.mode);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return stops(error.message);
    }
  }

  beforeEach(async () => {
    await writeFile(join(cwd, 'members.json'), JSON.stringify(sandboxCredentials().members));
  });

  const matrix: Array<[nodeEnv: string | undefined, credentials: keyof typeof CREDENTIAL_SETS, sandbox: string | undefined, expected: Outcome]> = [
    [undefined, 'all', undefined, serves('live')],
    [undefined, 'all', 'true', stops(sandboxWithCredentials(ALL))],
    [undefined, 'all', 'false', serves('live')],
    [undefined, 'none', undefined, serves('sandbox')],
    [undefined, 'none', 'true', serves('sandbox')],
    [undefined, 'none', 'false', stops(noCredentials('SANDBOX=false'))],
    [undefined, 'partial', undefined, stops(partial('all empty (sandbox mode)'))],
    [undefined, 'partial', 'true', stops(sandboxWithCredentials('MEMBERSHIP_CLIENT_ID, MEMBERSHIP_CLIENT_SECRET'))],
    [undefined, 'partial', 'false', stops(partial('all empty with SANDBOX=true (sandbox mode)'))],
    ['production', 'all', undefined, serves('live')],
    ['production', 'all', 'true', stops(sandboxWithCredentials(ALL))],
    ['production', 'all', 'false', serves('live')],
    ['production', 'none', undefined, stops(noCredentials('NODE_ENV=production'))],
    ['production', 'none', 'true', serves('sandbox')],
    ['production', 'none', 'false', stops(noCredentials('SANDBOX=false'))],
    ['production', 'partial', undefined, stops(partial('all empty with SANDBOX=true (sandbox mode)'))],
    ['production', 'partial', 'true', stops(sandboxWithCredentials('MEMBERSHIP_CLIENT_ID, MEMBERSHIP_CLIENT_SECRET'))],
    ['production', 'partial', 'false', stops(partial('all empty with SANDBOX=true (sandbox mode)'))],
    // Any other NODE_ENV is "not production": development (npm run dev), test (vitest), staging.
    ['development', 'none', undefined, serves('sandbox')],
    ['test', 'none', undefined, serves('sandbox')],
    ['staging', 'none', undefined, serves('sandbox')],
    ['development', 'partial', 'true', stops(sandboxWithCredentials('MEMBERSHIP_CLIENT_ID, MEMBERSHIP_CLIENT_SECRET'))],
  ];

  it.each(matrix)('NODE_ENV=%s, credentials: %s, SANDBOX=%s', (nodeEnv, credentials, sandbox, expected) => {
    const env: Record<string, string> = { ...CREDENTIAL_SETS[credentials], ...(nodeEnv !== undefined && { NODE_ENV: nodeEnv }), ...(sandbox !== undefined && { SANDBOX: sandbox }) };
    const outcome = startOutcome(env);
    expect(outcome).toEqual(expected);
    if (outcome.exitCode === 78) {
      expect(outcome.line).not.toContain('\n');
      for (const secret of ['client-secret-value', 'webhook-secret-value']) expect(outcome.line).not.toContain(secret);
    }
  });

  it('the seed tokens count as credentials: alone they are a partial set, with SANDBOX=true a conflict', () => {
    const tokens = { MEMBERSHIP_ACCESS_TOKEN: 'access-token-value', MEMBERSHIP_REFRESH_TOKEN: 'refresh-token-value' };
    expect(startOutcome(tokens)).toEqual(
      stops('environment (no .env file): MEMBERSHIP_CLIENT_ID: expected a value: the membership credentials are all set (live mode) or all empty (sandbox mode); MEMBERSHIP_ACCESS_TOKEN, MEMBERSHIP_REFRESH_TOKEN set'),
    );
    expect(startOutcome({ ...tokens, SANDBOX: 'true' })).toEqual(stops(sandboxWithCredentials('MEMBERSHIP_ACCESS_TOKEN, MEMBERSHIP_REFRESH_TOKEN')));
  });

  it('empty values are no credentials; NODE_ENV, SANDBOX and the credentials count from .env as from the environment, each named where it is', async () => {
    // Set, but empty, in the environment: that is where the line sends the reader.
    expect(startOutcome({ NODE_ENV: 'production', MEMBERSHIP_CLIENT_ID: '', MEMBERSHIP_CLIENT_SECRET: '' })).toEqual(
      stops(`environment: ${ALL}: expected values: NODE_ENV=production serves your channel, with its membership credentials (${SETUP}); SANDBOX=true serves the built-in sandbox's test data instead`),
    );
    await writeFile(join(cwd, '.env'), 'NODE_ENV=production\nMEMBERSHIP_CLIENT_ID=\n');
    expect(startOutcome({})).toEqual(
      stops(`.env: ${ALL}: expected values: NODE_ENV=production serves your channel, with its membership credentials (${SETUP}); SANDBOX=true serves the built-in sandbox's test data instead`),
    );
    await writeFile(join(cwd, '.env'), 'NODE_ENV=production\nSANDBOX=true\n');
    expect(startOutcome({})).toEqual(serves('sandbox'));
    expect(startOutcome(CREDENTIALS)).toEqual(stops(`.env: SANDBOX: expected no membership credentials with SANDBOX=true (the sandbox brings its own), but ${ALL} set: remove them, or unset SANDBOX to serve your channel`));
  });

  it('SANDBOX takes true/1 or false/0 only', () => {
    expect(startOutcome({ SANDBOX: '1' })).toEqual(serves('sandbox'));
    expect(startOutcome({ SANDBOX: 'yes' })).toEqual(stops('environment: SANDBOX: expected true or false, got "yes"'));
  });

  it('vitest runs the tests with NODE_ENV=test: not production, so every in-process app of the suite may run on the sandbox', () => {
    expect(process.env.NODE_ENV).toBe('test');
  });
});

describe('the source of a bad value', () => {
  it('is the process environment when the value came from it: `environment`, not `.env`', async () => {
    expect(configError({ PORT: 'fourthousand' }).message).toBe('environment: PORT: expected a port number 0-65535, got "fourthousand"');
    await writeFile(join(cwd, '.env'), 'PORT=4001\n');
    expect(configError({ PORT: 'fourthousand' }).message).toBe('environment: PORT: expected a port number 0-65535, got "fourthousand"');
    expect(configError({ GRAPHQL_MAX_DEPTH: 'deep' }).message).toBe('environment: GRAPHQL_MAX_DEPTH: expected a positive integer, got "deep"');
  });

  it('is the file when the file gave it (ENV_FILE names it)', async () => {
    await writeFile(join(cwd, 'prod.env'), 'PORT=fourthousand\n');
    expect(configError({ ENV_FILE: 'prod.env' }).message).toBe('prod.env: PORT: expected a port number 0-65535, got "fourthousand"');
  });

  it('a value missing everywhere is reported against the file it belongs in when the file exists', async () => {
    await writeFile(join(cwd, '.env'), 'PORT=4001\n');
    expect(configError({ MEMBERSHIP_CLIENT_ID: 'id' }).message).toMatch(/^\.env: MEMBERSHIP_CLIENT_SECRET: expected a value/);
  });

  it('…and against the environment, saying that there is no file, when it does not', () => {
    expect(configError({ MEMBERSHIP_CLIENT_ID: 'id' }).message).toMatch(/^environment \(no \.env file\): MEMBERSHIP_CLIENT_SECRET: expected a value/);
    expect(configError({ MEMBERSHIP_CLIENT_ID: 'id', ENV_FILE: 'prod.env' }).message).toMatch(/^environment \(no prod\.env file\): MEMBERSHIP_CLIENT_SECRET: expected a value/);
  });

  it('a secret with a bad value is not echoed', async () => {
    await writeFile(join(cwd, '.env'), `${LIVE_ENV.join('\n')}\nMEMBERSHIP_ACCESS_TOKEN=only-one-token-value\n`);
    const error = configError();
    expect(error.message).toMatch(/^\.env: MEMBERSHIP_REFRESH_TOKEN: expected a value: set both seed tokens or neither/);
    expect(error.message).not.toContain('only-one-token-value');
  });
});

describe('unknown variables with our prefixes', () => {
  function warnings(env: Record<string, string>): string[] {
    const seen: string[] = [];
    loadConfig({ cwd, env, onWarning: (message) => seen.push(message) });
    return seen;
  }

  it('get a warning naming the source and the closest known name', async () => {
    await writeFile(join(cwd, '.env'), 'MEMBERSHIP_API_BASEURL=https://example.org\n');
    expect(
      warnings({
        GRAPHQL_MAX_DEPHT: '3',
        VIDEO_API: 'https://example.org',
        UPSTREAM_TIMEOUT: '100',
        HTTP_KEEPALIVE_TIMEOUT_MS: '100',
        SHUTDOWN_TIMEOUT: '1',
      }),
    ).toEqual([
      '.env: MEMBERSHIP_API_BASEURL is not a known setting and is ignored (did you mean MEMBERSHIP_API_BASE?)',
      'environment: GRAPHQL_MAX_DEPHT is not a known setting and is ignored (did you mean GRAPHQL_MAX_DEPTH?)',
      'environment: VIDEO_API is not a known setting and is ignored (did you mean VIDEO_API_BASE?)',
      'environment: UPSTREAM_TIMEOUT is not a known setting and is ignored (did you mean UPSTREAM_TIMEOUT_MS?)',
      'environment: HTTP_KEEPALIVE_TIMEOUT_MS is not a known setting and is ignored (did you mean HTTP_KEEP_ALIVE_TIMEOUT_MS?)',
      'environment: SHUTDOWN_TIMEOUT is not a known setting and is ignored (did you mean SHUTDOWN_TIMEOUT_MS?)',
    ]);
  });

  it('none for known settings, other prefixes or HTTP_PROXY', () => {
    expect(warnings({ GRAPHQL_MAX_DEPTH: '3', PATH: '/bin', SANDBOX_PORT: '1', HTTP_PROXY: 'http://proxy', npm_config_cache: 'x' })).toEqual([]);
  });

  it('are written to stderr as `configuration warning: …` by default', () => {
    const written: unknown[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => written.push(chunk) > 0);
    try {
      loadConfig({ cwd, env: { GRAPHQL_JITT: 'false' } });
    } finally {
      write.mockRestore();
    }
    expect(written).toEqual(['configuration warning: environment: GRAPHQL_JITT is not a known setting and is ignored (did you mean GRAPHQL_JIT?)\n']);
  });
});

describe('COMPRESSION', () => {
  it('is on by default; false (or 0) turns it off; anything else is refused', () => {
    expect(loadConfig({ cwd, env: {} }).compression).toBe(true);
    expect(loadConfig({ cwd, env: { COMPRESSION: 'false' } }).compression).toBe(false);
    expect(loadConfig({ cwd, env: { COMPRESSION: '0' } }).compression).toBe(false);
    expect(configError({ COMPRESSION: 'gzip' }).message).toBe('environment: COMPRESSION: expected true or false, got "gzip"');
  });
});
