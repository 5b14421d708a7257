/**
 * The query-language rules of the reference document (graphql-query-language.md, "What the service
 * does" and "Document grammar"), checked over HTTP against the Star Wars example graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStarWarsData, type StarWarsData } from '../../examples/starwars/context.js';
import { startStarWars, type RunningGraph } from './graph-client.js';

let graph: RunningGraph;
beforeAll(async () => {
  graph = await startStarWars();
});
afterAll(() => graph.close());

describe('response shape', () => {
  it('keys each value by the field name', async () => {
    const { status, body } = await graph.post({ query: '{ hero { name } }' });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { hero: { name: 'R2-D2' } } });
  });

  it('keys by the alias, so the same field can be selected twice with different arguments', async () => {
    const { body } = await graph.post({
      query: '{ empireHero: hero(episode: EMPIRE) { name } jediHero: hero(episode: JEDI) { name } }',
    });
    expect(body).toEqual({ data: { empireHero: { name: 'Luke Skywalker' }, jediHero: { name: 'R2-D2' } } });
  });

  it('returns the hero of the saga when the optional episode argument is omitted or is NEW_HOPE', async () => {
    const { body } = await graph.post({ query: '{ saga: hero { id } newHope: hero(episode: NEW_HOPE) { id } }' });
    expect(body).toEqual({ data: { saga: { id: '2001' }, newHope: { id: '2001' } } });
  });

  it('nests objects for nested selections and returns arrays for list fields', async () => {
    const { body } = await graph.post({ query: '{ human(id: "1000") { name friends { name friends { id } } } }' });
    expect(body).toEqual({
      data: {
        human: {
          name: 'Luke Skywalker',
          friends: [
            { name: 'Han Solo', friends: [{ id: '1000' }, { id: '1003' }, { id: '2001' }] },
            { name: 'Leia Organa', friends: [{ id: '1000' }, { id: '1002' }, { id: '2000' }, { id: '2001' }] },
            { name: 'C-3PO', friends: [{ id: '1000' }, { id: '1002' }, { id: '1003' }, { id: '2001' }] },
            { name: 'R2-D2', friends: [{ id: '1000' }, { id: '1002' }, { id: '1003' }] },
          ],
        },
      },
    });
  });

  it('returns enum values as strings holding the value name', async () => {
    const { body } = await graph.post({ query: '{ luke: human(id: "1000") { appearsIn } tarkin: human(id: "1004") { appearsIn } }' });
    expect(body).toEqual({ data: { luke: { appearsIn: ['NEW_HOPE', 'EMPIRE', 'JEDI'] }, tarkin: { appearsIn: ['NEW_HOPE'] } } });
  });

  it('returns null for a nullable field without a value, and never for a non-null one', async () => {
    const { body } = await graph.post({ query: '{ human(id: "1002") { id name homePlanet } }' });
    expect(body).toEqual({ data: { human: { id: '1002', name: 'Han Solo', homePlanet: null } } });
  });

  it('returns null and no error for an id that does not exist', async () => {
    const { status, body } = await graph.post({ query: '{ human(id: "9999") { name } droid(id: "1000") { name } }' });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { human: null, droid: null } });
    expect(body).not.toHaveProperty('errors');
  });

  it('signals a backend failure as null plus an error with the field path', async () => {
    const working = createStarWarsData();
    const failing: StarWarsData = {
      ...working,
      human: () => {
        throw new Error('human store is down');
      },
      get lookups() {
        return working.lookups;
      },
    };
    const broken = await startStarWars(failing);
    try {
      const { body } = await broken.post({ query: '{ human(id: "1000") { name } droid(id: "2000") { name } }' });
      expect(body.data).toEqual({ human: null, droid: { name: 'C-3PO' } });
      expect(body.errors).toEqual([expect.objectContaining({ path: ['human'] })]);
    } finally {
      await broken.close();
    }
  });
});

describe('__typename', () => {
  it('gives the concrete type of an interface result', async () => {
    const { body } = await graph.post({
      query: '{ r2: hero { __typename name } luke: hero(episode: EMPIRE) { __typename name friends { __typename } } }',
    });
    expect(body).toEqual({
      data: {
        r2: { __typename: 'Droid', name: 'R2-D2' },
        luke: {
          __typename: 'Human',
          name: 'Luke Skywalker',
          friends: [{ __typename: 'Human' }, { __typename: 'Human' }, { __typename: 'Droid' }, { __typename: 'Droid' }],
        },
      },
    });
  });

  it('is selectable on the root object type too', async () => {
    const { body } = await graph.post({ query: '{ __typename }' });
    expect(body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('operations', () => {
  it('answers a shorthand query and the same query written as a named operation alike', async () => {
    const shorthand = await graph.post({ query: '{ hero { name } }' });
    const named = await graph.post({ query: 'query HeroNameQuery { hero { name } }' });
    expect(named.body).toEqual(shorthand.body);
    expect(named.body).toEqual({ data: { hero: { name: 'R2-D2' } } });
  });

  const twoOperations = `
    query Luke { human(id: "1000") { name } }
    query Droids { c3po: droid(id: "2000") { name } r2: droid(id: "2001") { name } }
  `;

  it('runs the operation named by operationName when a document has several', async () => {
    const luke = await graph.post({ query: twoOperations, operationName: 'Luke' });
    const droids = await graph.post({ query: twoOperations, operationName: 'Droids' });
    expect(luke.body).toEqual({ data: { human: { name: 'Luke Skywalker' } } });
    expect(droids.body).toEqual({ data: { c3po: { name: 'C-3PO' }, r2: { name: 'R2-D2' } } });
  });

  it('refuses a document of several operations without operationName, or with an unknown one', async () => {
    const before = graph.data.lookups;
    const missing = await graph.post({ query: twoOperations });
    const unknown = await graph.post({ query: twoOperations, operationName: 'Vader' });
    // Yoga answers both with one GraphQL error (HTTP 400) before execution.
    for (const response of [missing, unknown]) {
      expect(response.status).toBe(400);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors).toEqual([
        expect.objectContaining({
          message: 'Could not determine what operation to execute.',
          extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
        }),
      ]);
    }
    expect(graph.data.lookups).toBe(before);
  });
});

describe('variables', () => {
  const humanById = 'query HumanById($id: String!) { human(id: $id) { name homePlanet } }';

  it('substitutes supplied variable values for the arguments that use them', async () => {
    const { body } = await graph.post({ query: humanById, variables: { id: '1003' } });
    expect(body).toEqual({ data: { human: { name: 'Leia Organa', homePlanet: 'Alderaan' } } });
  });

  it('accepts enum variables by value name, and an omitted nullable variable', async () => {
    const query = 'query Hero($episode: Episode) { hero(episode: $episode) { name } }';
    const empire = await graph.post({ query, variables: { episode: 'EMPIRE' } });
    const omitted = await graph.post({ query });
    expect(empire.body).toEqual({ data: { hero: { name: 'Luke Skywalker' } } });
    expect(omitted.body).toEqual({ data: { hero: { name: 'R2-D2' } } });
  });

  it('rejects a missing non-null variable with an error naming it, before any resolver runs', async () => {
    const before = graph.data.lookups;
    const { body } = await graph.post({ query: humanById });
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toBe('Variable "$id" of required type "String!" was not provided.');
    expect(graph.data.lookups).toBe(before);
  });

  it('rejects a variable value of the wrong enum value', async () => {
    const { body } = await graph.post({
      query: 'query Hero($episode: Episode) { hero(episode: $episode) { name } }',
      variables: { episode: 'PHANTOM_MENACE' },
    });
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/\$episode.*PHANTOM_MENACE/);
  });
});

describe('fragments', () => {
  it('spreads a named fragment wherever it is used', async () => {
    const { body } = await graph.post({
      query: `
        { leftComparison: hero(episode: EMPIRE) { ...comparisonFields } rightComparison: hero(episode: JEDI) { ...comparisonFields } }
        fragment comparisonFields on Character { name appearsIn friends { name } }
      `,
    });
    expect(body).toEqual({
      data: {
        leftComparison: {
          name: 'Luke Skywalker',
          appearsIn: ['NEW_HOPE', 'EMPIRE', 'JEDI'],
          friends: [{ name: 'Han Solo' }, { name: 'Leia Organa' }, { name: 'C-3PO' }, { name: 'R2-D2' }],
        },
        rightComparison: {
          name: 'R2-D2',
          appearsIn: ['NEW_HOPE', 'EMPIRE', 'JEDI'],
          friends: [{ name: 'Luke Skywalker' }, { name: 'Han Solo' }, { name: 'Leia Organa' }],
        },
      },
    });
  });

  it('applies an inline fragment only to results of its type condition', async () => {
    const { body } = await graph.post({
      query: '{ hero { name friends { name ... on Human { homePlanet } ... on Droid { primaryFunction } } } }',
    });
    expect(body).toEqual({
      data: {
        hero: {
          name: 'R2-D2',
          friends: [
            { name: 'Luke Skywalker', homePlanet: 'Tatooine' },
            { name: 'Han Solo', homePlanet: null },
            { name: 'Leia Organa', homePlanet: 'Alderaan' },
          ],
        },
      },
    });
    const c3po = await graph.post({ query: '{ droid(id: "2000") { friends { ... on Droid { primaryFunction } } } }' });
    expect(c3po.body).toEqual({ data: { droid: { friends: [{}, {}, {}, { primaryFunction: 'Astromech' }] } } });
  });
});

describe('comments', () => {
  it('ignores lines starting with #, including inside selections', async () => {
    const { body } = await graph.post({
      query: `# Which droid is the hero?
        query HeroNameQuery {
          # the overall hero
          hero { # inline comment after a brace
            name
            # primaryFunction
          }
        }`,
    });
    expect(body).toEqual({ data: { hero: { name: 'R2-D2' } } });
  });
});
