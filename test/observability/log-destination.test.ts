/**
 * The log destination (logDestination): lines are written in batches, not one write(2) per line,
 * and none is left behind — a quiet logger's line goes out on its own, `logger.flush(cb)` writes
 * what is pending. (That the last line survives process.exit is checked in test/config.slow.test.ts.)
 */
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, logDestination, type Logger } from '../../src/observability/logger.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function fileLogger(): Promise<{ logger: Logger; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'log-destination-'));
  const path = join(dir, 'log.jsonl');
  const destination = logDestination(path);
  // A sonic-boom stream (pino.destination): opened asynchronously, destroyed by the test.
  const stream = destination as unknown as { once(event: 'ready', listener: () => void): void; destroy(): void };
  await new Promise<void>((resolve) => stream.once('ready', () => resolve()));
  const logger = createLogger({ level: 'info', destination });
  cleanups.push(async () => {
    stream.destroy();
    await rm(dir, { recursive: true, force: true });
  });
  return { logger, path };
}

const linesOf = async (path: string): Promise<Array<Record<string, unknown>>> =>
  (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

const flushed = (logger: Logger): Promise<void> => new Promise((resolve) => logger.flush(() => resolve()));

describe('the log destination', () => {
  it('writes lines logged in separate turns of the event loop together, not one write per line', async () => {
    const { logger, path } = await fileLogger();
    const write = vi.spyOn(fs, 'write');
    for (let i = 0; i < 20; i += 1) {
      logger.info({ requestId: `r${i}` }, 'request');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await flushed(logger);
    expect((await linesOf(path)).map((line) => line.requestId)).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
    // One write for the batch (a few more only if the periodic flush fell between the lines).
    expect(write.mock.calls.length).toBeLessThanOrEqual(5);
  });

  it('a line logged by a quiet logger is written without a flush', async () => {
    const { logger, path } = await fileLogger();
    logger.info({ requestId: 'alone' }, 'request');
    await vi.waitFor(async () => expect((await linesOf(path)).map((line) => line.requestId)).toEqual(['alone']), { timeout: 5_000, interval: 20 });
  });
});
