/**
 * The request line written by hand (request-log.ts) is byte for byte the line pino writes for
 * `logger.info({ requestId, method, route, status, durationMs[, aborted] }, 'request')` on the
 * service's logger (createLogger, a child with its bindings), apart from the time it was written;
 * it follows the logger's level as that changes, and a destination that wants pino's metadata
 * (pino.multistream) gets the line through pino.
 */
import fc from 'fast-check';
import { pino, type DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { requestFields, requestLogWriter } from '../../src/observability/request-log.js';

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
const durations = fc.integer({ min: 0, max: 10_000_000 }).map((tenths) => tenths / 10);

describe('the request log line', () => {
  it("is pino's own line for the same fields (fast-check), aborted or not", () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'info', destination }).child({ component: 'http' });
    const write = requestLogWriter(logger);
    fc.assert(
      fc.property(requestIds, methods, routes, statuses, durations, fc.boolean(), (requestId, method, route, status, durationMs, aborted) => {
        lines.length = 0;
        write(requestId, requestFields(method, route, status), durationMs, aborted);
        logger.info({ requestId, method, route, status, durationMs, ...(aborted && { aborted }) }, 'request');
        expect(lines).toHaveLength(2);
        expect(timeless(lines[0] as string)).toBe(timeless(lines[1] as string));
      }),
      { numRuns: 300 },
    );
    // The comparison can fail: a line with one field more is not pino's.
    lines.length = 0;
    write('id-1', requestFields('GET', '/healthz', 200), 1.5, true);
    logger.info({ requestId: 'id-1', method: 'GET', route: '/healthz', status: 200, durationMs: 1.5 }, 'request');
    expect(timeless(lines[0] as string)).not.toBe(timeless(lines[1] as string));
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 30, pid: process.pid, component: 'http', requestId: 'id-1', status: 200, aborted: true, msg: 'request' });
  });

  it("follows the logger's level while the process runs", () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'warn', destination });
    const write = requestLogWriter(logger);
    write('a', requestFields('GET', '/healthz', 200), 1, false);
    expect(lines).toEqual([]);
    logger.level = 'info';
    write('b', requestFields('GET', '/healthz', 200), 1, false);
    logger.level = 'silent';
    write('c', requestFields('GET', '/healthz', 200), 1, false);
    expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['b']);
  });

  it('goes through pino to a destination that routes lines by level (pino.multistream)', () => {
    const info = capture();
    const errors = capture();
    const logger = pino({ level: 'info' }, pino.multistream([{ level: 'info', stream: info.destination }, { level: 'error', stream: errors.destination }]));
    requestLogWriter(logger)('id-2', requestFields('POST', '/graphql', 200), 2.5, false);
    expect(info.lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ level: 30, requestId: 'id-2', method: 'POST', route: '/graphql', status: 200, durationMs: 2.5, msg: 'request' }),
    ]);
    expect(errors.lines).toEqual([]);
  });
});
