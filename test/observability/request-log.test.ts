/**
 * The request line written by hand (request-log.ts) is byte for byte the line pino writes for
 * `logger.info({ method, route, status, requestId, durationMs[, aborted] }, 'request')` on the
 * service's logger (createLogger, a child with its bindings), apart from the time it was written:
 * as a string to any destination, and as bytes written straight into the batch of the service's own
 * (BatchedDestination), whose time digits are rewritten every millisecond. It follows the logger's
 * level as that changes, and a destination that wants pino's metadata (pino.multistream) gets the
 * line through pino.
 */
import fc from 'fast-check';
import { pino, type DestinationStream } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedDestination, createLogger } from '../../src/observability/logger.js';
import { requestLog } from '../../src/observability/request-log.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A BatchedDestination over a stand-in for sonic-boom: the lines it hands over, once flushed. */
function batched(): { destination: BatchedDestination; lines: () => string[] } {
  const handed: Buffer[] = [];
  const sonic = { fd: -1, write: (bytes: Buffer) => handed.push(Buffer.from(bytes)) > 0, flush: () => {}, flushSync: () => {}, end: () => {}, destroy: () => {}, once: () => sonic };
  const destination = new BatchedDestination(sonic);
  return {
    destination,
    lines: () => {
      destination.flush();
      const text = Buffer.concat(handed.splice(0)).toString();
      return text.split('\n').slice(0, -1).map((line) => `${line}\n`);
    },
  };
}

function capture(): { destination: DestinationStream; lines: string[] } {
  const lines: string[] = [];
  return { destination: { write: (line: string) => void lines.push(line) }, lines };
}

/** The line with its time replaced: two lines written a millisecond apart compare equal. */
const timeless = (line: string): string => line.replace(/"time":\d+/, '"time":0');

const requestIds = fc.oneof(fc.uuid(), fc.stringMatching(/^[\w.:-]{1,128}$/));
const methods = fc.constantFrom('GET', 'POST', 'OPTIONS', 'HEAD', 'DELETE', 'M-SEARCH');
const routes = fc.constantFrom('/graphql', '/membership/pledges', '/healthz', '(unmatched)');
const statuses = fc.integer({ min: 100, max: 599 });
/** Seconds, as the server measures them (performance.now differences): any fraction, up to ~12 days. */
const durations = fc.double({ min: 0, max: 1_000_000, noNaN: true });

const kindOf = (method: string, route: string, status: number) => ({ method, route, status });

describe('the request log line', () => {
  for (const to of ['a destination', 'the batch of a BatchedDestination, as bytes'] as const) {
    it(`is pino's own line for the same fields (fast-check), aborted or not: written to ${to}`, () => {
      const sink = to === 'a destination' ? capture() : undefined;
      const batch = sink === undefined ? batched() : undefined;
      const destination = sink?.destination ?? (batch as ReturnType<typeof batched>).destination;
      const linesWritten = (): string[] => (sink === undefined ? (batch as ReturnType<typeof batched>).lines() : sink.lines.splice(0));
      const logger = createLogger({ level: 'info', destination }).child({ component: 'http' });
      const log = requestLog(logger);
      try {
        fc.assert(
          fc.property(requestIds, methods, routes, statuses, durations, fc.boolean(), (requestId, method, route, status, seconds, aborted) => {
            log.write(log.kind(method, route, status), requestId, seconds, aborted);
            logger.info({ ...kindOf(method, route, status), requestId, durationMs: Math.round(seconds * 1e4) / 10, ...(aborted && { aborted }) }, 'request');
            const lines = linesWritten();
            expect(lines).toHaveLength(2);
            expect(timeless(lines[0] as string)).toBe(timeless(lines[1] as string));
          }),
          { numRuns: 300 },
        );
        // The comparison can fail: a line with one field more is not pino's.
        log.write(log.kind('GET', '/healthz', 200), 'id-1', 0.0015, true);
        logger.info({ ...kindOf('GET', '/healthz', 200), requestId: 'id-1', durationMs: 1.5 }, 'request');
        const lines = linesWritten();
        expect(timeless(lines[0] as string)).not.toBe(timeless(lines[1] as string));
        expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 30, pid: process.pid, component: 'http', requestId: 'id-1', status: 200, durationMs: 1.5, aborted: true, msg: 'request' });
      } finally {
        batch?.destination.destroy();
      }
    });
  }

  it('carries the time it was written, in the batch too: the digits follow the clock, and a time with more digits', () => {
    const { destination, lines } = batched();
    const logger = createLogger({ level: 'info', destination });
    const log = requestLog(logger);
    const kind = log.kind('POST', '/graphql', 200);
    const times = [1_795_703_107_456, 1_795_703_107_456, 1_795_703_107_457, 9_999_999_999_999, 10_000_000_000_000, 10_000_000_000_001];
    const clock = vi.spyOn(Date, 'now');
    for (const time of times) {
      clock.mockReturnValueOnce(time);
      log.write(kind, 'id', 0.001, false);
    }
    clock.mockRestore();
    const written = lines().map((line) => JSON.parse(line) as { time: number; requestId: string; durationMs: number });
    expect(written.map((line) => line.time)).toEqual(times);
    expect(written.every((line) => line.requestId === 'id' && line.durationMs === 1)).toBe(true);
    destination.destroy();
  });

  it('carries every time of any clock (fast-check): a millisecond on, many on, back, to another number of digits', () => {
    const { destination, lines } = batched();
    const log = requestLog(createLogger({ level: 'info', destination }));
    const kind = log.kind('GET', '/healthz', 200);
    // A step is a jump to any time, or a move of a few milliseconds from the last one (forwards or back).
    const steps = fc.array(fc.oneof(fc.maxSafeNat(), fc.record({ by: fc.integer({ min: -1_500, max: 1_500 }) })), { minLength: 1, maxLength: 40 });
    const clock = vi.spyOn(Date, 'now');
    try {
      fc.assert(
        fc.property(fc.maxSafeNat(), steps, (first, moves) => {
          const times = [first];
          for (const move of moves) times.push(typeof move === 'number' ? move : Math.max(0, (times.at(-1) as number) + move.by));
          for (const time of times) {
            clock.mockReturnValueOnce(time);
            log.write(kind, 'id', 0.001, false);
          }
          expect(lines().map((line) => (JSON.parse(line) as { time: number }).time)).toEqual(times);
        }),
        { numRuns: 300 },
      );
    } finally {
      destination.destroy();
    }
  });

  it("follows the logger's level while the process runs", () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'warn', destination });
    const log = requestLog(logger);
    const kind = log.kind('GET', '/healthz', 200);
    log.write(kind, 'a', 0.001, false);
    expect(lines).toEqual([]);
    logger.level = 'info';
    log.write(kind, 'b', 0.001, false);
    logger.level = 'silent';
    log.write(kind, 'c', 0.001, false);
    expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['b']);
  });

  it('goes through pino to a destination that routes lines by level (pino.multistream)', () => {
    const info = capture();
    const errors = capture();
    const logger = pino({ level: 'info' }, pino.multistream([{ level: 'info', stream: info.destination }, { level: 'error', stream: errors.destination }]));
    const log = requestLog(logger);
    log.write(log.kind('POST', '/graphql', 200), 'id-2', 0.0025, false);
    expect(info.lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ level: 30, requestId: 'id-2', method: 'POST', route: '/graphql', status: 200, durationMs: 2.5, msg: 'request' }),
    ]);
    expect(errors.lines).toEqual([]);
  });
});
