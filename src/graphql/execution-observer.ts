import type { DocumentNode, ExecutionResult } from 'graphql';

/**
 * Told of every execution of a GraphQL operation (a query or a mutation; a subscription's events are
 * not executions), by the executor itself rather than by an envelop hook around it: the metrics and
 * spans of src/observability plug in here.
 */
export interface ExecutionObserver {
  /**
   * Called once per cached document and operation name (once per request for a document not cached
   * yet): what to tell about each execution of that operation.
   */
  operation(document: DocumentNode, operationName: string | undefined): ObservedOperation;
}

export interface ObservedOperation {
  /** When an execution starts, inside its span (if tracing is on). */
  started?(): void;
  /** When it ended with a result (not when it threw): the result, the execution's context, its duration. */
  done(result: ExecutionResult, contextValue: unknown, seconds: number): void;
}
