/**
 * Starts a Star Wars graph on 127.0.0.1 (ephemeral port) and talks to it over real HTTP, the way a
 * GraphQL-over-HTTP client does: POST JSON, or GET with the query in the URL.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStarWarsData, type StarWarsData } from '../../examples/starwars/context.js';
import { createStarWarsServer } from '../../examples/starwars/server.js';

/** The hero query of the query-language reference (also the benchmark's) and the answer the canonical data gives. */
export const heroQuery = '{ hero { __typename name friends { name ... on Human { homePlanet } ... on Droid { primaryFunction } } } }';
export const heroResult = {
  data: {
    hero: {
      __typename: 'Droid',
      name: 'R2-D2',
      friends: [
        { name: 'Luke Skywalker', homePlanet: 'Tatooine' },
        { name: 'Han Solo', homePlanet: null },
        { name: 'Leia Organa', homePlanet: 'Alderaan' },
      ],
    },
  },
};

export interface GraphRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GraphResponse {
  status: number;
  contentType: string | null;
  // The JSON body as sent; tests assert on its shape.
  body: { data?: unknown; errors?: Array<{ message: string; path?: Array<string | number> }> } & Record<string, unknown>;
}

export interface RunningGraph {
  url: string;
  /** The server's data access object: `lookups` counts how often resolvers reached the data. */
  data: StarWarsData;
  post: (request: GraphRequest, accept?: string) => Promise<GraphResponse>;
  get: (request: GraphRequest, accept?: string) => Promise<GraphResponse>;
  close: () => Promise<void>;
}

async function readResponse(response: Response): Promise<GraphResponse> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: (await response.json()) as GraphResponse['body'],
  };
}

/** A yoga instance, seen as what node:http needs from it. */
export type GraphHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** Serves a yoga instance over node:http on 127.0.0.1:0. */
export async function serveGraph(yoga: GraphHandler, data: StarWarsData): Promise<RunningGraph> {
  const server = createServer((request, response) => void yoga(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    url,
    data,
    post: async (request, accept = 'application/json') =>
      readResponse(
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify(request),
        }),
      ),
    get: async (request, accept = 'application/json') => {
      const params = new URLSearchParams({ query: request.query });
      if (request.variables) params.set('variables', JSON.stringify(request.variables));
      if (request.operationName) params.set('operationName', request.operationName);
      return readResponse(await fetch(`${url}?${params.toString()}`, { headers: { accept } }));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The example graph exactly as `npm run start:starwars` serves it, over its own data object. */
export function startStarWars(data: StarWarsData = createStarWarsData()): Promise<RunningGraph> {
  return serveGraph(createStarWarsServer({ data }), data);
}
