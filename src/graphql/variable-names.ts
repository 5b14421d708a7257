import type { ASTVisitor, ValidationContext, ValidationRule } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { skippableByRepeats } from './skippable-plugins.js';

/** `extensions.code` of a document that names a variable `$__proto__`. */
export const VARIABLE_NAME_NOT_SUPPORTED = 'VARIABLE_NAME_NOT_SUPPORTED';

/**
 * `$__proto__` is a valid GraphQL name, but the executors behind this server keep a request's
 * variables in plain JavaScript objects, where assigning the key `__proto__` sets the prototype
 * instead of a value: yoga's executor and graphql-jit both lose the value the client sent, and answer
 * as if it had not been given. The variable is refused at validation instead, with a message that
 * says so, the same way on every path (an invalid document is never cached, so never compiled).
 * Object.prototype's other names (`constructor`, `toString`…) are ordinary keys once assigned, and
 * are served (jit.ts reads them as own properties only).
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
  // A validation rule: a repeated document was valid (skippable-plugins.ts).
  return skippableByRepeats({
    onValidate({ addValidationRule }) {
      addValidationRule(supportedVariableNamesRule);
    },
  });
}
