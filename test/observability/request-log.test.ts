/**
 * The request log line (request-log.ts) is the line pino writes for
 * `logger.info({ method, route, status, requestId, durationMs[, aborted] }, 'request')` on the
 * service's logger (createLogger, a child with its bindings), apart from the time it was written;
 * it follows the logger's level as that changes, and a destination that routes lines by level
 * (pino.multistream) gets it like any other line.
 */
import fc from 'fast-check';
import { pino, type DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { requestLog } from '../../src/observability/request-log.js';

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
  it("is pino's line for the same fields (fast-check), aborted or not, with the duration in milliseconds to 0.1", () => {
    const sink = capture();
    const logger = createLogger({ level: 'info', destination: sink.destination }).child({ component: 'http' });
    const log = requestLog(logger);
    fc.assert(
      fc.property(requestIds, methods, routes, statuses, durations, fc.boolean(), (requestId, method, route, status, seconds, aborted) => {
        log.write(log.kind(method, route, status), requestId, seconds, aborted);
        logger.info({ ...kindOf(method, route, status), requestId, durationMs: Math.round(seconds * 1e4) / 10, ...(aborted && { aborted }) }, 'request');
        const lines = sink.lines.splice(0);
        expect(lines).toHaveLength(2);
        expect(timeless(lines[0] as string)).toBe(timeless(lines[1] as string));
      }),
      { numRuns: 300 },
    );
    // The comparison can fail: a line with one field more is not pino's.
    log.write(log.kind('GET', '/healthz', 200), 'id-1', 0.00149, true);
    logger.info({ ...kindOf('GET', '/healthz', 200), requestId: 'id-1', durationMs: 1.5 }, 'request');
    const lines = sink.lines.splice(0);
    expect(timeless(lines[0] as string)).not.toBe(timeless(lines[1] as string));
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 30, pid: process.pid, component: 'http', method: 'GET', route: '/healthz', requestId: 'id-1', status: 200, durationMs: 1.5, aborted: true, msg: 'request' });
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
