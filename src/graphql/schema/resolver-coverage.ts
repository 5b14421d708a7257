/**
 * Every schema field needs a resolver. The schemas here map their types onto domain models whose
 * properties are not named like the SDL fields (codegen mappers), so graphql-js's default field
 * resolver (`parent[fieldName]`) would answer a field added to the SDL without a resolver with a
 * silent `null`. The generated `Resolvers` types require every field too, so this only catches what
 * the compiler would have named: at start-up instead of in production traffic.
 */
import type { GraphQLNamedType, GraphQLObjectType, GraphQLSchema } from 'graphql';

/**
 * graphql-js's `isObjectType` is an instanceof check, which fails across two copies of graphql (a
 * bundler or vitest may load its ES module build here and its CommonJS build in @graphql-tools);
 * the type's toStringTag is the same in both.
 */
export const isObjectType = (type: GraphQLNamedType): type is GraphQLObjectType => Object.prototype.toString.call(type) === '[object GraphQLObjectType]';

/** What a server does about fields without a resolver: refuse to start, or warn and serve them as null. */
export type MissingResolvers = 'error' | 'warn';

/**
 * `Type.field` of every field of an object type (introspection types aside) without its own resolver.
 * On a schema from createExecutableSchema it also names the `property(field)` fields, whose
 * resolvers it dropped after this check passed (property-resolvers.ts).
 */
export function fieldsWithoutResolvers(schema: GraphQLSchema): string[] {
  const subscriptionType = schema.getSubscriptionType();
  return Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .filter((type) => !type.name.startsWith('__'))
    .flatMap((type) =>
      Object.values(type.getFields())
        .filter((field) => (type === subscriptionType ? field.subscribe === undefined : field.resolve === undefined))
        .map((field) => `${type.name}.${field.name}`),
    );
}

export class MissingResolversError extends Error {
  override readonly name = 'MissingResolversError';
  constructor(readonly fields: readonly string[]) {
    super(`${fields.length} schema field(s) have no resolver, so they would always be null: ${fields.join(', ')}. Add them to the resolver map (\`npm run typecheck\` names the map).`);
  }
}

/** Throws MissingResolversError (`error`), or prints the same message as a warning (`warn`). */
export function assertResolverCoverage(schema: GraphQLSchema, mode: MissingResolvers, warn: (message: string) => void = console.warn): void {
  const missing = fieldsWithoutResolvers(schema);
  if (missing.length === 0) return;
  const error = new MissingResolversError(missing);
  if (mode === 'error') throw error;
  warn(`\n!!! WARNING: ${error.message}\n!!! Development mode serves them as null; in production the server refuses to start.\n`);
}
