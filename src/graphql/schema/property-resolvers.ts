/**
 * Resolvers that only read the parent's property named like their field: graphql's default field
 * resolver does the same. The resolver map still names them, so every field keeps a resolver
 * (resolver-coverage.ts: a field added to the SDL is never a silent null) and the generated types
 * check the property against the mapped model. Once the executable schema is built and its coverage
 * checked, `dropPropertyResolvers` removes them from it. graphql-jit then reads such a field inline in
 * its compiled query, where a resolver is a call through its runtime (arguments, safety checks,
 * result handling) for every field of every object (docs/graph.md, "Property resolvers").
 */
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { isObjectType } from './resolver-coverage.js';

const READS_PROPERTY = Symbol('channel-graph.readsProperty');

/** An optional property's value as GraphQL answers it: a missing one is null. */
type Answered<T> = undefined extends T ? Exclude<T, undefined> | null : T;

/** A resolver answering `parent[key]` (null when it is missing), marked as such. */
export type PropertyResolver<K extends string> = (<Parent extends { readonly [P in K]?: unknown }>(parent: Parent) => Answered<Parent[K]>) & {
  readonly [READS_PROPERTY]: K;
};

/** The resolver of a field that answers the parent's property `key` (the field's own name, to be dropped). */
export function property<K extends string>(key: K): PropertyResolver<K> {
  const read = <Parent extends { readonly [P in K]?: unknown }>(parent: Parent): Answered<Parent[K]> => (parent[key] ?? null) as Answered<Parent[K]>;
  return Object.assign(read, { [READS_PROPERTY]: key } as const);
}

function readsOwnProperty(resolve: unknown, fieldName: string): boolean {
  return typeof resolve === 'function' && (resolve as Partial<Record<typeof READS_PROPERTY, string>>)[READS_PROPERTY] === fieldName;
}

/**
 * The `Type.field` names whose resolver, in the resolver maps (merged in order, as
 * makeExecutableSchema merges them), is `property(field)`. Read from the maps: the schema holds
 * bound copies of the resolvers (graphql-tools binds each to its type's map), without the mark.
 */
function propertyFieldsOf(resolverMaps: readonly IResolvers[]): Set<string> {
  const fields = new Set<string>();
  for (const map of resolverMaps) {
    for (const [typeName, typeResolvers] of Object.entries(map)) {
      // Scalars (GraphQLScalarType instances) and enums' value maps hold no field resolvers to drop.
      if (typeof typeResolvers !== 'object' || typeResolvers === null || Object.getPrototypeOf(typeResolvers) !== Object.prototype) continue;
      for (const [fieldName, resolver] of Object.entries(typeResolvers as Record<string, unknown>)) {
        const name = `${typeName}.${fieldName}`;
        if (readsOwnProperty(resolver, fieldName)) fields.add(name);
        else fields.delete(name);
      }
    }
  }
  return fields;
}

/**
 * Removes, in place, the resolver of every field whose resolver in `resolverMaps` is
 * `property(field)`: the default resolver (graphql-js's, or graphql-jit's inline read) answers the
 * same for the plain data objects the models are. A `property` resolver under another field's name
 * reads another property and stays; so do the subscription type's fields. For a schema that has
 * just been built from those maps (nothing has compiled against it yet). Returns the `Type.field`
 * names it dropped.
 */
export function dropPropertyResolvers(schema: GraphQLSchema, resolverMaps: readonly IResolvers[]): string[] {
  const dropped: string[] = [];
  for (const name of propertyFieldsOf(resolverMaps)) {
    const [typeName = '', fieldName = ''] = name.split('.');
    const type = schema.getType(typeName);
    if (type === undefined || type === null || !isObjectType(type) || type === schema.getSubscriptionType()) continue;
    const field = type.getFields()[fieldName];
    if (field === undefined || field.resolve === undefined) continue;
    field.resolve = undefined;
    dropped.push(name);
  }
  return dropped;
}
