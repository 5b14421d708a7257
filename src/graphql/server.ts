import { loadFilesSync } from '@graphql-tools/load-files';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers, TypeSource } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaInitialContext, type YogaServerInstance, type YogaServerOptions } from 'graphql-yoga';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, useRequestBodyLimit } from './request-body-limit.js';
import { assertResolverCoverage, type MissingResolvers } from './resolver-coverage.js';

/** Where the SDL comes from: inline type definitions, or every `*.graphql` file under a directory. */
export type SchemaSource = { typeDefs: TypeSource; schemaDir?: never } | { schemaDir: string; typeDefs?: never };

export type GraphServerOptions<TContext extends Record<string, unknown>> = SchemaSource & {
  /** Resolver map, typed by the project's generated `Resolvers` type. */
  resolvers: IResolvers | IResolvers[];
  /** Envelop / yoga plugins, applied in order; context-agnostic ones (`Plugin`) too, as yoga allows. */
  plugins?: Array<Plugin<YogaInitialContext & TContext> | Plugin>;
  /** Builds the per-request context; merged with yoga's initial context. */
  context?: YogaServerOptions<Record<string, never>, TContext>['context'];
  /** A schema field without a resolver: `error` (default) refuses to start, `warn` prints it and serves null. */
  missingResolvers?: MissingResolvers;
} & Omit<YogaServerOptions<Record<string, never>, TContext>, 'schema' | 'plugins' | 'context'>;

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
  const typeDefs = source.typeDefs ?? loadTypeDefs(source.schemaDir);
  const schema = makeExecutableSchema({
    typeDefs,
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  assertResolverCoverage(schema, missingResolvers);
  return schema;
}

/**
 * A GraphQL-over-HTTP server (yoga) for one schema. No global state: every call builds its own
 * schema and server, so tests can start as many as they like.
 */
export function createGraphServer<TContext extends Record<string, unknown> = Record<string, never>>(
  options: GraphServerOptions<TContext>,
): YogaServerInstance<Record<string, never>, TContext> {
  const { typeDefs, schemaDir, resolvers, plugins, maxRequestBodySize, missingResolvers, ...yogaOptions } = options;
  const source: SchemaSource = typeDefs !== undefined ? { typeDefs } : { schemaDir };
  const schema = createExecutableSchema(source, resolvers, missingResolvers);
  const bodyLimit = maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  return createYoga<Record<string, never>, TContext>({
    graphqlEndpoint: '/graphql',
    ...yogaOptions,
    schema,
    // yoga's limit streams every body through a counter; ours checks Content-Length (request-body-limit.ts).
    maxRequestBodySize: false,
    // Last, so that it wraps whichever request parser the plugins before it selected.
    plugins: [...(plugins ?? []), ...(bodyLimit === false ? [] : [useRequestBodyLimit(bodyLimit)])],
  });
}
