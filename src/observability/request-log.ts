/**
 * The request log line ("one line per request"), written without pino's generic path. pino turns a
 * logged object into JSON field by field, through its serializers and the redaction paths, on every
 * call (~1.5 µs a line in isolation, and several times that inside a loaded server: bench/graph's
 * `ours/unobserved` ablation measures it). The request line has the same fields every time, and none
 * of them needs that work:
 * - `method`, `route` and `status` come from small fixed sets: their JSON (`requestFields`) is made
 *   once per combination, with JSON.stringify, and kept by the caller;
 * - the request id is a UUID or a client's id that matched `^[\w.:-]{1,128}$`: nothing to escape;
 * - `durationMs` is a number; none of the fields is a secret (redaction has nothing to remove).
 * So the line is assembled from pino's own pieces (level value, time, the logger's bindings, message
 * key) into exactly what `logger.info({ requestId, method, route, status, durationMs }, 'request')`
 * writes (test/observability/request-log.test.ts compares the two), and written to the logger's
 * destination.
 *
 * A destination that wants pino's per-line metadata (pino.multistream routes lines by level with it)
 * gets the line through `logger.info` instead.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

/** The JSON of a request's method, route and status, without braces: made once per combination. */
export function requestFields(method: string, route: string, status: number): string {
  return `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${JSON.stringify(status)}`;
}

export type RequestLogWriter = (requestId: string, fields: string, durationMs: number, aborted: boolean) => void;

interface PinoParts {
  stream: DestinationStream & { [key: symbol]: unknown };
  time: () => string;
  bindings: string;
  messageKey: string;
}

/** The pieces of a pino logger that its own `write` assembles a line from (pino.symbols is pino's public handle on them). */
function partsOf(logger: Logger): PinoParts {
  const internals = logger as unknown as Record<symbol, unknown>;
  const time = internals[pino.symbols.timeSym] as () => string;
  return {
    stream: internals[pino.symbols.streamSym] as PinoParts['stream'],
    // Called on the logger, as pino calls it.
    time: () => time.call(logger),
    bindings: internals[pino.symbols.chindingsSym] as string,
    messageKey: internals[pino.symbols.messageKeySym] as string,
  };
}

/**
 * Writes the request line at level info (nothing while the logger's level is above info; the level
 * may change while the process runs). `requestId` must be a UUID or match `^[\w.:-]{1,128}$`;
 * `fields` must come from `requestFields`.
 */
export function requestLogWriter(logger: Logger): RequestLogWriter {
  const { stream, time, bindings, messageKey } = partsOf(logger);
  if (stream[pino.symbols.needsMetadataGsym] === true) {
    return (requestId, fields, durationMs, aborted) => {
      const { method, route, status } = JSON.parse(`{${fields}}`) as { method: string; route: string; status: number };
      logger.info({ requestId, method, route, status, durationMs, ...(aborted && { aborted }) }, 'request');
    };
  }
  const level = logger.levels.values.info as number;
  const head = `{"level":${level}`;
  const tail = `,${JSON.stringify(messageKey)}:"request"}\n`;
  return (requestId, fields, durationMs, aborted) => {
    if (!logger.isLevelEnabled('info')) return;
    stream.write(`${head}${time()}${bindings},"requestId":"${requestId}",${fields},"durationMs":${durationMs}${aborted ? ',"aborted":true' : ''}${tail}`);
  };
}
