import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers, TypeSource } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { dropPropertyResolvers } from './property-resolvers.js';
import { assertResolverCoverage, type MissingResolvers } from './resolver-coverage.js';

/** Where the SDL comes from: inline type definitions, or every `*.graphql` file under a directory. */
export type SchemaSource = { typeDefs: TypeSource; schemaDir?: never } | { schemaDir: string; typeDefs?: never };

/** Loads SDL from a directory: every `*.graphql` file below it, sorted by path for a stable schema. */
export function loadTypeDefs(schemaDir: string): string[] {
  return readdirSync(schemaDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(join(schemaDir, file), 'utf8'));
}

/**
 * Makes an executable schema from SDL and resolvers. A resolver for a type or field that the SDL does
 * not declare is an error at start-up, not a silently ignored function; so is a field without a
 * resolver, unless `missingResolvers` is `warn` (resolver-coverage.ts).
 */
export function createExecutableSchema(source: SchemaSource, resolvers: IResolvers | IResolvers[], missingResolvers: MissingResolvers = 'error'): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: source.typeDefs ?? loadTypeDefs(source.schemaDir),
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  assertResolverCoverage(schema, missingResolvers);
  dropPropertyResolvers(schema, Array.isArray(resolvers) ? resolvers : [resolvers]);
  return schema;
}
