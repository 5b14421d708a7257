/**
 * GraphQL over HTTP as yoga does it: POST JSON, GET with the query in the URL, and the
 * `application/graphql-response+json` media type; plus GraphiQL for a browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heroQuery, heroResult, startStarWars, type RunningGraph } from './graph-client.js';

let graph: RunningGraph;
beforeAll(async () => {
  graph = await startStarWars();
});
afterAll(() => graph.close());


describe('POST', () => {
  it('takes a JSON body with query, variables and operationName and answers application/json', async () => {
    const { status, contentType, body } = await graph.post({
      query: 'query A { x: hero { name } } query B($id: String!) { human(id: $id) { name } }',
      variables: { id: '1001' },
      operationName: 'B',
    });
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/json/);
    expect(body).toEqual({ data: { human: { name: 'Darth Vader' } } });
  });

  it('answers the hero query of the benchmark', async () => {
    expect((await graph.post({ query: heroQuery })).body).toEqual(heroResult);
  });

  it('rejects a body that is not JSON with 400 and a GraphQL error', async () => {
    const response = await fetch(graph.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: Array<{ message: string }> };
    expect(body.errors[0]?.message).toMatch(/POST body sent invalid JSON/);
  });

  it('rejects a request without a query with a BAD_REQUEST error', async () => {
    const response = await fetch(graph.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ variables: {} }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: [{ message: 'Must provide query string.', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('reports a syntax error as a GraphQL error with its location', async () => {
    const { body } = await graph.post({ query: '{ hero { name }' });
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^Syntax Error/), locations: [{ line: 1 }] });
  });
});

describe('GET', () => {
  it('runs a query sent in the URL, with variables and operationName as JSON/text parameters', async () => {
    const { status, body } = await graph.get({
      query: 'query Luke { human(id: "1000") { name } } query ById($id: String!) { droid(id: $id) { name } }',
      variables: { id: '2000' },
      operationName: 'ById',
    });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { droid: { name: 'C-3PO' } } });
  });

  it('answers the same bytes as POST for the same query', async () => {
    const [viaGet, viaPost] = await Promise.all([graph.get({ query: heroQuery }), graph.post({ query: heroQuery })]);
    expect(viaGet.body).toEqual(heroResult);
    expect(viaGet.body).toEqual(viaPost.body);
  });

  it('refuses a mutation over GET (405), since GET must be safe', async () => {
    const response = await fetch(`${graph.url}?query=${encodeURIComponent('mutation { hero { name } }')}`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(405);
  });
});

describe('application/graphql-response+json', () => {
  it('is the response media type when the client accepts it', async () => {
    for (const send of [graph.post, graph.get]) {
      const { status, contentType, body } = await send({ query: heroQuery }, 'application/graphql-response+json');
      expect(status).toBe(200);
      expect(contentType).toMatch(/^application\/graphql-response\+json/);
      expect(body).toEqual(heroResult);
    }
  });

  it('uses 400 for a request error such as a missing non-null variable', async () => {
    const { status, body } = await graph.post(
      { query: 'query ($id: String!) { human(id: $id) { name } }' },
      'application/graphql-response+json',
    );
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toBe('Variable "$id" of required type "String!" was not provided.');
  });

  it('keeps 200 for a field error during execution: the response has data', async () => {
    const { status, body } = await graph.post({ query: '{ human(id: "404") { name } }' }, 'application/graphql-response+json');
    expect(status).toBe(200);
    expect(body).toEqual({ data: { human: null } });
  });
});

describe('GraphiQL', () => {
  it('is served at /graphql to a browser', async () => {
    const response = await fetch(graph.url, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/graphiql/i);
  });
});
