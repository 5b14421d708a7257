/**
 * Every malformed request to /graphql gets a 4xx whose body is a GraphQL error, never a 500, and no
 * answer carries a stack trace or a file path outside development. Against the whole
 * app with the settings `npm start` has (production), unless a test says otherwise.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraph, startGraphApp } from './graph-harness.js';

type Started = Awaited<ReturnType<typeof startGraphApp>>;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, any> }> };
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as ReturnType<Answer['json']> };
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

function post(baseUrl: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: GRAPHQL_RESPONSE, ...headers }, body });
}

function get(baseUrl: string, query: string, accept = 'application/json'): Promise<Answer> {
  return send(`${baseUrl}/graphql?${query}`, { headers: { accept } });
}

/** One raw HTTP/1.1 request (for a Host header no HTTP client would send); the status line and body. */
function rawRequest(baseUrl: string, head: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [statusLine = '', ...rest] = received.split('\r\n');
      resolve({ status: Number(statusLine.split(' ')[1]), body: rest.join('\r\n').split('\r\n\r\n').slice(1).join('\r\n\r\n') });
    });
  });
}

/** A stack frame, an absolute path or a source location: what no production answer may contain. */
const LEAK = /\n\s+at |file:\/\/|node_modules|\/work\/|\/home\/|[\w-]+\.[cm]?[jt]s:\d+/;

const q = (text: string) => `query=${encodeURIComponent(text)}`;

describe('malformed requests, production defaults (graphql-jit on)', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('a mutation is a 400 GraphQL error (graphql-jit runs only what the schema has), not a 500', async () => {
    const answer = await post(started.app.url, JSON.stringify({ query: 'mutation { stats { subscribers } }' }));
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      errors: [{ message: 'This server does not support mutation operations: its schema has no mutation type.', locations: [{ line: 1, column: 1 }], extensions: { code: 'OPERATION_TYPE_NOT_SUPPORTED' } }],
    });
  });

  it('a subscription over plain JSON (no stream) is a 406 GraphQL error naming the streaming transports', async () => {
    const answer = await post(started.app.url, JSON.stringify({ query: 'subscription { statsChanged { subscribers } }' }));
    expect(answer.status).toBe(406);
    expect(answer.json().errors?.[0]).toMatchObject({ message: expect.stringContaining('text/event-stream'), extensions: { code: 'SUBSCRIPTION_NEEDS_STREAM' } });
  });

  it('a mutation (the schema has none) is a 400 GraphQL error, not a 500', async () => {
    const answer = await post(started.app.url, JSON.stringify({ query: 'mutation { stats { subscribers } }' }));
    expect(answer.status).toBe(400);
    expect(answer.json().errors?.[0]?.extensions?.code).toBe('OPERATION_TYPE_NOT_SUPPORTED');
  });

  it('a mutation over GET is a 405 with Allow: POST', async () => {
    const answer = await get(started.app.url, q('mutation { stats { subscribers } }'), GRAPHQL_RESPONSE);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(answer.json().errors?.[0]?.message).toBe('Can only perform a mutation operation from a POST request.');
  });

  it.each([
    ['variables that are not JSON', 'variables=%7Bnope', 'The "variables" parameter is not valid JSON: send a JSON object.'],
    ['variables that are a JSON array', 'variables=%5B1%5D', 'Expected "variables" param to be empty or an object, but given array.'],
    ['extensions that are not JSON', 'extensions=nope', 'The "extensions" parameter is not valid JSON: send a JSON object.'],
    ['extensions that are a JSON number', 'extensions=3', 'Expected "extensions" param to be empty or an object, but given number.'],
  ])('GET with %s is a 400 GraphQL error', async (_case, parameter, message) => {
    const answer = await get(started.app.url, `${q('{ stats { subscribers } }')}&${parameter}`);
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('a form-encoded POST with variables that are not JSON is a 400 GraphQL error', async () => {
    const answer = await post(started.app.url, `${q('{ stats { subscribers } }')}&variables=%7B`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(answer.status).toBe(400);
    expect(answer.json().errors?.[0]?.message).toBe('The "variables" parameter is not valid JSON: send a JSON object.');
  });

  it.each(['exa mple', 'example.com:99999', '1.2.3.256', '[zz]', 'user@example.com', ''])('a malformed Host header (%j) is a 400 GraphQL error, not a 500 with a stack trace', async (host) => {
    const answer = await rawRequest(started.app.url, `GET /graphql?${q('{ stats { subscribers } }')} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ errors: [{ message: 'The Host header is not a valid host[:port].', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('a 415 names the media types the endpoint reads', async () => {
    const answer = await post(started.app.url, '{ stats { subscribers } }', { 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('accept')).toMatch(/^application\/json, /);
    const [error] = answer.json().errors ?? [];
    expect(error?.extensions?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    for (const type of ['application/json', 'application/graphql+json', 'application/graphql', 'application/x-www-form-urlencoded']) expect(error?.message).toContain(type);
  });

  it('a 406 names the media types the endpoint answers with', async () => {
    const answer = await post(started.app.url, JSON.stringify({ query: '{ stats { subscribers } }' }), { accept: 'text/plain' });
    expect(answer.status).toBe(406);
    const [error] = answer.json().errors ?? [];
    expect(error?.extensions?.code).toBe('NOT_ACCEPTABLE');
    for (const type of ['application/graphql-response+json', 'application/json', 'multipart/mixed', 'text/event-stream']) expect(error?.message).toContain(type);
  });

  it('a body that is not JSON is a plain 400 GraphQL error, without extensions.originalError', async () => {
    for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
      const answer = await post(started.app.url, '{"query": "{ stats { subscribers } }"', { accept });
      expect(answer.status, accept).toBe(400);
      expect(answer.json()).toEqual({ errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] });
    }
  });
});

describe('subscriptions with graphql-jit off', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp({ jit: false });
  });
  afterAll(() => started.close());

  it('over plain JSON are a 406 GraphQL error, not a 200 without data', async () => {
    const answer = await post(started.app.url, JSON.stringify({ query: 'subscription { statsChanged { subscribers } }' }));
    expect(answer.status).toBe(406);
    expect(answer.json().errors?.[0]?.extensions?.code).toBe('SUBSCRIPTION_NEEDS_STREAM');
  });
});

describe('development mode, chosen explicitly', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp({ development: true, maskErrors: false });
  });
  afterAll(() => started.close());

  it('keeps the JSON parser’s message in extensions.originalError', async () => {
    const answer = await post(started.app.url, '{"query": ');
    expect(answer.status).toBe(400);
    expect(answer.json().errors?.[0]?.extensions?.originalError).toMatchObject({ name: 'SyntaxError', message: expect.any(String) });
  });
});

/** Every malformed request above, in one list, for the sweep below. */
function malformedRequests(baseUrl: string): Array<Promise<Answer | { status: number; body: string }>> {
  const body = (text: string, headers: Record<string, string> = {}) => post(baseUrl, text, headers);
  return [
    body(JSON.stringify({ query: 'mutation { stats { subscribers } }' })),
    body(JSON.stringify({ query: 'subscription { statsChanged { subscribers } }' })),
    body(JSON.stringify({ query: '{ stats { subscriber } }' })),
    body(JSON.stringify({ query: '{ stats { subscribers } ' })),
    body(JSON.stringify({ query: '{ stats { subscribers } }', variables: [1] })),
    body(JSON.stringify({ query: 'query ($id: String!) { patron(id: $id) { name } }', variables: { id: 7 } })),
    body(JSON.stringify({ query: 'query A { stats { subscribers } } query B { stats { subscribers } }' })),
    body(JSON.stringify({ query: '{ stats { subscribers } }', operationName: 'Missing' })),
    body(JSON.stringify({ query: 42 })),
    body(JSON.stringify([{ query: '{ stats { subscribers } }' }])),
    body('null'),
    body('{"query": '),
    body('{ stats }', { 'content-type': 'text/plain' }),
    body(JSON.stringify({ query: '{ stats { subscribers } }' }), { accept: 'image/png' }),
    body(JSON.stringify({ documentId: 'sha256:0000' })),
    get(baseUrl, `${q('{ stats { subscribers } }')}&variables=%7B`),
    get(baseUrl, `${q('{ stats { subscribers } }')}&extensions=%5B`),
    get(baseUrl, 'query='),
    get(baseUrl, q('mutation { stats { subscribers } }')),
    send(`${baseUrl}/graphql`, { method: 'PUT', body: '{}' }),
    send(`${baseUrl}/graphql/nothing-here`),
    rawRequest(baseUrl, `GET /graphql?${q('{ stats { subscribers } }')} HTTP/1.1\r\nHost: bad host`),
  ];
}

describe.each([
  ['production defaults', {}],
  ['production with graphql-jit off', { jit: false }],
  ['production with GRAPHQL_MASK_ERRORS=false', { maskErrors: false }],
])('no stack trace, no file path, no 5xx: %s', (_name, settings) => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp(settings);
  });
  afterAll(() => started.close());

  it('in any answer to a malformed request', async () => {
    const answers = await Promise.all(malformedRequests(started.app.url));
    for (const answer of answers) {
      const text = 'text' in answer ? answer.text : answer.body;
      expect(answer.status, text).toBeGreaterThanOrEqual(200);
      expect(answer.status, text).toBeLessThan(500);
      expect(text).not.toMatch(LEAK);
    }
    // The sweep does reach the graph: a valid request still answers.
    expect((await postGraph(started.app.url, { query: '{ stats { subscribers } }' })).body.errors).toBeUndefined();
  });
});
