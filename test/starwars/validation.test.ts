/**
 * The four validation errors of the reference document ("Errors"): each invalid document is
 * rejected before execution — no resolver reaches the data — with a GraphQL error naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStarWars, type RunningGraph } from './graph-client.js';

let graph: RunningGraph;
beforeAll(async () => {
  graph = await startStarWars();
});
afterAll(() => graph.close());

const invalidDocuments = [
  {
    rule: '1. a selected field does not exist on the type it is selected from',
    query: '{ hero { favoriteSpaceship } }',
    message: 'Cannot query field "favoriteSpaceship" on type "Character".',
  },
  {
    rule: '2. a field of object/interface type has no sub-selection',
    query: '{ hero }',
    message: 'Field "hero" of type "Character" must have a selection of subfields. Did you mean "hero { ... }"?',
  },
  {
    rule: '2. (lookup field) a field of object type has no sub-selection',
    query: '{ human(id: "1000") }',
    message: 'Field "human" of type "Human" must have a selection of subfields. Did you mean "human { ... }"?',
  },
  {
    rule: '3. a scalar field has a sub-selection',
    query: '{ hero { name { firstCharacterOfName } } }',
    message: 'Field "name" must not have a selection since type "String" has no subfields.',
  },
  {
    rule: '3. an enum field has a sub-selection',
    query: '{ hero { appearsIn { name } } }',
    message: 'Field "appearsIn" must not have a selection since type "[Episode]" has no subfields.',
  },
  {
    rule: '4. a field of an implementing type is selected on the interface',
    query: '{ hero { name primaryFunction } }',
    message: 'Cannot query field "primaryFunction" on type "Character". Did you mean to use an inline fragment on "Droid"?',
  },
];

describe('invalid documents are rejected before execution', () => {
  it('counts lookups when a valid document does run (the control for the checks below)', async () => {
    const before = graph.data.lookups;
    const { body } = await graph.post({ query: '{ hero { name } }' });
    expect(body).toEqual({ data: { hero: { name: 'R2-D2' } } });
    expect(graph.data.lookups).toBeGreaterThan(before);
  });

  for (const { rule, query, message } of invalidDocuments) {
    it(`${rule}: ${query}`, async () => {
      const before = graph.data.lookups;
      const { status, body } = await graph.post({ query });
      expect(status).toBe(200); // application/json: GraphQL errors travel in a 200 (GraphQL over HTTP)
      expect(body).not.toHaveProperty('data');
      expect(body.errors).toEqual([
        expect.objectContaining({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      ]);
      expect(graph.data.lookups).toBe(before);
    });
  }

  it('answers 400 for an invalid document when the client accepts application/graphql-response+json', async () => {
    const before = graph.data.lookups;
    const { status, contentType, body } = await graph.post(
      { query: '{ hero { favoriteSpaceship } }' },
      'application/graphql-response+json',
    );
    expect(status).toBe(400);
    expect(contentType).toMatch(/^application\/graphql-response\+json/);
    expect(body.errors?.[0]?.message).toContain('favoriteSpaceship');
    expect(graph.data.lookups).toBe(before);
  });

  it('reports every invalid field of one document, not only the first', async () => {
    const { body } = await graph.post({ query: '{ hero { favoriteSpaceship name { first } } }' });
    expect(body.errors?.map((error) => error.message)).toEqual([
      'Cannot query field "favoriteSpaceship" on type "Character".',
      'Field "name" must not have a selection since type "String" has no subfields.',
    ]);
  });
});

describe('a field of an implementing type is valid inside a fragment on that type', () => {
  it('accepts it inside an inline fragment', async () => {
    const { body } = await graph.post({ query: '{ hero { name ... on Droid { primaryFunction } } }' });
    expect(body).toEqual({ data: { hero: { name: 'R2-D2', primaryFunction: 'Astromech' } } });
  });

  it('accepts it inside a named fragment', async () => {
    const { body } = await graph.post({
      query: '{ hero(episode: EMPIRE) { name ...HumanFields } } fragment HumanFields on Human { homePlanet }',
    });
    expect(body).toEqual({ data: { hero: { name: 'Luke Skywalker', homePlanet: 'Tatooine' } } });
  });
});
