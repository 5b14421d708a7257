/**
 * GraphQL operations in the metrics and traces, as yoga plugins: every execution is counted by
 * operation name, type and outcome, with its duration (a response cache hit included: its execute
 * function is the cache's), and (with a tracer) gets a span, a child of the request's.
 * `useExecutionSpans` wraps the execute phase so that resolvers run inside the span and an upstream
 * fetch a cold read starts is its child.
 */
import { performance } from 'node:perf_hooks';
import { type Tracer, context, trace } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Counter, Histogram } from 'prom-client';
import type { ChannelMetrics } from './metrics.js';
import { recordFailure } from './tracing.js';

/** What the metrics say of one operation of a document, worked out at its first execution. */
interface ObservedOperation {
  /** When an execution starts, inside its span (with a tracer). */
  started?(): void;
  done(failed: boolean, seconds: number): void;
}

function observe(metrics: ChannelMetrics, tracer: Tracer | undefined, document: DocumentNode, operationName: string | undefined): ObservedOperation {
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
    done(failed, seconds) {
      const outcome = failed ? (error ??= childrenOf('error')) : (ok ??= childrenOf('ok'));
      outcome.count.inc();
      outcome.duration.observe(seconds);
    },
  };
}

/**
 * The metrics (and, with a tracer, the span names) of every execution, told its result after the
 * graph's own plugins (an answer with partial errors counts as an error). What they say about an
 * operation (its type, its label, its metrics' children) is worked out once per document object and
 * operation name.
 */
export function useOperationMetrics(metrics: ChannelMetrics, tracer: Tracer | undefined): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string, ObservedOperation>>();
  const observed = (document: DocumentNode, operationName: string | undefined): ObservedOperation => {
    let operations = byDocument.get(document);
    if (operations === undefined) byDocument.set(document, (operations = new Map<string, ObservedOperation>()));
    let operation = operations.get(operationName ?? '');
    if (operation === undefined) operations.set(operationName ?? '', (operation = observe(metrics, tracer, document, operationName)));
    return operation;
  };
  return {
    onExecute({ args }) {
      const { document, operationName } = args as ExecutionArgs;
      const operation = observed(document, operationName ?? undefined);
      const started = performance.now();
      operation.started?.();
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) return;
          operation.done(result.errors !== undefined && result.errors.length > 0, (performance.now() - started) / 1000);
        },
      };
    },
  };
}

/**
 * Wraps the execute phase (its onExecute hooks included): the span is active while it runs.
 */
export function useExecutionSpans(tracer: Tracer): Plugin {
  return {
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
  };
}
