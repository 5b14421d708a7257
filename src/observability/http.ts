/**
 * Wraps the server's request listener: one log line, one metric (a histogram) and one span per request, and the
 * request id (the client's `X-Request-Id` when it is a sane token, else a new UUID) echoed in the
 * answer's `X-Request-Id` header and carried by the log line.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from './logger.js';
import type { ChannelMetrics } from './metrics.js';

/** A client's request id is used when it is 1-128 characters of letters, digits and `._:-`. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface RequestObserverOptions {
  logger: Logger;
  metrics: ChannelMetrics;
  tracer: Tracer | undefined;
  /** The route label of a request: one of a fixed set of paths (metric labels stay bounded). */
  routeOf: (request: IncomingMessage) => string;
}

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Label sets kept for reuse; methods, routes and statuses are few, so this is never reached in practice. */
const MAX_LABEL_SETS = 1_000;

export function observeRequests(listener: RequestListener, options: RequestObserverOptions): RequestListener {
  const { logger, metrics, tracer, routeOf } = options;
  // One label object per method, route and status, built once: the hot path allocates none.
  const labelSets = new Map<string, Record<'method' | 'route' | 'status', string>>();
  const labelsOf = (method: string, route: string, status: number): Record<'method' | 'route' | 'status', string> => {
    const key = `${method} ${route} ${status}`;
    let labels = labelSets.get(key);
    if (labels === undefined) {
      labels = { method, route, status: String(status) };
      if (labelSets.size < MAX_LABEL_SETS) labelSets.set(key, labels);
    }
    return labels;
  };
  return (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    response.setHeader('x-request-id', requestId);
    const method = request.method ?? 'GET';
    const route = routeOf(request);
    const span = tracer?.startSpan(`${method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'http.route': route, 'channel.request_id': requestId },
    });
    response.once('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const status = response.statusCode;
      const labels = labelsOf(method, route, status);
      metrics.httpDuration.observe(labels, seconds);
      if (span !== undefined) {
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      // A connection closed before the answer was complete is reported as such.
      const durationMs = Math.round(seconds * 1e4) / 10;
      if (response.writableFinished) logger.info({ requestId, method, route, status, durationMs }, 'request');
      else logger.info({ requestId, method, route, status, durationMs, aborted: true }, 'request');
    });
    if (span === undefined) listener(request, response);
    else context.with(trace.setSpan(context.active(), span), () => listener(request, response));
  };
}
