import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryRequirement, findSystemBinary, isCi } from './system-binary.js';

/** The rule of test/support/system-binary.ts: skipped with a reason on a developer machine, a failure in CI. */
let bin: string;
beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'system-binary-'));
  await writeFile(join(bin, 'fake-server'), '#!/bin/sh\n', { mode: 0o755 });
  await writeFile(join(bin, 'not-executable'), '', { mode: 0o644 });
});
afterAll(() => rm(bin, { recursive: true, force: true }));

const query = { name: 'fake-server', command: 'fake-server', envVar: 'FAKE_SERVER_PATH', install: 'apt-get install fake-server' };

describe('findSystemBinary', () => {
  it('finds an executable on PATH, or at the path an environment variable names', () => {
    expect(findSystemBinary(query, { PATH: `/nonexistent:${bin}` }).path).toBe(join(bin, 'fake-server'));
    expect(findSystemBinary(query, { PATH: '', FAKE_SERVER_PATH: join(bin, 'fake-server') }).path).toBe(join(bin, 'fake-server'));
  });

  it('does not count a missing or non-executable file', () => {
    expect(findSystemBinary(query, { PATH: '/nonexistent' }).path).toBeUndefined();
    expect(findSystemBinary({ ...query, command: 'not-executable' }, { PATH: bin }).path).toBeUndefined();
    expect(findSystemBinary(query, { PATH: bin, FAKE_SERVER_PATH: join(bin, 'not-executable') }).path).toBeUndefined();
  });
});

describe('binaryRequirement', () => {
  const missing = findSystemBinary(query, { PATH: '/nonexistent' });

  it('runs the suite with the path when the program is there', () => {
    expect(binaryRequirement(findSystemBinary(query, { PATH: bin }), true)).toEqual({ run: true, path: join(bin, 'fake-server') });
  });

  it('skips, saying why and how to install it, on a developer machine', () => {
    expect(binaryRequirement(missing, false)).toEqual({ run: false, skipReason: 'skipped: fake-server not found (looked for fake-server on PATH; apt-get install fake-server)' });
  });

  it('fails in CI', () => {
    expect(binaryRequirement(missing, true)).toEqual({ run: false, failure: 'fake-server not found (looked for fake-server on PATH; apt-get install fake-server): CI must provide it' });
  });

  it('reads CI=true (or 1) as CI', () => {
    expect([isCi({ CI: 'true' }), isCi({ CI: '1' }), isCi({ CI: 'false' }), isCi({})]).toEqual([true, true, false, false]);
  });
});
