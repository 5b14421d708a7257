/**
 * OpenTelemetry spans through the API only (`@opentelemetry/api`): without an SDK registered by the
 * user they cost a no-op call; with one (see the README, "Operating"), a request's span is the parent
 * of its GraphQL execution's, which is the parent of the upstream fetch a cold read starts.
 */
import { context, SpanStatusCode, trace, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';

/** The instrumentation scope of every span the service starts. */
export const TRACER_NAME = 'channel-graph';

/** The tracer of the globally registered provider (a proxy: an SDK registered later still receives the spans). */
export function channelTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** Marks a span failed with the error (message and type; never request data). */
export function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Runs `run` with a new span as the active one, ending it when the promise settles. */
export function withSpan<T>(tracer: Tracer, name: string, options: SpanOptions, run: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer.startSpan(name, options);
  return context.with(trace.setSpan(context.active(), span), () => run(span)).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      recordFailure(span, error);
      span.end();
      throw error;
    },
  );
}
