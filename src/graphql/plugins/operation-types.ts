import type { ASTVisitor, ValidationContext, ValidationRule } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/** `extensions.code` of an operation whose type (mutation, subscription) the schema does not have. */
export const OPERATION_TYPE_NOT_SUPPORTED = 'OPERATION_TYPE_NOT_SUPPORTED';

/**
 * Known operation types: an operation is valid only if the schema has a root type for it. graphql-js
 * 16 finds out at execution time (or graphql-jit at compile time, with a plain Error that became a
 * 500); as a validation error the request gets the GraphQL-over-HTTP answer for an invalid document
 * (400 under application/graphql-response+json) and never reaches an executor.
 */
export const knownOperationTypesRule: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  OperationDefinition(node) {
    const schema = context.getSchema();
    const root = schema.getRootType(node.operation);
    if (root) return;
    context.reportError(
      createGraphQLError(`This server does not support ${node.operation} operations: its schema has no ${node.operation} type.`, {
        nodes: [node],
        extensions: { code: OPERATION_TYPE_NOT_SUPPORTED },
      }),
    );
  },
});

/** `extensions.code` of a subscription sent over a transport that cannot stream its results. */
export const SUBSCRIPTION_NEEDS_STREAM = 'SUBSCRIPTION_NEEDS_STREAM';

/** Media types of the HTTP transports that stream: GraphQL over SSE, incremental delivery. */
const STREAMING_ACCEPT = /text\/event-stream|multipart\/mixed/i;

export function useKnownOperationTypes(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(knownOperationTypesRule);
    },
  };
}

/**
 * A subscription over HTTP whose Accept allows no streamed answer (a plain JSON POST or GET) is
 * refused before it subscribes to anything: 406 with a GraphQL error naming the transports that do
 * stream (yoga would answer 406 with an empty body once the subscription had started). Requests that
 * do not come over HTTP (graphql-ws executes without a `request`) are not concerned.
 */
export function useStreamingSubscriptions(): Plugin {
  const refusal = {
    errors: [
      createGraphQLError(
        'Subscriptions stream their results: send the request with "Accept: text/event-stream" (GraphQL over SSE) or connect to this endpoint with graphql-ws (WebSocket subprotocol graphql-transport-ws).',
        { extensions: { code: SUBSCRIPTION_NEEDS_STREAM, http: { status: 406 } } },
      ),
    ],
  };
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      const { request } = args.contextValue as { request?: Request };
      if (request === undefined || STREAMING_ACCEPT.test(request.headers.get('accept') ?? '')) return;
      setResultAndStopExecution(refusal);
    },
  };
}
