import { BREAK, getOperationAST, OperationTypeNode, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/**
 * Query operations run compiled by graphql-jit, through envelop's execute hook. @envelop/graphql-jit
 * does not do three things this needs, hence this plugin:
 * - it keys a compiled operation by its document alone, so a document with several operations runs
 *   whichever was compiled first, whatever the request's operationName; here the key is the document
 *   and the operation's name;
 * - it compiles every document at its first execution; here only a document the document cache holds
 *   (speed/document-cache.ts: from its second occurrence on) is compiled, so a stream of distinct
 *   documents never pays for a compilation (a 600-token document allocates ~1 MB of code), and the
 *   compiled form lives exactly as long as the cached document object (a WeakMap), weighed in the
 *   cache's byte budget;
 * - graphql-jit words and locates request errors (variables that do not coerce) its own way; such a
 *   result (errors, no `data`) is answered by graphql-js instead, which ran the document's first
 *   occurrence, so that a repeated request gets the answer the first one got.
 * Mutations, subscriptions and documents that name a property of Object.prototype run on graphql-js.
 */

type ExecuteFn = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** An operation graphql-jit does not run: graphql-js runs it. */
const NOT_COMPILED = null;

type Compiled = ((args: ExecutionArgs, reference: ExecuteFn) => Promise<ExecutionResult> | ExecutionResult) | typeof NOT_COMPILED;

/**
 * Whether the document uses the name of a property of Object.prototype (`__proto__`, `constructor`,
 * `toString`…) as a response key or a variable. graphql-jit builds response objects and the coerced
 * variables as object literals, where such a key misbehaves: `__proto__: field` sets the prototype
 * instead of a value, so the field goes missing from the answer, and a variable the request leaves
 * out is read as the inherited function. graphql-js keeps both in objects without a prototype.
 */
function namesPrototypeProperty(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if ((node.alias ?? node.name).value in Object.prototype) found = true;
      return found ? BREAK : undefined;
    },
    VariableDefinition(node) {
      if (node.variable.name.value in Object.prototype) found = true;
      return found ? BREAK : undefined;
    },
  });
  return found;
}

function compile(args: ExecutionArgs): Compiled {
  if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.QUERY || namesPrototypeProperty(args.document)) return NOT_COMPILED;
  const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
  if (!isCompiledQuery(compiled)) return NOT_COMPILED;
  const orReference = (executed: ExecutionArgs, result: ExecutionResult, reference: ExecuteFn) => ('data' in result ? result : reference(executed));
  return (executed, reference) => {
    const result = compiled.query(executed.rootValue, executed.contextValue, executed.variableValues);
    return result instanceof Promise ? result.then((settled) => orReference(executed, settled, reference)) : orReference(executed, result, reference);
  };
}

/** `holds`: whether a document object is the cached one (DocumentCache.holds). */
export function useJit(holds: (document: DocumentNode) => boolean): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string, Compiled>>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const executionArgs = args as ExecutionArgs;
      const { document } = executionArgs;
      const name = executionArgs.operationName ?? '';
      let operations = byDocument.get(document);
      let compiled = operations?.get(name);
      if (compiled === undefined) {
        if (!holds(document)) return;
        compiled = compile(executionArgs);
        // Only operations the document holds: the inner maps stay as small as the documents.
        if (getOperationAST(document, executionArgs.operationName) === null) return;
        if (operations === undefined) byDocument.set(document, (operations = new Map<string, Compiled>()));
        operations.set(name, compiled);
      }
      if (compiled === NOT_COMPILED) return;
      const run = compiled;
      const reference = executeFn as ExecuteFn;
      setExecuteFn((executed: ExecutionArgs) => run(executed, reference));
    },
  };
}
