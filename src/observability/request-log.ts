/**
 * The request log line ("one line per request"): what
 * `logger.info({ method, route, status, requestId, durationMs[, aborted] }, 'request')` writes.
 * `method`, `route` and `status` come from small fixed sets, so each combination is a child logger
 * made once (a RequestLineKind, kept by the caller): pino serialises a child's bindings when it is
 * made, and a request's line serialises only its id and duration. A child made without options
 * follows its parent's level as that changes.
 */
import type { Logger } from 'pino';

/** The child logger of one method, route and status: made by `RequestLog.kind`, kept by the caller. */
export type RequestLineKind = Logger;

export interface RequestLog {
  kind(method: string, route: string, status: number): RequestLineKind;
  /** Writes the line at level info (nothing while the logger's level is above info). The duration is given in milliseconds to 0.1. */
  write(kind: RequestLineKind, requestId: string, seconds: number, aborted: boolean): void;
}

/** Milliseconds to 0.1, as the line gives them. */
const durationMs = (seconds: number): number => Math.round(seconds * 1e4) / 10;

export function requestLog(logger: Logger): RequestLog {
  return {
    kind: (method, route, status) => logger.child({ method, route, status }),
    write(kind, requestId, seconds, aborted) {
      if (aborted) kind.info({ requestId, durationMs: durationMs(seconds), aborted }, 'request');
      else kind.info({ requestId, durationMs: durationMs(seconds) }, 'request');
    },
  };
}
