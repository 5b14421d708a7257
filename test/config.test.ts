import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ConfigError, loadAuthorizeConfig, loadConfig } from '../src/config.js';
import { configErrorOf } from './support/config-error.js';
import { sandboxCredentials } from '../src/sandbox/credentials.js';

/** Issue 9 §8: configuration is strict (no silently ignored line or typo) and discreet (no secret, no file content echoed). */
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

  it('a value missing everywhere is reported against the file it belongs in, even when the file does not exist yet', () => {
    expect(configError({ MEMBERSHIP_CLIENT_ID: 'id' }).message).toMatch(/^\.env: MEMBERSHIP_CLIENT_SECRET: expected a value/);
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
