import type { IResolvers, TypeSource } from '@graphql-tools/utils';
import { createYoga, type Plugin, type YogaInitialContext, type YogaServerInstance, type YogaServerOptions } from 'graphql-yoga';
import { DEFAULT_MAX_DOCUMENT_BYTES, requestBodyLimitFor, useDocumentLimit } from './plugins/document-limit.js';
import { createMaskError } from './plugins/error-masking.js';
import { requestMediaTypes, useMediaTypeAnswers } from './plugins/media-types.js';
import { useKnownOperationTypes, useStreamingSubscriptions } from './plugins/operation-types.js';
import { useUrlParams } from './plugins/url-params.js';
import { useSupportedVariableNames } from './plugins/variable-names.js';
import { createExecutableSchema, loadTypeDefs, type SchemaSource } from './schema/executable-schema.js';
import type { MissingResolvers } from './schema/resolver-coverage.js';
import { createSchemaSwap } from './schema/schema-swap.js';
import { createDocumentCache, type DocumentCache } from './speed/document-cache.js';
import { useJit } from './speed/jit.js';

export type { SchemaSource } from './schema/executable-schema.js';

/**
 * Serves the SDL as it is now, in place of the schema being served: `swapped`, or `unchanged` when
 * the SDL is the one being served. Throws (and the served schema stays) when it does not build.
 */
export type ReloadSchema = () => 'swapped' | 'unchanged';

export type GraphServerOptions<TContext extends Record<string, unknown>> = SchemaSource & {
  /** Resolver map, typed by the project's generated `Resolvers` type. */
  resolvers: IResolvers | IResolvers[];
  /** Envelop / yoga plugins, applied in order; context-agnostic ones (`Plugin`) too, as yoga allows. */
  plugins?: Array<Plugin<YogaInitialContext & TContext> | Plugin>;
  /** Builds the per-request context; merged with yoga's initial context. */
  context?: YogaServerOptions<Record<string, never>, TContext>['context'];
  /**
   * Largest document in UTF-8 bytes (default 64 KiB), refused before lexing: 413 for a POST, 414 for
   * a GET. Unless `maxRequestBodySize` is given, yoga's POST body limit is this plus REQUEST_ALLOWANCE_BYTES.
   */
  maxDocumentBytes?: number;
  /** yoga's parse and validation caches (default: `createDocumentCache()`, 1,000 documents, 16 MiB). */
  documentCache?: DocumentCache;
  /** Run query operations with graphql-jit (default false): speed/jit.ts. */
  jit?: boolean;
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
   * cached document, with its compiled operations. Absent (default), the server keeps its start-up
   * schema and nothing of this is built.
   */
  onReloadSchema?: (reload: ReloadSchema) => void;
} & Omit<YogaServerOptions<Record<string, never>, TContext>, 'schema' | 'plugins' | 'context' | 'maskedErrors' | 'parserAndValidationCache'>;

/**
 * A GraphQL-over-HTTP server (yoga) for one schema, safe to expose: every document is bounded before
 * it is lexed, the request body by yoga's limit, the parse and validation caches in entries and
 * bytes, and every refusal is a 4xx whose body is a GraphQL error (no stack trace outside
 * development). Every request goes through yoga's plugins. No global state: every call builds its own
 * schema, caches and server, so tests can start as many as they like.
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
    development = false,
    maskedErrors = true,
    missingResolvers = 'error',
    onReloadSchema,
    ...yogaOptions
  } = options;
  const readTypeDefs = (): TypeSource => typeDefs ?? loadTypeDefs(schemaDir);
  let served = readTypeDefs();
  const schema = createExecutableSchema({ typeDefs: served }, resolvers, missingResolvers);
  const swap = onReloadSchema === undefined ? undefined : createSchemaSwap(schema);
  if (swap !== undefined) {
    onReloadSchema?.(() => {
      const next = readTypeDefs();
      if (JSON.stringify(next) === JSON.stringify(served)) return 'unchanged';
      swap.replace(createExecutableSchema({ typeDefs: next }, resolvers, missingResolvers));
      served = next;
      // A cached document object keeps its compiled operations (speed/jit.ts), compiled against the
      // old schema: every document goes, and is parsed and compiled again.
      documentCache.clear();
      return 'swapped';
    });
  }
  return createYoga<Record<string, never>, TContext>({
    graphqlEndpoint: '/graphql',
    ...yogaOptions,
    schema,
    maxRequestBodySize: maxRequestBodySize ?? requestBodyLimitFor(maxDocumentBytes),
    parserAndValidationCache: documentCache.parserAndValidationCache,
    maskedErrors: { maskError: createMaskError({ maskUnexpected: maskedErrors, development }), isDev: development },
    plugins: [
      ...(swap === undefined ? [] : [swap.plugin]),
      useDocumentLimit(maxDocumentBytes),
      useUrlParams(),
      // Before the caller's plugins: one of them (the response cache) may set the execute function in its place.
      ...(jit ? [useJit(documentCache.holds)] : []),
      ...(plugins ?? []),
      useKnownOperationTypes(),
      useSupportedVariableNames(),
      useStreamingSubscriptions(),
      useMediaTypeAnswers(requestMediaTypes(yogaOptions.multipart !== false)),
    ],
  });
}
