/**
 * Durable writes survive `kill -9`: a child process rewrites a file in a loop with
 * writeFileAtomic and is killed with SIGKILL at random moments, many times. Every time the target
 * is a complete version, and removeTemporaryFiles (what FileTokenStore and the snapshot store run
 * when they load) leaves no temporary file behind.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTemporaryFiles } from '../../src/lib/atomic-file.js';
import { builtModule } from '../support/built-module.js';

const WRITER = fileURLToPath(new URL('../support/atomic-writer.mjs', import.meta.url));
const KILLS = 15;

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'atomic-file-kill-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

/** Starts the writer and resolves once its first version is on disk. */
async function startWriter(target: string) {
  const child = spawn(process.execPath, [WRITER, target, builtModule('src/lib/atomic-file.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => text.includes('ready') && resolve());
    child.once('exit', (code, signal) => reject(new Error(`the writer exited early (${code ?? signal})`)));
  });
  return { child, exited };
}

describe('writeFileAtomic under kill -9', () => {
  it(`leaves a complete file and, after cleanup, no temporary file, over ${KILLS} kills at random moments`, async () => {
    const target = join(directory, 'state.json');
    let killedMidWrite = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const { child, exited } = await startWriter(target);
      await sleep(Math.floor(Math.random() * 40));
      child.kill('SIGKILL');
      const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect(signal).toBe('SIGKILL');

      const stored = JSON.parse(await readFile(target, 'utf8')) as { version: number; length: number; filler: string };
      expect(stored.version).toBeGreaterThan(0);
      expect(stored.filler).toHaveLength(stored.length);

      const leftovers = (await readdir(directory)).filter((name) => name !== 'state.json');
      if (leftovers.length > 0) killedMidWrite += 1;
      expect((await removeTemporaryFiles(target)).length).toBe(leftovers.length);
      expect(await readdir(directory)).toEqual(['state.json']);
    }
    // The kills did land between a write and its rename, or the cleanup was never exercised.
    expect(killedMidWrite).toBeGreaterThan(0);
  });
});
