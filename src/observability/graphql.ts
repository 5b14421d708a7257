/**
 * A yoga plugin: every GraphQL execution is counted by operation name, type and outcome, with its
 * duration, and (with a tracer) gets a span, a child of the request's. Resolvers run inside the span,
 * so an upstream fetch a cold read starts is its child.
 */
import { type Tracer, context, trace } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ChannelMetrics } from './metrics.js';
import { recordFailure } from './tracing.js';

export function useOperationObservation(metrics: ChannelMetrics, tracer: Tracer | undefined): Plugin {
  return {
    ...(tracer !== undefined && { instrumentation: executionSpan(tracer) }),
    onExecute({ args }) {
      const started = performance.now();
      // @envelop/types resolves ExecutionArgs to any in this tree: name the fields' real types.
      const { document, operationName } = args as { document: DocumentNode; operationName?: string | null };
      const operation = getOperationAST(document, operationName);
      const type = operation?.operation ?? 'unknown';
      const name = metrics.operationLabel(operation?.name?.value);
      const span = trace.getActiveSpan();
      span?.setAttributes({ 'graphql.operation.name': name, 'graphql.operation.type': type });
      span?.updateName(`graphql.${type} ${name}`);
      return {
        onExecuteDone({ result }) {
          const errors = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
          const labels = { operation: name, type, outcome: errors ? 'error' : 'ok' };
          metrics.graphqlOperations.inc(labels);
          metrics.graphqlDuration.observe(labels, (performance.now() - started) / 1000);
        },
      };
    },
  };
}

/** Wraps the execute phase (its onExecute hooks included): the span is active while it runs. */
function executionSpan(tracer: Tracer): Plugin['instrumentation'] {
  return {
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
  };
}
