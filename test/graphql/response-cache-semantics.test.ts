/**
 * What the response cache (src/graphql/response-cache.ts) keeps and what it replays, in front of a
 * real yoga server on 127.0.0.1: least-recently-used eviction, only query operations, one entry per
 * origin (CORS headers never replayed to another origin), streamed answers never buffered, no
 * hop-by-hop header replayed, If-None-Match per RFC 9110. A hit is observed as a resolver that did
 * not run again.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createResponseCache, type FetchHandler } from '../../src/graphql/response-cache.js';
import { createGraphServer } from '../../src/graphql/server.js';
import { listen, type Listening } from '../../src/lib/listen.js';

/** How often each field ran, by its argument. */
const runs = new Map<string, number>();
function ran(name: string): number {
  return runs.get(name) ?? 0;
}

function createServer(options: { maxBytes?: number; wrap?: (handle: FetchHandler) => FetchHandler } = {}) {
  const cache = createResponseCache({ onChange: () => () => undefined }, { ttlMs: 60_000, maxBytes: options.maxBytes ?? 1_000_000 });
  const count = (name: string) => runs.set(name, ran(name) + 1);
  const yoga = createGraphServer({
    typeDefs: 'type Query { text(name: String!, size: Int): String! } type Mutation { bump(name: String!): Int! }',
    resolvers: {
      Query: { text: (_: unknown, { name, size }: { name: string; size?: number }) => (count(name), name.padEnd(size ?? 0, '.')) },
      Mutation: { bump: (_: unknown, { name }: { name: string }) => (count(name), ran(name)) },
    },
    plugins: [cache.plugin],
    logging: false,
  });
  const fetchHandler: FetchHandler = (request) => yoga.fetch(request);
  const handle = options.wrap ? options.wrap(fetchHandler) : fetchHandler;
  return { cache, listener: cache.listener(handle, (request, response) => void yoga(request, response), () => undefined) };
}

let server: Listening;
let closeCache: () => void;
beforeAll(async () => {
  const { cache, listener } = createServer();
  closeCache = cache.close;
  server = await listen(listener);
});
afterAll(async () => {
  closeCache();
  await server.close();
});
beforeEach(() => runs.clear());

async function post(baseUrl: string, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify({ query }) });
}

/** A raw HTTP/1.1 exchange: the status line and header block exactly as the server wrote them. */
function rawExchange(url: string, requestText: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(requestText));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

function headerNames(rawResponse: string): string[] {
  return rawResponse
    .slice(0, rawResponse.indexOf('\r\n\r\n'))
    .split('\r\n')
    .slice(1)
    .map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
}

describe('response cache eviction', () => {
  it('evicts the least recently used entry, not the oldest', async () => {
    // Room for two entries of this size, not three: an answer (60 bytes) and its key (the request, 78 characters).
    const { cache, listener } = createServer({ maxBytes: 340 });
    const small = await listen(listener);
    try {
      const ask = async (name: string) => expect((await (await post(small.url, `{ text(name: "${name}", size: 40) }`)).json()).data.text).toMatch(new RegExp(`^${name}`));
      // Each answer is kept from its second request on.
      await ask('a');
      await ask('a');
      await ask('b');
      await ask('b');
      await ask('a'); // a hit: "a" is now the most recently used
      await ask('c');
      await ask('c'); // kept, passes maxBytes: "b" goes, "a" stays
      await ask('a');
      await ask('c');
      expect([ran('a'), ran('b'), ran('c')]).toEqual([2, 2, 2]);
      await ask('b');
      expect(ran('b')).toBe(3);
    } finally {
      cache.close();
      await small.close();
    }
  });
});

describe('what the response cache keeps', () => {
  it('never stores the answer of a mutation: every POST of it executes', async () => {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const response = await post(server.url, 'mutation { bump(name: "m") }');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { bump: attempt } });
    }
    expect(ran('m')).toBe(3);
  });

  it('keeps a query answer from its second request on (the same request runs twice, then never)', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) expect((await post(server.url, '{ text(name: "q") }')).status).toBe(200);
    expect(ran('q')).toBe(2);
  });

  it('keys on the Origin: each origin gets the CORS headers computed for it, hits included', async () => {
    const query = '{ text(name: "cors") }';
    // Three rounds: the second request of each origin is kept, the third is a hit.
    for (let round = 0; round < 3; round += 1) {
      const first = await post(server.url, query, { origin: 'https://one.example' });
      const second = await post(server.url, query, { origin: 'https://two.example' });
      expect(first.headers.get('access-control-allow-origin')).toBe('https://one.example');
      expect(second.headers.get('access-control-allow-origin')).toBe('https://two.example');
      expect(second.headers.get('vary')).toBe('Origin');
    }
    // Two executions per origin: the third request of each origin was a hit.
    expect(ran('cors')).toBe(4);
  });

  it('does not keep an answer that varies on a request header outside its key', async () => {
    const { cache, listener } = createServer({
      wrap: (handle) => async (request) => {
        const response = await handle(request);
        response.headers.set('Vary', 'Accept-Encoding');
        return response;
      },
    });
    const varying = await listen(listener);
    try {
      for (let attempt = 0; attempt < 2; attempt += 1) expect((await post(varying.url, '{ text(name: "vary") }')).status).toBe(200);
      expect(ran('vary')).toBe(2);
    } finally {
      cache.close();
      await varying.close();
    }
  });
});

describe('streamed answers and connection headers', () => {
  it.each([
    ['multipart/mixed', 'incremental delivery'],
    ['text/event-stream', 'server-sent events'],
  ])('passes a request accepting %s (%s) to the server, which streams it: chunked, no Content-Length', async (accept) => {
    const body = JSON.stringify({ query: '{ text(name: "stream") }' });
    const requestText = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${accept}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await rawExchange(server.url, requestText);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      const names = headerNames(answer);
      expect(names).toContain('transfer-encoding');
      expect(names).not.toContain('content-length');
      expect(answer).toContain('{"data":{"text":"stream"}}');
    }
    expect(ran('stream')).toBe(2);
  });

  it('never replays hop-by-hop headers, whatever their case, nor the fields Connection names', async () => {
    const { cache, listener } = createServer({
      wrap: (handle) => async (request) => {
        const response = await handle(request);
        response.headers.set('Transfer-Encoding', 'chunked');
        response.headers.set('Connection', 'X-Per-Connection');
        response.headers.set('X-Per-Connection', 'yes');
        response.headers.set('Keep-Alive', 'timeout=5');
        return response;
      },
    });
    const hopping = await listen(listener);
    try {
      const body = JSON.stringify({ query: '{ text(name: "hop") }' });
      const requestText = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const answer = await rawExchange(hopping.url, requestText);
        const names = headerNames(answer);
        expect(names).toContain('content-length');
        expect(names).not.toContain('transfer-encoding');
        expect(names).not.toContain('keep-alive');
        expect(names).not.toContain('x-per-connection');
        expect(answer.endsWith('{"data":{"text":"hop"}}')).toBe(true);
      }
      expect(ran('hop')).toBe(2); // the third answer was a hit
    } finally {
      cache.close();
      await hopping.close();
    }
  });
});

describe('conditional requests on cached answers (RFC 9110 §13.1.2)', () => {
  const query = '{ text(name: "etag") }';

  it('answers 304 to If-None-Match with a list, a weak tag or *, with the metadata of the 200 but no content headers', async () => {
    const origin = { origin: 'https://one.example' };
    const first = await post(server.url, query, origin);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, `"a",W/${etag} , "b"`, '*']) {
      const revalidated = await post(server.url, query, { ...origin, 'if-none-match': ifNoneMatch });
      expect(revalidated.status, ifNoneMatch).toBe(304);
      expect(revalidated.headers.get('etag')).toBe(etag);
      expect(revalidated.headers.get('access-control-allow-origin')).toBe('https://one.example');
      expect(revalidated.headers.get('content-type')).toBeNull();
    }
    const changed = await post(server.url, query, { ...origin, 'if-none-match': '"other", W/"another"' });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ data: { text: 'etag' } });
  });

  it('sends a 304 with no body that a plain HTTP client reads as such', async () => {
    const etag = (await post(server.url, query)).headers.get('etag')!;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const body = JSON.stringify({ query });
      const outgoing = httpRequest(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'if-none-match': etag } }, (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode));
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    expect(status).toBe(304);
  });
});
