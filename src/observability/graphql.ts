/**
 * GraphQL operations in the metrics and traces: every execution is counted by operation name, type
 * and outcome, with its duration, and (with a tracer) gets a span, a child of the request's. The
 * executor reports to `observeOperations` (no envelop hook around every execution: each one is work
 * per request); `useExecutionSpans` wraps the execute phase so that resolvers run inside the span
 * and an upstream fetch a cold read starts is its child.
 */
import { type Tracer, context, trace } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ExecutionObserver, ObservedOperation } from '../graphql/execution-observer.js';
import type { Counter, Histogram } from 'prom-client';
import { skippableByReplays } from '../graphql/skippable-plugins.js';
import type { ChannelMetrics } from './metrics.js';
import { recordFailure } from './tracing.js';

/**
 * The metrics (and, with a tracer, the span names) of every execution. What they say about an
 * operation (its type, its label, its metrics' children) is worked out once per document and operation.
 */
export function observeOperations(metrics: ChannelMetrics, tracer: Tracer | undefined): ExecutionObserver {
  return {
    operation(document, operationName): ObservedOperation {
      const operation = getOperationAST(document, operationName);
      const type = operation?.operation ?? 'unknown';
      const name = metrics.operationLabel(operation?.name?.value);
      // An outcome's series appear with its first execution, then stay.
      type Children = { count: Counter.Internal; duration: Histogram.Internal<'operation' | 'type' | 'outcome'> };
      const childrenOf = (outcome: 'ok' | 'error'): Children => {
        const labels = { operation: name, type, outcome };
        return { count: metrics.graphqlOperations.labels(labels), duration: metrics.graphqlDuration.labels(labels) };
      };
      let ok: Children | undefined;
      let error: Children | undefined;
      const spanName = `graphql.${type} ${name}`;
      return {
        ...(tracer !== undefined && {
          started() {
            const span = trace.getActiveSpan();
            span?.setAttributes({ 'graphql.operation.name': name, 'graphql.operation.type': type });
            span?.updateName(spanName);
          },
        }),
        done(result, _contextValue, seconds) {
          const outcome = result.errors !== undefined && result.errors.length > 0 ? (error ??= childrenOf('error')) : (ok ??= childrenOf('ok'));
          outcome.count.inc();
          outcome.duration.observe(seconds);
        },
      };
    },
  };
}

/**
 * Wraps the execute phase (its onExecute hooks included): the span is active while it runs. A
 * replayed answer executes nothing, so it may skip it; with it the graph prepares nothing
 * (skippable-plugins.ts), so that every execution has its span.
 */
export function useExecutionSpans(tracer: Tracer): Plugin {
  return skippableByReplays({
    instrumentation: {
      execute(_payload, wrapped) {
        const span = tracer.startSpan('graphql.execute');
        const end = (error?: unknown): void => {
          if (error !== undefined) recordFailure(span, error);
          span.end();
        };
        let result;
        try {
          result = context.with(trace.setSpan(context.active(), span), wrapped);
        } catch (error) {
          end(error);
          throw error;
        }
        if (result instanceof Promise) return result.then(() => end(), (error: unknown) => {
          end(error);
          throw error;
        });
        end();
        return result;
      },
    },
  });
}
