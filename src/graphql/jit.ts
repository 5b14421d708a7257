import { performance } from 'node:perf_hooks';
import { BREAK, getOperationAST, OperationTypeNode, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { ExecutionObserver, ObservedOperation } from './execution-observer.js';
import type { CachedDocument, DocumentCache } from './document-cache.js';
import { skippableByRepeats } from './skippable-plugins.js';

/**
 * Heap bytes per token of a document that one compiled operation adds (resolve infos, closures and
 * the bytecode of the generated function once it has run): ~1,400 measured on a 487-token document.
 */
const COMPILED_BYTES_PER_TOKEN = 1500;

/** An operation graphql-jit does not run (not a query, or it failed to compile): yoga's executor runs it. */
const NOT_COMPILED = null;

/**
 * Whether the document uses the name of a property of Object.prototype (`__proto__`, `constructor`,
 * `toString`…) as a response key or a variable. graphql-jit builds response objects and the coerced
 * variables as object literals, where such a key misbehaves: `__proto__: field` sets the prototype
 * instead of a value, so the field goes missing from the answer, and a variable the request leaves
 * out is read as the inherited function. Such documents (only hostile or odd clients write them)
 * run on yoga's executor, which keeps both in objects without a prototype and answers them right.
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

type ExecuteFn = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** Runs a compiled query operation with a request's context and variables (no root value, as yoga). */
type RunCompiled = (contextValue: unknown, variableValues: ExecutionArgs['variableValues']) => Promise<ExecutionResult> | ExecutionResult;

function runnerOf(compiled: CompiledQuery): RunCompiled {
  return (contextValue, variableValues) => compiled.query(undefined, contextValue, variableValues);
}

/**
 * The executor of one compiled operation, made once with it (not per request). A request error (the
 * variables did not coerce: no `data`, and no resolver ran) is answered by yoga's executor instead,
 * which the document's first occurrence ran: graphql-jit words, locates and classifies these errors
 * its own way, and a repeated request must get the answer the first one got (status 400 included).
 */
function executorOf(run: RunCompiled, reference: ExecuteFn): ExecuteFn {
  const orReference = (args: ExecutionArgs, result: ExecutionResult): Promise<ExecutionResult> | ExecutionResult => ('data' in result ? result : reference(args));
  return (args) => {
    const result = run(args.contextValue, args.variableValues);
    return result instanceof Promise ? result.then((settled) => orReference(args, settled)) : orReference(args, result);
  };
}
/** `execute` with the observer told of its start and its result. */
function observedExecutor(execute: ExecuteFn, operation: ObservedOperation): ExecuteFn {
  return (args) => {
    const started = performance.now();
    operation.started?.();
    const done = (result: ExecutionResult): ExecutionResult => {
      operation.done(result, args.contextValue, (performance.now() - started) / 1000);
      return result;
    };
    const result = execute(args);
    return result instanceof Promise ? result.then(done) : done(result);
  };
}

export interface ExecutionOptions {
  /** The parse and validation cache: graphql-jit compiles only the documents it holds. */
  cache: DocumentCache;
  /** Run query operations with graphql-jit. */
  jit: boolean;
  /** Told of every execution (not of a subscription's events). */
  observer?: ExecutionObserver | undefined;
}

/** What runs one operation of a document: its compiled form (or NOT_COMPILED), observed or not. */
interface OperationExecutors {
  run: RunCompiled | typeof NOT_COMPILED;
  compiled: ExecuteFn | typeof NOT_COMPILED;
  /** The observer's view of the operation (undefined without an observer). */
  observed: ObservedOperation | undefined;
  /** `compiled` wrapped for the observer, made once. */
  observedCompiled: ExecuteFn | typeof NOT_COMPILED;
}

/**
 * A query operation of a cached document that graphql-jit compiled, as the layers in front of yoga
 * run it again (prepared-operations.ts): unobserved, so that they report it only when they answer.
 */
export interface PreparedOperation {
  /** graphql-jit's result as it is: any errors in it are for yoga to answer (its wording, its status). */
  run: RunCompiled;
  /** The observer's view of the operation (undefined without an observer). */
  observed: ObservedOperation | undefined;
}

export interface Execution {
  /** The onExecute hook; register once, on one server. */
  readonly plugin: Plugin;
  /**
   * The compiled operation `operationName` (undefined: the document's only one) of a cached document,
   * once yoga has executed it compiled; undefined for anything else.
   */
  prepared: (document: DocumentNode, operationName: string | undefined) => PreparedOperation | undefined;
}

/**
 * The executor of every operation, as one onExecute hook (envelop runs hooks around every
 * execution; each `onExecuteDone` a plugin adds is more work per request):
 * - with `jit`, query operations run with graphql-jit. Only cached documents are compiled, and the
 *   document cache keeps a document from its second occurrence on, so what runs once (a stream of
 *   hostile distinct documents) never pays for a compilation (a 600-token document allocates ~1 MB
 *   of code and resolve infos). The compiled form of an operation belongs to the cached document it
 *   was compiled from (keyed by operationName, so a document with several operations runs the one the
 *   request names) and weighs on the document cache's byte budget: evicting the document drops its
 *   compiled operations, so they are as bounded as the cache. Uncached documents and every mutation
 *   or subscription run on yoga's executor.
 * - with an `observer`, every execution is timed and reported to it. For a cached document the
 *   observed executor is made once per operation, so the hot path allocates nothing for it.
 */
export function createExecution(options: ExecutionOptions): Execution {
  const { cache, jit, observer } = options;
  const byDocument = new WeakMap<DocumentNode, Map<string, OperationExecutors>>();

  function compile(entry: CachedDocument, args: ExecutionArgs): RunCompiled | typeof NOT_COMPILED {
    if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.QUERY || namesPrototypeProperty(args.document)) return NOT_COMPILED;
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (!isCompiledQuery(result)) return NOT_COMPILED;
    cache.charge(entry, entry.tokens * COMPILED_BYTES_PER_TOKEN);
    return runnerOf(result);
  }

  function executorsOf(entry: CachedDocument | undefined, args: ExecutionArgs, reference: ExecuteFn): OperationExecutors {
    const operationName = args.operationName ?? '';
    const operations = byDocument.get(args.document);
    const known = operations?.get(operationName);
    if (known !== undefined) return known;
    const run = jit && entry !== undefined ? compile(entry, args) : NOT_COMPILED;
    const compiled = run === NOT_COMPILED ? NOT_COMPILED : executorOf(run, reference);
    const observed = observer?.operation(args.document, args.operationName ?? undefined);
    const executors: OperationExecutors = { run, compiled, observed, observedCompiled: compiled !== NOT_COMPILED && observed !== undefined ? observedExecutor(compiled, observed) : compiled };
    // Kept only for cached documents (a document object seen once is garbage after its request);
    // an operation the document does not hold is not kept either, so the inner maps stay bounded.
    if (entry !== undefined && getOperationAST(args.document, args.operationName) !== null) {
      if (operations === undefined) byDocument.set(args.document, new Map([[operationName, executors]]));
      else operations.set(operationName, executors);
    }
    return executors;
  }

  return {
    // A prepared answer runs the compiled operation and reports it to the observer itself (skippable-plugins.ts).
    plugin: skippableByRepeats({
      onExecute({ args, executeFn, setExecuteFn }) {
        const executionArgs = args as ExecutionArgs;
        const executors = executorsOf(cache.entryOf(executionArgs.document), executionArgs, executeFn as ExecuteFn);
        if (executors.observedCompiled !== NOT_COMPILED) setExecuteFn(executors.observedCompiled);
        else if (executors.observed !== undefined) setExecuteFn(observedExecutor(executeFn as ExecuteFn, executors.observed));
      },
    }),
    prepared: (document, operationName) => {
      // Kept only while the document is cached (byDocument outlives an evicted entry until GC).
      if (cache.entryOf(document) === undefined) return undefined;
      const executors = byDocument.get(document)?.get(operationName ?? '');
      return executors === undefined || executors.run === NOT_COMPILED ? undefined : { run: executors.run, observed: executors.observed };
    },
  };
}
