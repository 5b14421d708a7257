/**
 * The log destination (logDestination): lines reach the file whole and in order, written in batches
 * (not one write(2) per line), none left behind — a quiet logger's line goes out after `batchMs`,
 * `logger.flush(cb)` writes what is pending, and lines still held are written when the process
 * exits (its end, process.exit, an uncaught exception) — and while the reader is behind, what is held
 * is bounded by MAX_PENDING_LOG_BYTES: later lines are dropped. (That the last line survives a
 * SIGTERM shutdown of `npm start` is checked in test/config.slow.test.ts.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, LOG_BATCH_BYTES, LOG_BATCH_MS, logDestination, MAX_PENDING_LOG_BYTES, type Logger } from '../../src/observability/logger.js';
import { builtModule } from '../support/built-module.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'log-destination-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function fileLogger(options: { batchMs?: number } = {}): Promise<{ logger: Logger; path: string }> {
  const path = join(await tempDir(), 'log.jsonl');
  const destination = logDestination(path, options);
  // Opened asynchronously, destroyed by the test.
  await once(destination.stream, 'ready');
  cleanups.unshift(() => Promise.resolve(destination.stream.destroy()));
  return { logger: createLogger({ level: 'info', destination }), path };
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

  it('does not measure the pending lines again for every line appended', async () => {
    const { logger, path } = await fileLogger();
    const measure = vi.spyOn(Buffer, 'byteLength');
    for (let i = 0; i < 200; i += 1) logger.info({ requestId: `r${i}` }, 'request');
    // sonic-boom's own 'utf8' mode measured the whole pending chunk once per line appended.
    expect(measure.mock.calls.length).toBeLessThan(20);
    await flushed(logger);
    expect(await linesOf(path)).toHaveLength(200);
  });

  it('writes every line whole and in order: multi-byte characters, and lines longer than a batch', async () => {
    const { logger, path } = await fileLogger();
    // 2.25 bytes a UTF-16 code unit in UTF-8 ('😀' is two units, four bytes): longer than a batch.
    const wide = 'é€😀'.repeat(LOG_BATCH_BYTES / 4);
    const held = 'a'.repeat(LOG_BATCH_BYTES - 1_000);
    // 3 bytes a unit: longer than two batches.
    const long = '€'.repeat(LOG_BATCH_BYTES);
    const messages = ['first', ...Array.from({ length: 3 }, (_, i) => [`${i} ${held}`, `${i} ${wide}`]).flat(), long, 'last'];
    for (const message of messages) logger.info(message);
    await flushed(logger);
    expect((await linesOf(path)).map((line) => line.msg)).toEqual(messages);
  });

  it('holds at most MAX_PENDING_LOG_BYTES while the reader is behind: later lines are dropped, the held ones arrive in order', async () => {
    const fifo = join(await tempDir(), 'reader-behind');
    execFileSync('mkfifo', [fifo]);
    // The reader is open (so the destination can open the pipe) but reads nothing until the end.
    const reader = new Socket({ fd: fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false });
    reader.pause();
    const destination = logDestination(fifo);
    await once(destination.stream, 'ready');
    let dropped = 0;
    destination.stream.on('drop', () => (dropped += 1));
    const logger = createLogger({ level: 'info', destination });
    const payload = 'x'.repeat(1_000);
    const total = Math.ceil((1.5 * MAX_PENDING_LOG_BYTES) / payload.length);
    for (let i = 0; i < total; i += 1) logger.info({ i, payload }, 'request');
    expect(dropped).toBeGreaterThan(0);
    // Everything is read now: the held lines, then the end of the stream.
    const received: Buffer[] = [];
    reader.on('data', (chunk: Buffer) => received.push(chunk));
    reader.resume();
    destination.stream.end();
    await once(reader, 'end');
    const bytes = Buffer.concat(received);
    const indices = bytes.toString().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { i: number }).i);
    // What was held when the lines began to drop is bounded; what came of it is whole and in order.
    expect(bytes.length).toBeLessThanOrEqual(MAX_PENDING_LOG_BYTES + 2 * LOG_BATCH_BYTES + 64 * 1024);
    expect(indices).toEqual(Array.from({ length: total - dropped }, (_, i) => i));
  });

  describe('lines still held are written when the process exits', () => {
    // A process of its own: the logger as built, on plain node (test/support/built-module.ts).
    const script = (path: string, end: string): string =>
      [
        `import { once } from 'node:events';`,
        `import { createLogger, logDestination } from ${JSON.stringify(pathToFileURL(builtModule('src/observability/logger.ts')).href)};`,
        `const destination = logDestination(${JSON.stringify(path)});`,
        "await once(destination.stream, 'ready');",
        "const logger = createLogger({ level: 'info', destination });",
        "for (let i = 0; i < 5; i += 1) logger.info({ requestId: `x${i}` }, 'request');",
        end,
      ].join('\n');
    const ends = {
      'at the end of the event loop': { end: '', status: 0 },
      'on process.exit': { end: 'process.exit(3);', status: 3 },
      'on an uncaught exception': { end: "setImmediate(() => { throw new Error('uncaught'); });", status: 1 },
    };
    for (const [when, { end, status }] of Object.entries(ends)) {
      it(when, async () => {
        const path = join(await tempDir(), 'log.jsonl');
        const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(path, end)], { encoding: 'utf8' });
        expect(run.status).toBe(status);
        expect((await linesOf(path)).map((line) => line.requestId)).toEqual(['x0', 'x1', 'x2', 'x3', 'x4']);
      });
    }
  });

  it('a line logged by a quiet logger is written after LOG_BATCH_MS, without a flush', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { logger, path } = await fileLogger();
    const write = vi.spyOn(fs, 'write');
    logger.info({ requestId: 'alone' }, 'request');
    expect(write).not.toHaveBeenCalled();
    vi.advanceTimersByTime(LOG_BATCH_MS);
    expect(write).toHaveBeenCalled();
    await vi.waitFor(async () => expect((await linesOf(path)).map((line) => line.requestId)).toEqual(['alone']), { timeout: 5_000, interval: 20 });
  });

  it('holds a quiet line for `batchMs` when given one, not LOG_BATCH_MS (bench/instructions sets it out of reach)', async () => {
    // The batch timers are faked (the file writes are not): the clock moves when the test moves it.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { logger, path } = await fileLogger({ batchMs: 60_000 });
    const write = vi.spyOn(fs, 'write');
    logger.info({ requestId: 'held' }, 'request');
    vi.advanceTimersByTime(10 * LOG_BATCH_MS);
    expect(write).not.toHaveBeenCalled();
    vi.advanceTimersByTime(60_000);
    expect(write).toHaveBeenCalled();
    await vi.waitFor(async () => expect((await linesOf(path)).map((line) => line.requestId)).toEqual(['held']), { timeout: 5_000, interval: 20 });
  });
});
