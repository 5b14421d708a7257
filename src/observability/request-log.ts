/**
 * The request log line ("one line per request"), written without pino's generic path. pino turns a
 * logged object into JSON field by field, through its serializers and the redaction paths, on every
 * call (~1.5 µs a line in isolation, and several times that inside a loaded server: bench/graph's
 * `ours/unobserved` ablation measures it). The request line has the same fields every time, and none
 * of them needs that work:
 * - `method`, `route` and `status` come from small fixed sets: their JSON is made once per
 *   combination (a RequestLineKind, kept by the caller);
 * - the request id is ours (`<hex>-<base 36>`) or a client's id that matched `^[\w.:-]{1,128}$`:
 *   ASCII, nothing to escape;
 * - `durationMs` is a number; none of the fields is a secret (redaction has nothing to remove).
 * So the line is assembled from pino's own pieces (level value, time, the logger's bindings, message
 * key) into exactly what `logger.info({ method, route, status, requestId, durationMs }, 'request')`
 * writes (test/observability/request-log.test.ts compares the two).
 *
 * To the service's own destination (a BatchedDestination) the line is written as bytes straight into
 * the batch: its start copied from bytes kept per kind (their time digits rewritten when the
 * millisecond changes), the id and the duration written digit by digit. As a string, then encoded,
 * the line cost ~6,100 instructions a request under callgrind, ~40 % of what observing a request
 * cost; as bytes ~2,600 (bench/instructions). Any other destination gets
 * the line as a string; one that wants pino's per-line metadata (pino.multistream routes lines by
 * level with it) gets it through `logger.info`.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { BatchedDestination } from './logger.js';

/** What a request's line holds for its method, route and status: made once per combination. */
export interface RequestLineKind {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  /** `"method":…,"route":…,"status":…` */
  readonly json: string;
}

export interface RequestLog {
  kind(method: string, route: string, status: number): RequestLineKind;
  /**
   * Writes the line at level info (nothing while the logger's level is above info; the level may
   * change while the process runs). `requestId` must be one of ours or match `^[\w.:-]{1,128}$`;
   * `kind` must come from this log's `kind`. The duration is given in milliseconds to 0.1.
   */
  write(kind: RequestLineKind, requestId: string, seconds: number, aborted: boolean): void;
}

interface PinoParts {
  stream: DestinationStream & { [key: symbol]: unknown };
  timeFunction: () => string;
  bindings: string;
  messageKey: string;
}

/** The pieces of a pino logger that its own `write` assembles a line from (pino.symbols is pino's public handle on them). */
function partsOf(logger: Logger): PinoParts {
  const internals = logger as unknown as Record<symbol, unknown>;
  return {
    stream: internals[pino.symbols.streamSym] as PinoParts['stream'],
    timeFunction: internals[pino.symbols.timeSym] as () => string,
    bindings: internals[pino.symbols.chindingsSym] as string,
    messageKey: internals[pino.symbols.messageKeySym] as string,
  };
}

/** Milliseconds to 0.1, as the line gives them. */
const tenthsOfMillisecond = (seconds: number): number => Math.round(seconds * 1e4);

const fieldsJson = (method: string, route: string, status: number): string => `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${JSON.stringify(status)}`;
/** A kind of the writers that keep nothing but the fields' JSON. */
const plainKind = (method: string, route: string, status: number): RequestLineKind => ({ method, route, status, json: fieldsJson(method, route, status) });

export function requestLog(logger: Logger): RequestLog {
  const { stream, timeFunction, bindings, messageKey } = partsOf(logger);
  if (stream[pino.symbols.needsMetadataGsym] === true) {
    return {
      kind: plainKind,
      write({ method, route, status }, requestId, seconds, aborted) {
        logger.info({ method, route, status, requestId, durationMs: tenthsOfMillisecond(seconds) / 10, ...(aborted && { aborted }) }, 'request');
      },
    };
  }
  const level = logger.levels.values.info as number;
  const tail = `,${JSON.stringify(messageKey)}:"request"}\n`;
  // pino's default time (epochTime: `,"time":<ms since the epoch>`) is written as digits; another is called as pino calls it.
  if (stream instanceof BatchedDestination && timeFunction === pino.stdTimeFunctions.epochTime) return batchedRequestLog(logger, stream, { level, bindings, tail });
  const head = `{"level":${level}`;
  return {
    kind: plainKind,
    write(kind, requestId, seconds, aborted) {
      if (!logger.isLevelEnabled('info')) return;
      stream.write(`${head}${timeFunction.call(logger)}${bindings},${kind.json},"requestId":"${requestId}","durationMs":${tenthsOfMillisecond(seconds) / 10}${aborted ? ',"aborted":true' : ''}${tail}`);
    },
  };
}

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
/** The most bytes the duration takes: 16 digits (an integer below 2^53), a point and a tenth. */
const DURATION_ROOM = 18;

/**
 * A kind of the batched writer: the bytes of its line up to the request id's opening quote, with
 * the time of the millisecond `time` in them. Lines of one millisecond (dozens, under load) copy
 * them as they are; a later one rewrites the digits that changed (the last one or two).
 */
interface BatchedKind extends RequestLineKind {
  start: Buffer;
  time: number;
  /** 10 to the number of digits of `time` (0 before the first line): a time below it and at least a tenth of it has as many digits. */
  timeBound: number;
  /** The start after the time: the logger's bindings, the kind's fields, the request id's key. */
  rest: Buffer;
}

function batchedRequestLog(logger: Logger, destination: BatchedDestination, parts: { level: number; bindings: string; tail: string }): RequestLog {
  const head = ascii(`{"level":${parts.level},"time":`);
  const afterId = ascii('","durationMs":');
  const tail = Buffer.from(parts.tail);
  const abortedTail = Buffer.from(`,"aborted":true${parts.tail}`);
  const room = afterId.length + DURATION_ROOM + abortedTail.length;
  /** The kind's start, for the millisecond `now`: the digits that changed rewritten, or the whole start made (its first line, or a time of another length). */
  const startAt = (kind: BatchedKind, now: number): Buffer => {
    if (now < kind.timeBound && now * 10 >= kind.timeBound) rewriteDigits(kind.start, kind.start.length - kind.rest.length, kind.time, now);
    else {
      const digits = String(now);
      kind.start = Buffer.concat([head, ascii(digits), kind.rest]);
      kind.timeBound = 10 ** digits.length;
    }
    kind.time = now;
    return kind.start;
  };
  return {
    kind(method, route, status): BatchedKind {
      const json = fieldsJson(method, route, status);
      return { method, route, status, json, start: Buffer.alloc(0), time: -1, timeBound: 0, rest: Buffer.from(`${parts.bindings},${json},"requestId":"`) };
    },
    write(lineKind, requestId, seconds, aborted) {
      if (!logger.isLevelEnabled('info')) return;
      const kind = lineKind as BatchedKind;
      const now = Date.now();
      const start = kind.time === now ? kind.start : startAt(kind, now);
      let at = destination.reserve(start.length + requestId.length + room);
      const buffer = destination.buffer;
      buffer.set(start, at);
      at += start.length;
      // ASCII (the id's contract): one byte a character.
      for (let i = 0; i < requestId.length; i += 1) buffer[at + i] = requestId.charCodeAt(i);
      at += requestId.length;
      buffer.set(afterId, at);
      const tenths = tenthsOfMillisecond(seconds);
      const whole = Math.floor(tenths / 10);
      const units = tenths - 10 * whole;
      at = writeInteger(buffer, at + afterId.length, whole);
      // As JSON writes the number: a tenth only when there is one (12 ms is `12`, not `12.0`).
      if (units !== 0) {
        buffer[at] = 0x2e;
        buffer[at + 1] = 0x30 + units;
        at += 2;
      }
      const end = aborted ? abortedTail : tail;
      buffer.set(end, at);
      destination.commit(at + end.length);
    },
  };
}

/**
 * Rewrites the decimal digits of `before` that end at `end` into those of `now`, a non-negative
 * integer of as many digits, from the last one up to the first one they share with `before`:
 * consecutive times in milliseconds differ in one or two (writing all 13 cost ~500 instructions a
 * line, counted under callgrind, where every request falls in a new millisecond).
 */
function rewriteDigits(buffer: Buffer, end: number, before: number, now: number): void {
  let at = end - 1;
  for (let old = before, value = now; old !== value; at -= 1) {
    const tens = Math.floor(value / 10);
    buffer[at] = 0x30 + (value - 10 * tens);
    value = tens;
    old = Math.floor(old / 10);
  }
}

/**
 * Writes the decimal digits of a non-negative integer below 2^53 at `at`; returns where they end.
 * No `%` here or in rewriteDigits: on a number past 2^31 (a time in milliseconds, a long duration
 * in tenths) it is a floating-point remainder, a call out of optimized code for every digit (~20 ns
 * each, measured).
 */
function writeInteger(buffer: Buffer, at: number, value: number): number {
  let end = at + 1;
  for (let bound = 10; value >= bound; bound *= 10) end += 1;
  let rest = value;
  for (let i = end - 1; i >= at; i -= 1) {
    const tens = Math.floor(rest / 10);
    buffer[i] = 0x30 + (rest - 10 * tens);
    rest = tens;
  }
  return end;
}
