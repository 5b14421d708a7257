/**
 * Durable whole-file writes (src/lib/atomic-file.ts) and the removal of what interrupted writes
 * left behind. The kill -9 test is atomic-file.slow.test.ts.
 */
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileIfExists, removeTemporaryFiles, writeFileAtomic } from '../../src/lib/atomic-file.js';

let directory: string;
let target: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'atomic-file-'));
  target = join(directory, 'token.json');
});
afterEach(() => rm(directory, { recursive: true, force: true }));

/** A leftover as writeFileAtomic names them: `<target>.<pid>.<12 hex>.tmp`. */
async function leftover(pid: number, ageMs = 0): Promise<string> {
  const path = `${target}.${pid}.0123456789ab.tmp`;
  await writeFile(path, '{"half":');
  const at = new Date(Date.now() - ageMs);
  await utimes(path, at, at);
  return path;
}

/** A pid no process has: past the kernel's pid_max (at most 2^22 on Linux). */
const GONE_PID = 2 ** 22 + 1;

describe('writeFileAtomic', () => {
  it('writes the whole content, readable by its owner only, and leaves no temporary file', async () => {
    await writeFileAtomic(join(directory, 'nested', 'token.json'), '{"a":1}');
    await writeFileAtomic(target, '{"a":1}');
    await writeFileAtomic(target, '{"a":2}');
    expect(await readFile(target, 'utf8')).toBe('{"a":2}');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect((await readdir(directory)).sort()).toEqual(['nested', 'token.json']);
  });

  it('keeps the previous content and removes its temporary file when the rename fails', async () => {
    await writeFileAtomic(target, 'old');
    const failing = () => Promise.reject(new Error('disk full'));
    await expect(writeFileAtomic(target, 'new', { renameFile: failing })).rejects.toThrow('disk full');
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await readdir(directory)).toEqual(['token.json']);
  });
});

describe('removeTemporaryFiles', () => {
  it('removes the leftovers of a process that is gone, and of an earlier process with our pid', async () => {
    await writeFile(target, '{}');
    const gone = await leftover(GONE_PID);
    const ours = await leftover(process.pid);
    expect((await removeTemporaryFiles(target)).sort()).toEqual([gone, ours].sort());
    expect(await readdir(directory)).toEqual(['token.json']);
  });

  it('keeps a recent temporary file of another running process (a write in progress), not an hour-old one', async () => {
    const recent = await leftover(process.ppid);
    expect(await removeTemporaryFiles(target)).toEqual([]);
    await rm(recent);
    const abandoned = await leftover(process.ppid, 2 * 60 * 60 * 1000);
    expect(await removeTemporaryFiles(target)).toEqual([abandoned]);
  });

  it('keeps the temporary file of a write this process has in flight', async () => {
    let release!: () => void;
    const renaming = new Promise<void>((resolve) => (release = resolve));
    const { rename } = await import('node:fs/promises');
    const writing = writeFileAtomic(target, '{"b":2}', {
      renameFile: async (from, to) => {
        await renaming;
        await rename(from, to);
      },
    });
    await expect.poll(async () => (await readdir(directory)).length).toBe(1);
    expect(await removeTemporaryFiles(target)).toEqual([]);
    release();
    await writing;
    expect(await readFile(target, 'utf8')).toBe('{"b":2}');
  });

  it('touches nothing else, and answers [] for a directory that does not exist', async () => {
    const others = ['token.json.bak', 'other.json.123.0123456789ab.tmp', 'token.json.x.0123456789ab.tmp'];
    for (const name of others) await writeFile(join(directory, name), '');
    expect(await removeTemporaryFiles(target)).toEqual([]);
    expect((await readdir(directory)).sort()).toEqual(others.sort());
    expect(await removeTemporaryFiles(join(directory, 'missing', 'token.json'))).toEqual([]);
  });
});

describe('readFileIfExists', () => {
  it('reads a file, and answers null for a missing one', async () => {
    await writeFile(target, 'text');
    expect(await readFileIfExists(target)).toBe('text');
    expect(await readFileIfExists(join(directory, 'missing.json'))).toBeNull();
  });
});
