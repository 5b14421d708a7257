/**
 * "Named `Query` by convention, but any name works if it is declared as the query root": the Star
 * Wars SDL and resolvers served with the root type renamed to `Root` (`schema { query: Root }`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStarWarsData, type StarWarsContext } from '../../examples/starwars/context.js';
import { resolvers } from '../../examples/starwars/resolvers.js';
import { starWarsSchemaDir } from '../../examples/starwars/server.js';
import { createGraphServer } from '../../src/graphql/server.js';
import { serveGraph, type RunningGraph } from './graph-client.js';

let graph: RunningGraph;
beforeAll(async () => {
  const sdl = await readFile(join(starWarsSchemaDir, 'starwars.graphql'), 'utf8');
  expect(sdl).toContain('type Query {');
  const typeDefs = `schema { query: Root }\n${sdl.replace('type Query {', 'type Root {')}`;
  const { Query, ...typeResolvers } = resolvers;
  const data = createStarWarsData();
  const yoga = createGraphServer<StarWarsContext>({
    typeDefs,
    resolvers: { ...typeResolvers, Root: Query },
    context: () => ({ starWars: data }),
    logging: false,
  });
  graph = await serveGraph(yoga, data);
});
afterAll(() => graph.close());

it('answers queries through the declared root type', async () => {
  const { body } = await graph.post({ query: '{ __typename hero(episode: EMPIRE) { name } droid(id: "2000") { name } }' });
  expect(body).toEqual({ data: { __typename: 'Root', hero: { name: 'Luke Skywalker' }, droid: { name: 'C-3PO' } } });
});

it('introspects the declared root as the query type, and has no type named Query', async () => {
  const { body } = await graph.post({
    query: '{ __schema { queryType { name } types { name } } query: __type(name: "Query") { name } }',
  });
  const data = body.data as { __schema: { queryType: { name: string }; types: Array<{ name: string }> }; query: unknown };
  expect(data.__schema.queryType).toEqual({ name: 'Root' });
  expect(data.__schema.types.map((type) => type.name)).toContain('Root');
  expect(data.__schema.types.map((type) => type.name)).not.toContain('Query');
  expect(data.query).toBeNull();
});

it('validates against the declared root: a field not on Root is rejected before execution', async () => {
  const before = graph.data.lookups;
  const { body } = await graph.post({ query: '{ starship(id: "3000") { name } }' });
  expect(body.errors?.[0]?.message).toBe('Cannot query field "starship" on type "Root".');
  expect(graph.data.lookups).toBe(before);
});
