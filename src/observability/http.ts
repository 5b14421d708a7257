/**
 * Wraps the server's request listener: one log line (request-log.ts), one metric (a histogram
 * observation) and one span per request, and the request id (the client's `X-Request-Id` when it is a sane token,
 * else a new one) echoed in the answer's `X-Request-Id` header and carried by the log line. The span
 * continues the caller's trace when the request carries one in a form the registered propagator
 * reads (W3C `traceparent` and `tracestate` with the OpenTelemetry SDK's default propagator).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { type Context, context, propagation, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Histogram } from 'prom-client';
import type { Logger } from './logger.js';
import type { ChannelMetrics } from './metrics.js';
import { requestLog, type RequestLineKind } from './request-log.js';

/** A client's request id is used when it is 1-128 characters of letters, digits and `._:-`. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface RequestObserverOptions {
  logger: Logger;
  metrics: ChannelMetrics;
  tracer: Tracer | undefined;
  /** The route label of a request: one of a fixed set of paths (metric labels stay bounded). */
  routeOf: (request: IncomingMessage) => string;
}

/**
 * Request ids for the requests that bring none: a random prefix drawn once (64 bits, hex) and a
 * counter, `<prefix>-<count in base 36>` (e.g. `9f3c0e5b7a1d2c48-1a`). The counter makes them unique
 * within one server, the prefix across replicas and restarts. Nothing is drawn or formatted per
 * request: `randomUUID` cost ~3,100 instructions a request more than this, of the ~15,600 that
 * observing a request cost, counted under callgrind (docs/benchmarks.md, "Instructions per request").
 */
export function requestIds(): (request: IncomingMessage) => string {
  const prefix = `${randomBytes(8).toString('hex')}-`;
  let issued = 0;
  return (request) => {
    const given = request.headers['x-request-id'];
    if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
    issued += 1;
    return prefix + issued.toString(36);
  };
}

/** Method, route and status combinations kept for reuse; they are few, so this is never reached in practice. */
const MAX_REQUEST_KINDS = 1_000;

/** What is fixed for a method, route and status: its histogram's child and its log line's child logger. */
interface RequestKind {
  duration: Histogram.Internal<'method' | 'route' | 'status'>;
  line: RequestLineKind;
}

export function observeRequests(listener: RequestListener, options: RequestObserverOptions): RequestListener {
  const { logger, metrics, tracer, routeOf } = options;
  const requestIdOf = requestIds();
  const log = requestLog(logger);
  // Made once per method, route and status: a request allocates nothing for its metric and its line.
  // Looked up route, then method, then status: the route and method strings are the same few every
  // time, so no string is built or hashed per request (a key string built per request was 0.69 % of
  // a loaded server's CPU profile, ~0.5 µs; docs/operating.md, "What observing a request costs").
  const kinds = new Map<string, Map<string, Map<number, RequestKind>>>();
  let kindCount = 0;
  const kindOf = (method: string, route: string, status: number): RequestKind => {
    let byMethod = kinds.get(route);
    let byStatus = byMethod?.get(method);
    let kind = byStatus?.get(status);
    if (kind === undefined) {
      kind = { duration: metrics.httpDuration.labels({ method, route, status: String(status) }), line: log.kind(method, route, status) };
      if (kindCount < MAX_REQUEST_KINDS) {
        kindCount += 1;
        if (byMethod === undefined) kinds.set(route, (byMethod = new Map<string, Map<number, RequestKind>>()));
        if (byStatus === undefined) byMethod.set(method, (byStatus = new Map<number, RequestKind>()));
        byStatus.set(status, kind);
      }
    }
    return kind;
  };
  return (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    response.setHeader('x-request-id', requestId);
    const method = request.method ?? 'GET';
    const route = routeOf(request);
    let span: Span | undefined;
    let spanContext: Context | undefined;
    if (tracer !== undefined) {
      // Only with a tracer: an untraced request reads no trace headers. The API's propagator is a
      // no-op until one is registered (the OpenTelemetry SDK registers W3C Trace Context's).
      const parent = propagation.extract(context.active(), request.headers);
      const attributes = { 'http.request.method': method, 'http.route': route, 'channel.request_id': requestId };
      span = tracer.startSpan(`${method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent);
      spanContext = trace.setSpan(parent, span);
    }
    response.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const status = response.statusCode;
      const kind = kindOf(method, route, status);
      kind.duration.observe(seconds);
      if (span !== undefined) {
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      // A connection closed before the answer was complete is reported as such.
      log.write(kind.line, requestId, seconds, !response.writableFinished);
    });
    if (spanContext === undefined) listener(request, response);
    else context.with(spanContext, () => listener(request, response));
  };
}
