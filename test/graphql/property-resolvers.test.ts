/**
 * `property(name)` resolvers: they count for the resolver coverage check, then leave the executable
 * schema, so that graphql-js's default resolver and graphql-jit's inline read answer those fields
 * (with the same answers); one that reads another field's property stays a resolver.
 */
import { createRequire } from 'node:module';
import type * as GraphQL from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { dropPropertyResolvers, property } from '../../src/graphql/schema/property-resolvers.js';
import { fieldsWithoutResolvers } from '../../src/graphql/schema/resolver-coverage.js';
import { createExecutableSchema } from '../../src/graphql/schema/executable-schema.js';

// The CommonJS copy of graphql, which @graphql-tools and graphql-jit load: under vitest this file
// would otherwise get the ES module copy, and graphql refuses a schema made by the other one.
const { execute, getNamedType, parse } = createRequire(import.meta.url)('graphql') as typeof GraphQL;

const typeDefs = `
  type Query { heroes: [Hero!]! }
  type Hero { name: String! title: String! height: Float friend: Hero }
`;
interface Hero {
  name: string;
  height?: number;
  friend?: Hero;
}
const heroes: Hero[] = [{ name: 'R2-D2', height: 0.96 }, { name: 'C-3PO', friend: { name: 'R2-D2', height: 0.96 } }];
const resolvers = {
  Query: { heroes: () => heroes },
  // `title` reads the name: a property resolver under another field's name.
  Hero: { name: property('name'), title: property('name'), height: property('height'), friend: property('friend') },
};
const document = parse('{ heroes { name title height friend { name title height } } }');
const expected = {
  heroes: [
    { name: 'R2-D2', title: 'R2-D2', height: 0.96, friend: null },
    { name: 'C-3PO', title: 'C-3PO', height: null, friend: { name: 'R2-D2', title: 'R2-D2', height: 0.96 } },
  ],
};

function heroFields(schema: GraphQL.GraphQLSchema): ReturnType<GraphQL.GraphQLObjectType['getFields']> {
  return (getNamedType(schema.getType('Hero')) as GraphQL.GraphQLObjectType).getFields();
}

describe('property resolvers', () => {
  it('answer the property, null when it is missing', () => {
    const height = property('height');
    expect(height({ height: 1.5 })).toBe(1.5);
    expect(height({})).toBeNull();
  });

  it('count for the coverage check, then leave the schema; one under another field\'s name stays', () => {
    const schema = createExecutableSchema({ typeDefs }, resolvers);
    const fields = heroFields(schema);
    expect([fields.name?.resolve, fields.height?.resolve, fields.friend?.resolve]).toEqual([undefined, undefined, undefined]);
    expect(fields.title?.resolve).toBeTypeOf('function');
    expect(fieldsWithoutResolvers(schema)).toEqual(['Hero.name', 'Hero.height', 'Hero.friend']);
    // Nothing left to drop the second time.
    expect(dropPropertyResolvers(schema, [resolvers])).toEqual([]);
  });

  it('give the same answers through graphql-js and graphql-jit once dropped', async () => {
    const schema = createExecutableSchema({ typeDefs }, resolvers);
    expect(await execute({ schema, document })).toEqual({ data: expected });
    const compiled = compileQuery(schema, document);
    if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled));
    expect(JSON.parse(JSON.stringify(await compiled.query(undefined, {}, {})))).toEqual({ data: expected });
  });

  it('leave a subscription field alone, and a later map\'s own resolver wins', () => {
    const schema = createExecutableSchema(
      { typeDefs: `${typeDefs} type Subscription { hero: Hero }` },
      { ...resolvers, Subscription: { hero: { subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }) }), resolve: property('hero') } } },
    );
    expect(schema.getSubscriptionType()?.getFields().hero?.resolve).toBeTypeOf('function');
    const overridden = createExecutableSchema({ typeDefs }, [resolvers, { Hero: { name: (hero: Hero) => hero.name.toLowerCase() } }]);
    expect(heroFields(overridden).name?.resolve).toBeTypeOf('function');
    expect(heroFields(overridden).height?.resolve).toBeUndefined();
  });
});
