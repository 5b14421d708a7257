import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { CachedDocument, DocumentCache } from './document-cache.js';

/**
 * Heap bytes per token of a document that one compiled operation adds (resolve infos, closures and
 * the bytecode of the generated function once it has run): ~1,400 measured on a 487-token document.
 */
const COMPILED_BYTES_PER_TOKEN = 1500;

/** An operation graphql-jit does not run (not a query, or it failed to compile): yoga's executor runs it. */
const NOT_COMPILED = null;

/**
 * A request error from the compiled query (its variables failed coercion) carries HTTP status 400, as
 * graphql-js's executor marks it (via @graphql-tools/executor), so GraphQL over HTTP answers 400.
 */
function asRequestErrors(errors: readonly GraphQLError[]): GraphQLError[] {
  return errors.map((error) =>
    createGraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { ...error.extensions, http: { status: 400 } },
    }),
  );
}

function finish(result: ExecutionResult): ExecutionResult {
  return 'data' in result || result.errors === undefined ? result : { errors: asRequestErrors(result.errors) };
}

type ExecuteFn = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** The executor of one compiled operation, made once with it (not per request). */
function executorOf(compiled: CompiledQuery): ExecuteFn {
  return (args) => {
    const result = compiled.query(args.rootValue, args.contextValue, args.variableValues);
    return result instanceof Promise ? result.then(finish) : finish(result);
  };
}

/**
 * Runs query operations with graphql-jit. Only cached documents are compiled, and the document cache
 * keeps a document from its second occurrence on, so what runs once (a stream of hostile distinct
 * documents) never pays for a compilation (a 600-token document allocates ~1 MB of code and resolve
 * infos). The compiled form of an operation belongs to the cached document it was compiled from
 * (keyed by operationName, so a document with several operations runs the one the request names) and
 * weighs on the document cache's byte budget: evicting the document drops its compiled operations,
 * so they are as bounded as the cache. Uncached documents and every mutation or subscription run on
 * yoga's executor.
 */
export function useGraphQLJit(cache: DocumentCache): Plugin {
  const compiledByDocument = new WeakMap<CachedDocument, Map<string, ExecuteFn | typeof NOT_COMPILED>>();

  function compile(entry: CachedDocument, args: ExecutionArgs): ExecuteFn | typeof NOT_COMPILED {
    if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.QUERY) return NOT_COMPILED;
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (!isCompiledQuery(result)) return NOT_COMPILED;
    cache.charge(entry, entry.tokens * COMPILED_BYTES_PER_TOKEN);
    return executorOf(result);
  }

  function compiledFor(entry: CachedDocument, args: ExecutionArgs): ExecuteFn | typeof NOT_COMPILED {
    const operationName = args.operationName ?? '';
    let operations = compiledByDocument.get(entry);
    if (operations === undefined) {
      operations = new Map();
      compiledByDocument.set(entry, operations);
    }
    let compiled = operations.get(operationName);
    if (compiled === undefined) {
      compiled = compile(entry, args);
      operations.set(operationName, compiled);
    }
    return compiled;
  }

  return {
    onExecute({ args, setExecuteFn }) {
      const entry = cache.entryOf(args.document as DocumentNode);
      if (entry === undefined) return;
      const compiled = compiledFor(entry, args);
      if (compiled !== NOT_COMPILED) setExecuteFn(compiled);
    },
  };
}
