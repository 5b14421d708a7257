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

/** What the metrics and the span say about one operation of a document, worked out once per document. */
interface ObservedOperation {
  type: string;
  name: string;
  ok: Record<'operation' | 'type' | 'outcome', string>;
  error: Record<'operation' | 'type' | 'outcome', string>;
}

export function useOperationObservation(metrics: ChannelMetrics, tracer: Tracer | undefined): Plugin {
  // Per parsed document (the document cache hands out the same object for the same text), per
  // operation name: the hot path does no AST walk and builds no label object. Only operations the
  // document holds are kept, so the inner maps are bounded by the documents themselves.
  const observed = new WeakMap<DocumentNode, Map<string, ObservedOperation>>();
  const observe = (document: DocumentNode, operationName: string | null | undefined): ObservedOperation => {
    const key = operationName ?? '';
    const known = observed.get(document)?.get(key);
    if (known !== undefined) return known;
    const operation = getOperationAST(document, operationName);
    const type = operation?.operation ?? 'unknown';
    const name = metrics.operationLabel(operation?.name?.value);
    const entry: ObservedOperation = { type, name, ok: { operation: name, type, outcome: 'ok' }, error: { operation: name, type, outcome: 'error' } };
    if (operation !== null) {
      let byName = observed.get(document);
      if (byName === undefined) observed.set(document, (byName = new Map<string, ObservedOperation>()));
      byName.set(key, entry);
    }
    return entry;
  };
  return {
    ...(tracer !== undefined && { instrumentation: executionSpan(tracer) }),
    onExecute({ args }) {
      const started = performance.now();
      // @envelop/types resolves ExecutionArgs to any in this tree: name the fields' real types.
      const { document, operationName } = args as { document: DocumentNode; operationName?: string | null };
      const operation = observe(document, operationName);
      if (tracer !== undefined) {
        const span = trace.getActiveSpan();
        span?.setAttributes({ 'graphql.operation.name': operation.name, 'graphql.operation.type': operation.type });
        span?.updateName(`graphql.${operation.type} ${operation.name}`);
      }
      return {
        onExecuteDone({ result }) {
          const errors = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
          const labels = errors ? operation.error : operation.ok;
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
