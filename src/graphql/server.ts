import { loadFilesSync } from '@graphql-tools/load-files';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers, TypeSource } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaInitialContext, type YogaServerInstance, type YogaServerOptions } from 'graphql-yoga';
import { createDocumentCache, type DocumentCache } from './document-cache.js';
import { DEFAULT_MAX_DOCUMENT_BYTES, requestBodyLimitFor, useDocumentLimit } from './document-limit.js';
import { createMaskError } from './error-masking.js';
import type { ExecutionObserver } from './execution-observer.js';
import { createExecution, type Execution } from './jit.js';
import { requestMediaTypes, useMediaTypeAnswers } from './media-types.js';
import { useKnownOperationTypes, useStreamingSubscriptions } from './operation-types.js';
import { useRequestBodyLimit } from './request-body-limit.js';
import { useUrlParams } from './url-params.js';
import { useSupportedVariableNames } from './variable-names.js';
import { dropPropertyResolvers } from './property-resolvers.js';
import { assertResolverCoverage, type MissingResolvers } from './resolver-coverage.js';
import { createSchemaSwap } from './schema-swap.js';
import { repeatPathsAllowedBy, type RepeatPaths } from './skippable-plugins.js';

/**
 * Serves the SDL as it is now, in place of the schema being served: `swapped`, or `unchanged` when
 * the SDL is the one being served. Throws (and the served schema stays) when it does not build.
 */
export type ReloadSchema = () => 'swapped' | 'unchanged';

/** Where the SDL comes from: inline type definitions, or every `*.graphql` file under a directory. */
export type SchemaSource = { typeDefs: TypeSource; schemaDir?: never } | { schemaDir: string; typeDefs?: never };

export type GraphServerOptions<TContext extends Record<string, unknown>> = SchemaSource & {
  /** Resolver map, typed by the project's generated `Resolvers` type. */
  resolvers: IResolvers | IResolvers[];
  /** Envelop / yoga plugins, applied in order; context-agnostic ones (`Plugin`) too, as yoga allows. */
  plugins?: Array<Plugin<YogaInitialContext & TContext> | Plugin>;
  /** Builds the per-request context; merged with yoga's initial context. */
  context?: YogaServerOptions<Record<string, never>, TContext>['context'];
  /**
   * Largest document in UTF-8 bytes (default 64 KiB), refused before lexing: 413 for a POST, 414 for
   * a GET. Unless `maxRequestBodySize` is given, the POST body limit is this plus REQUEST_ALLOWANCE_BYTES.
   */
  maxDocumentBytes?: number;
  /** The parse and validation cache (default: `createDocumentCache()`, 1,000 documents, 16 MiB). */
  documentCache?: DocumentCache;
  /** Run query operations with graphql-jit (default false); compiled forms live in the document cache. */
  jit?: boolean;
  /** Told of every execution (metrics, spans); default none. */
  executionObserver?: ExecutionObserver;
  /** Given the server's executor once it is made: its compiled operations can be run again (prepared-operations.ts). */
  onExecution?: (execution: Execution) => void;
  /**
   * Development mode (default false): errors carry the original error with its stack. Never in
   * production: no answer then contains a stack trace or a file path.
   */
  development?: boolean;
  /** Unexpected errors (bugs) answer "Unexpected error." (default true), or their own message (false). */
  maskedErrors?: boolean;
  /** A schema field without a resolver: `error` (default) refuses to start, `warn` prints it and serves null. */
  missingResolvers?: MissingResolvers;
  /**
   * Development only: given the function that serves a changed SDL without a restart (ReloadSchema).
   * It builds and checks the schema as the start does (resolver coverage included) and drops every
   * cached document, validated against the old schema, with its compiled operations. Absent
   * (default), the server keeps its start-up schema and nothing of this is built.
   */
  onReloadSchema?: (reload: ReloadSchema) => void;
  /**
   * The plugin of a layer in front of the server that answers repeated requests without entering it
   * (the channel graph's response cache and prepared operations), made once every other plugin is
   * known: `paths` says which of those answers all of them allow (skippable-plugins.ts). Placed right
   * after `plugins`. Default none.
   */
  frontPlugin?: (paths: RepeatPaths) => Plugin | undefined;
} & Omit<YogaServerOptions<Record<string, never>, TContext>, 'schema' | 'plugins' | 'context' | 'maskedErrors' | 'parserAndValidationCache'>;

/** Loads SDL from a directory (every `*.graphql` file below it, sorted for a stable schema). */
export function loadTypeDefs(schemaDir: string): string[] {
  return loadFilesSync<string>(`${schemaDir}/**/*.graphql`, { extensions: ['graphql'] });
}

/**
 * Makes an executable schema from SDL and resolvers. A resolver for a type or field that the SDL does
 * not declare is an error at start-up, not a silently ignored function; so is a field without a
 * resolver, unless `missingResolvers` is `warn` (resolver-coverage.ts).
 */
export function createExecutableSchema(source: SchemaSource, resolvers: IResolvers | IResolvers[], missingResolvers: MissingResolvers = 'error'): GraphQLSchema {
  return schemaOf(source.typeDefs ?? loadTypeDefs(source.schemaDir), resolvers, missingResolvers);
}

function schemaOf(typeDefs: TypeSource, resolvers: IResolvers | IResolvers[], missingResolvers: MissingResolvers): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs,
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  assertResolverCoverage(schema, missingResolvers);
  dropPropertyResolvers(schema, Array.isArray(resolvers) ? resolvers : [resolvers]);
  return schema;
}

/**
 * A GraphQL-over-HTTP server (yoga) for one schema, safe to expose: every document is bounded before
 * it is lexed, the parse and validation cache is bounded and keeps only valid documents, and every
 * refusal is a 4xx whose body is a GraphQL error (no stack trace outside development). No global
 * state: every call builds its own schema, caches and server, so tests can start as many as they like.
 */
export function createGraphServer<TContext extends Record<string, unknown> = Record<string, never>>(
  options: GraphServerOptions<TContext>,
): YogaServerInstance<Record<string, never>, TContext> {
  const {
    typeDefs,
    schemaDir,
    resolvers,
    plugins,
    maxRequestBodySize,
    maxDocumentBytes = DEFAULT_MAX_DOCUMENT_BYTES,
    documentCache = createDocumentCache(),
    jit = false,
    executionObserver,
    onExecution,
    development = false,
    maskedErrors = true,
    missingResolvers = 'error',
    onReloadSchema,
    frontPlugin,
    ...yogaOptions
  } = options;
  const source: SchemaSource = typeDefs !== undefined ? { typeDefs } : { schemaDir };
  const readTypeDefs = (): TypeSource => source.typeDefs ?? loadTypeDefs(source.schemaDir);
  let served = readTypeDefs();
  const schema = schemaOf(served, resolvers, missingResolvers);
  const swap = onReloadSchema === undefined ? undefined : createSchemaSwap(schema);
  if (swap !== undefined) {
    onReloadSchema?.(() => {
      const next = readTypeDefs();
      if (JSON.stringify(next) === JSON.stringify(served)) return 'unchanged';
      swap.replace(schemaOf(next, resolvers, missingResolvers));
      served = next;
      // Documents validated against the old schema skip validation when found in the cache, and
      // their compiled operations (jit.ts) and prepared answers (prepared-operations.ts) are only
      // found through the cache: all of them go with it.
      documentCache.clear();
      return 'swapped';
    });
  }
  const bodyLimit = maxRequestBodySize ?? requestBodyLimitFor(maxDocumentBytes);
  const execution = jit || executionObserver !== undefined ? createExecution({ cache: documentCache, jit, observer: executionObserver }) : undefined;
  if (execution !== undefined) onExecution?.(execution);
  const before: Array<Plugin<YogaInitialContext & TContext> | Plugin> = [...(swap === undefined ? [] : [swap.plugin]), useDocumentLimit(maxDocumentBytes), useUrlParams(), ...(plugins ?? [])];
  const after: Plugin[] = [
    useKnownOperationTypes(),
    useSupportedVariableNames(),
    useStreamingSubscriptions(),
    documentCache.plugin,
    ...(execution === undefined ? [] : [execution.plugin]),
    useMediaTypeAnswers(requestMediaTypes(yogaOptions.multipart !== false)),
    // Last, so that it wraps whichever request parser the plugins before it selected.
    ...(bodyLimit === false ? [] : [useRequestBodyLimit(bodyLimit)]),
  ];
  // Every plugin the server runs, its own and the caller's, decides what may answer without it.
  const front = frontPlugin?.(repeatPathsAllowedBy([...before, ...after]));
  return createYoga<Record<string, never>, TContext>({
    graphqlEndpoint: '/graphql',
    ...yogaOptions,
    schema,
    // yoga's limit streams every body through a counter; ours checks Content-Length (request-body-limit.ts).
    maxRequestBodySize: false,
    // yoga's cache keys whole texts and keeps parse failures; ours is bounded (document-cache.ts).
    parserAndValidationCache: false,
    maskedErrors: { maskError: createMaskError({ maskUnexpected: maskedErrors, development }), isDev: development },
    plugins: [...before, ...(front === undefined ? [] : [front]), ...after],
  });
}
