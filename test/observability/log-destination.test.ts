/**
 * The log destination (logDestination): lines are written in batches, not one write(2) per line,
 * and none is left behind — a quiet logger's line goes out on its own (after `batchMs`, when
 * given), `logger.flush(cb)` writes what is pending. (That the last line survives process.exit is checked in test/config.slow.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedDestination, createLogger, LOG_BATCH_BYTES, LOG_BATCH_MS, logDestination, type Logger } from '../../src/observability/logger.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function fileLogger(options: { batchMs?: number } = {}): Promise<{ logger: Logger; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'log-destination-'));
  const path = join(dir, 'log.jsonl');
  const destination = logDestination(path, options);
  // Opened asynchronously, destroyed by the test.
  await destination.ready();
  const logger = createLogger({ level: 'info', destination });
  cleanups.push(async () => {
    destination.destroy();
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

  it('costs a line the same whatever the batch holds: no pass over the pending text per line', async () => {
    const { logger, path } = await fileLogger();
    const measure = vi.spyOn(Buffer, 'byteLength');
    for (let i = 0; i < 200; i += 1) logger.info({ requestId: `r${i}` }, 'request');
    // sonic-boom's own batching measured the whole pending text once per line appended.
    expect(measure.mock.calls.length).toBeLessThan(20);
    await flushed(logger);
    expect(await linesOf(path)).toHaveLength(200);
  });

  it('writes every line whole and in order: multi-byte characters, and a line longer than a batch', async () => {
    const { logger, path } = await fileLogger();
    // 2.25 bytes a UTF-16 code unit in UTF-8 ('😀' is two units, four bytes): 1.125 batches.
    const wide = 'é€😀'.repeat(LOG_BATCH_BYTES / 8);
    // Each wide line follows most of a batch held: it must start a new batch, not be cut at the end of this one.
    const held = 'a'.repeat(LOG_BATCH_BYTES - 1_000);
    // 3 bytes a unit, longer than a batch's whole buffer (twice a batch): written on its own, after what was held before it.
    const long = '€'.repeat(LOG_BATCH_BYTES);
    const messages = ['first', ...Array.from({ length: 3 }, (_, i) => [`${i} ${held}`, `${i} ${wide}`]).flat(), long, 'last'];
    for (const message of messages) logger.info(message);
    await flushed(logger);
    expect((await linesOf(path)).map((line) => line.msg)).toEqual(messages);
  });

  it('a small batch handed over holds only its own bytes, not the batch buffer (the pending-bytes bound counts what it holds)', () => {
    // What the destination hands to sonic-boom, recorded (sonic-boom bounds what it holds by these bytes).
    const handed: Buffer[] = [];
    const sonic = { fd: -1, write: (bytes: Buffer) => handed.push(bytes) > 0, flush: () => {}, flushSync: () => {}, end: () => {}, destroy: () => {}, once: () => sonic };
    const destination = new BatchedDestination(sonic);
    try {
      destination.write('{"msg":"one line"}\n');
      destination.flush();
      expect(handed.map((bytes) => bytes.toString())).toEqual(['{"msg":"one line"}\n']);
      expect(handed[0]?.buffer.byteLength).toBe(handed[0]?.length);
    } finally {
      destination.destroy();
    }
  });

  it('refuses room for more bytes than its buffer holds, with a clear error (such a line goes through write())', () => {
    const sonic = { fd: -1, write: () => true, flush: () => {}, flushSync: () => {}, end: () => {}, destroy: () => {}, once: () => sonic };
    const destination = new BatchedDestination(sonic);
    try {
      expect(destination.reserve(2 * LOG_BATCH_BYTES)).toBe(0);
      expect(() => destination.reserve(2 * LOG_BATCH_BYTES + 1)).toThrow(/written with write\(\)/);
    } finally {
      destination.destroy();
    }
  });

  it('lines still held are written when the process exits', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'log-exit-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'log.jsonl');
    const script = [
      `import { createLogger, logDestination } from ${JSON.stringify(new URL('../../src/observability/logger.ts', import.meta.url).href)};`,
      `const destination = logDestination(${JSON.stringify(path)});`,
      'await destination.ready();',
      "const logger = createLogger({ level: 'info', destination });",
      "for (let i = 0; i < 5; i += 1) logger.info({ requestId: `x${i}` }, 'request');",
      'process.exit(3);',
    ].join('\n');
    const { status } = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(status).toBe(3);
    expect((await linesOf(path)).map((line) => line.requestId)).toEqual(['x0', 'x1', 'x2', 'x3', 'x4']);
  });

  it('a line logged by a quiet logger is written without a flush', async () => {
    const { logger, path } = await fileLogger();
    logger.info({ requestId: 'alone' }, 'request');
    await vi.waitFor(async () => expect((await linesOf(path)).map((line) => line.requestId)).toEqual(['alone']), { timeout: 5_000, interval: 20 });
  });

  it('holds a quiet line for `batchMs` when given one, not LOG_BATCH_MS (bench/instructions sets it out of reach)', async () => {
    // The batch timers are faked (the file writes are not): the clock moves when the test moves it,
    // and a line handed over to sonic-boom is written at once (fs.write, seen by the spy).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const held = await fileLogger({ batchMs: 60_000 });
    const usual = await fileLogger();
    const write = vi.spyOn(fs, 'write');
    held.logger.info({ requestId: 'held' }, 'request');
    usual.logger.info({ requestId: 'usual' }, 'request');
    vi.advanceTimersByTime(4 * LOG_BATCH_MS);
    vi.useRealTimers();
    const written = write.mock.calls.map((call) => String(call[1]));
    expect(written.filter((text) => text.includes('"requestId":"usual"'))).toHaveLength(1); // LOG_BATCH_MS passed
    expect(written.filter((text) => text.includes('"requestId":"held"'))).toEqual([]);
    await flushed(held.logger);
    expect((await linesOf(held.path)).map((line) => line.requestId)).toEqual(['held']);
  });
});
