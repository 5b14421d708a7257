/**
 * The request body limit of createGraphServer (yoga's `maxRequestBodySize`): a declared
 * Content-Length over the limit is refused before the body is read, a chunked body is counted while
 * it is read, and bodies within the limit are answered either way.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer } from '../../src/graphql/server.js';

const limitBytes = 200;
let server: Server;
let port: number;

beforeAll(async () => {
  const yoga = createGraphServer({
    typeDefs: 'type Query { echo(text: String!): String! }',
    resolvers: { Query: { echo: (_: unknown, { text }: { text: string }) => text } },
    maxRequestBodySize: limitBytes,
    logging: false,
  });
  server = createServer((request, response) => void yoga(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function echoBody(text: string): string {
  return JSON.stringify({ query: 'query ($text: String!) { echo(text: $text) }', variables: { text } });
}

/** POSTs `body` either with Content-Length or chunked (no Content-Length, written in two parts). */
function post(body: string, framing: 'content-length' | 'chunked'): Promise<{ status: number; json: { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (framing === 'content-length') headers['content-length'] = String(Buffer.byteLength(body));
    const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never }));
    });
    outgoing.on('error', reject);
    if (framing === 'chunked') {
      const half = Math.floor(body.length / 2);
      outgoing.write(body.slice(0, half));
      outgoing.end(body.slice(half));
    } else {
      outgoing.end(body);
    }
  });
}

describe.each(['content-length', 'chunked'] as const)('a body sent with %s', (framing) => {
  it('within the limit is executed', async () => {
    const answer = await post(echoBody('hello'), framing);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { echo: 'hello' } });
  });

  it('over the limit is refused with 413 and a GraphQL error', async () => {
    const answer = await post(echoBody('x'.repeat(limitBytes)), framing);
    expect(answer.status).toBe(413);
    expect(answer.json.data).toBeUndefined();
    expect(answer.json.errors).toEqual([
      { message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } },
    ]);
  });
});
