import type { ASTVisitor, ValidationContext, ValidationRule } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/** `extensions.code` of a document that names a variable `$__proto__`. */
export const VARIABLE_NAME_NOT_SUPPORTED = 'VARIABLE_NAME_NOT_SUPPORTED';

/**
 * `$__proto__` is a valid GraphQL name, but the executors behind this server keep a request's
 * variables in plain JavaScript objects, where assigning the key `__proto__` sets the prototype
 * instead of a value: yoga's executor and graphql-jit both lose the value the client sent, and answer
 * as if it had not been given. The variable is refused at validation instead, with a message that
 * says so, the same way on every transport. Object.prototype's other names (`constructor`,
 * `toString`…) are ordinary keys once assigned, and are served (by graphql-js: speed/jit.ts does not
 * compile a document that uses them).
 */
export const supportedVariableNamesRule: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  VariableDefinition(node) {
    if (node.variable.name.value !== '__proto__') return;
    context.reportError(
      createGraphQLError('Variable "$__proto__" is not supported by this server: JavaScript objects cannot hold it as a key. Rename the variable.', {
        nodes: [node],
        extensions: { code: VARIABLE_NAME_NOT_SUPPORTED },
      }),
    );
  },
});

export function useSupportedVariableNames(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(supportedVariableNamesRule);
    },
  };
}
