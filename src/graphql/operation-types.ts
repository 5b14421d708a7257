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

export function useKnownOperationTypes(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(knownOperationTypesRule);
    },
  };
}
