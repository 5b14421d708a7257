/**
 * OpenTelemetry spans through the API only (`@opentelemetry/api`). With an SDK registered before the
 * app is created (docs/operating.md, "Traces"), a request's span is the parent of its GraphQL
 * execution's, which is the parent of the upstream fetch a cold read starts. Without one, no span is
 * started and no GraphQL instrumentation is installed: the request path pays nothing.
 */
import { context, ProxyTracerProvider, SpanStatusCode, trace, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';

/** The instrumentation scope of every span the service starts. */
export const TRACER_NAME = 'channel-graph';

/** The tracer of the registered SDK, or undefined when none is registered. */
export function channelTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider && provider.getDelegateTracer(TRACER_NAME) === undefined) return undefined;
  return trace.getTracer(TRACER_NAME);
}

/** Marks a span failed with the error (message and type; never request data). */
export function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Runs `run` with a new span as the active one, ending it when the promise settles (without a tracer, just runs it). */
export function withSpan<T>(tracer: Tracer | undefined, name: string, options: SpanOptions, run: () => Promise<T>): Promise<T> {
  if (tracer === undefined) return run();
  const span = tracer.startSpan(name, options);
  return context.with(trace.setSpan(context.active(), span), run).then(
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
