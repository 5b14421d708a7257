/**
 * The [server] part of `npm run dev` (scripts/dev-server.ts) with an entry that does not join the
 * dev loop (no src/lib/dev-loop.ts): it cannot swap a regenerated SDL in, so it is restarted, on
 * the code as it is then.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createDevServer, type DevServer } from '../../scripts/dev-server.js';
import { eventually } from '../support/eventually.js';

let dir: string | undefined;
let server: DevServer | undefined;
afterAll(async () => {
  await server?.stop(5_000);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Waits until `holds()`; fails with what the dev server printed. */
function printedEvent(what: string, holds: () => boolean, lines: readonly string[]): Promise<true> {
  return eventually(what, holds, { timeoutMs: 60_000, detail: () => `printed:\n${lines.join('\n')}` });
}

it('restarts an entry that does not swap schemas when the SDL is regenerated', async () => {
  dir = await mkdtemp(join(tmpdir(), 'dev-server-'));
  const entry = join(dir, 'entry.ts');
  // Stays up until told to stop, like a server.
  await writeFile(entry, "console.log('version 1');\nsetInterval(() => undefined, 1_000);\nprocess.on('SIGTERM', () => process.exit(0));\n");
  const printed: string[] = [];
  server = createDevServer({ entry, env: process.env, print: (line) => printed.push(line), onReport: () => undefined });
  await printedEvent('the entry to run', () => printed.includes('version 1'), printed);
  await writeFile(entry, "console.log('version 2');\nsetInterval(() => undefined, 1_000);\nprocess.on('SIGTERM', () => process.exit(0));\n");
  server.reloadSchema();
  await printedEvent('the entry to run again, on its new code', () => printed.includes('version 2'), printed);
  // From now on the standby loads the dependencies while it waits (what `npm run dev` asks for after its first typecheck).
  server.preloadStandbys();
  await writeFile(entry, "console.log('version 3');\nsetInterval(() => undefined, 1_000);\nprocess.on('SIGTERM', () => process.exit(0));\n");
  server.reloadSchema();
  await printedEvent('the entry to run from a preloaded standby, on its new code', () => printed.includes('version 3'), printed);
  expect(printed.filter((line) => line.startsWith('version'))).toEqual(['version 1', 'version 2', 'version 3']);
});

it('tells when a start ends without a server listening: code that throws at import, and a process that exits before it listens', async () => {
  dir ??= await mkdtemp(join(tmpdir(), 'dev-server-'));
  for (const [name, code, said] of [
    ['throws.ts', "throw new Error('broken at import');\n", 'throws.ts:1:7 Error: broken at import'],
    ['exits.ts', 'setTimeout(() => process.exit(3), 50);\n', 'exited (code 3)'],
  ] as const) {
    const entry = join(dir, name);
    await writeFile(entry, code);
    const printed: string[] = [];
    let failed = 0;
    const started = createDevServer({ entry, env: process.env, print: (line) => printed.push(line), onReport: () => undefined, onStartFailed: () => (failed += 1) });
    await printedEvent(`the start of ${name} to fail`, () => failed > 0, printed);
    await started.stop(5_000);
    expect(failed).toBe(1);
    expect(printed.join('\n')).toContain(said);
  }
});
