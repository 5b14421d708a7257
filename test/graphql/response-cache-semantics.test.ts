/**
 * What the response cache (src/graphql/speed/response-cache.ts) keeps and whom it gives it to, on a
 * real yoga server on 127.0.0.1: only query operations without errors; a key of its own for every
 * variable value, operation and caller scope; every plugin still runs on a hit; CORS headers computed
 * for each request; streamed answers still streamed; If-None-Match per RFC 9110, and each coding
 * compressed once. A hit is observed as a resolver that did not run again.
 */
import { request as httpRequest } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGraphServer } from '../../src/graphql/server.js';
import { createResponseCache, type ResponseCacheOptions } from '../../src/graphql/speed/response-cache.js';
import { createCompression } from '../../src/lib/compression.js';
import { listen, type Listening } from '../../src/lib/listen.js';

/** How often each field ran, by its argument. */
const runs = new Map<string, number>();
function ran(name: string): number {
  return runs.get(name) ?? 0;
}

const TYPE_DEFS = `
  type Query { text(name: String!, size: Int): String! failing(name: String!): String viewer: String }
  type Mutation { bump(name: String!): Int! }
`;

/** A yoga server with the cache, and `plugins` after it; `clear` is the cache's. */
async function serve(options: Partial<ResponseCacheOptions> & { plugins?: Plugin[] } = {}): Promise<Listening & { clear(): void }> {
  const { plugins = [], ...cacheOptions } = options;
  const cache = createResponseCache({ ttlMs: 60_000, ...cacheOptions });
  const count = (name: string) => runs.set(name, ran(name) + 1);
  const yoga = createGraphServer<{ user?: string }>({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        text: (_: unknown, { name, size }: { name: string; size?: number }) => {
          count(name);
          // Data changing while this request executes: its result is not kept.
          if (name === 'race') cache.clear();
          return name.padEnd(size ?? 0, '.');
        },
        failing: (_: unknown, { name }: { name: string }) => {
          count(name);
          throw new GraphQLError('this field failed');
        },
        viewer: (_: unknown, _args: unknown, context: { user?: string }) => (count('viewer'), context.user ?? null),
      },
      Mutation: { bump: (_: unknown, { name }: { name: string }) => (count(name), ran(name)) },
    },
    context: ({ request }) => ({ user: request.headers.get('x-user') ?? undefined }),
    plugins: [cache.plugin, ...plugins],
    logging: false,
  });
  return { ...(await listen(yoga)), clear: cache.clear };
}

let server: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  server = await serve();
});
afterAll(() => server.close());
beforeEach(() => runs.clear());

async function post(baseUrl: string, body: Record<string, unknown> | string, headers: Record<string, string> = {}): Promise<Response> {
  const payload = typeof body === 'string' ? { query: body } : body;
  return fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(payload) });
}

describe('what the response cache keeps', () => {
  it('keeps a query answer from its second request on (the same request runs twice, then never)', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) expect(await (await post(server.url, '{ text(name: "q") }')).json()).toEqual({ data: { text: 'q' } });
    expect(ran('q')).toBe(2);
  });

  it('never keeps the answer of a mutation: every POST of it executes', async () => {
    for (let attempt = 1; attempt <= 4; attempt += 1) expect(await (await post(server.url, 'mutation { bump(name: "m") }')).json()).toEqual({ data: { bump: attempt } });
    expect(ran('m')).toBe(4);
  });

  it('never keeps an answer with errors', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) expect((await (await post(server.url, '{ failing(name: "f") }')).json()).errors).toHaveLength(1);
    expect(ran('f')).toBe(4);
  });

  it('does not keep a result computed while the data changed (clear() during its execution)', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) await post(server.url, '{ text(name: "race") }');
    expect(ran('race')).toBe(4);
  });

  it('keys on the variables and the operation: each gets its own answer', async () => {
    const document = 'query A($name: String!) { text(name: $name) } query B { text(name: "b") }';
    for (let round = 0; round < 3; round += 1) {
      expect(await (await post(server.url, { query: document, operationName: 'A', variables: { name: 'v1' } })).json()).toEqual({ data: { text: 'v1' } });
      expect(await (await post(server.url, { query: document, operationName: 'A', variables: { name: 'v2' } })).json()).toEqual({ data: { text: 'v2' } });
      expect(await (await post(server.url, { query: document, operationName: 'B' })).json()).toEqual({ data: { text: 'b' } });
    }
    // Each ran twice (its second occurrence was kept), then was a hit.
    expect([ran('v1'), ran('v2'), ran('b')]).toEqual([2, 2, 2]);
  });

  it('gives no caller the answer of another: the key holds the scope of each, and no scope keeps nothing', async () => {
    const scoped = await serve({ scope: (context) => (context as { user?: string }).user });
    try {
      for (let round = 0; round < 3; round += 1) {
        expect(await (await post(scoped.url, '{ viewer }', { 'x-user': 'ann' })).json()).toEqual({ data: { viewer: 'ann' } });
        expect(await (await post(scoped.url, '{ viewer }', { 'x-user': 'bob' })).json()).toEqual({ data: { viewer: 'bob' } });
      }
      expect(ran('viewer')).toBe(4);
      for (let round = 0; round < 3; round += 1) expect(await (await post(scoped.url, '{ viewer }')).json()).toEqual({ data: { viewer: null } });
      expect(ran('viewer')).toBe(7);
    } finally {
      await scoped.close();
    }
  });

  it('runs every plugin on a hit: one after it changes each answer, and refuses what it refuses', async () => {
    let requests = 0;
    const stamping: Plugin = {
      onExecute({ args, setResultAndStopExecution }) {
        requests += 1;
        if ((args.contextValue as { user?: string }).user === 'blocked') setResultAndStopExecution({ errors: [new GraphQLError('refused')] });
        return { onExecuteDone: ({ result, setResult }) => setResult({ ...(result as object), extensions: { request: requests } }) };
      },
    };
    const stamped = await serve({ plugins: [stamping] });
    try {
      for (let attempt = 1; attempt <= 4; attempt += 1) expect(await (await post(stamped.url, '{ text(name: "stamped") }')).json()).toEqual({ data: { text: 'stamped' }, extensions: { request: attempt } });
      expect(ran('stamped')).toBe(2);
      expect((await (await post(stamped.url, '{ text(name: "stamped") }', { 'x-user': 'blocked' })).json()).errors).toEqual([{ message: 'refused' }]);
    } finally {
      await stamped.close();
    }
  });

  it('gives each origin the CORS headers computed for it, hits included', async () => {
    for (let round = 0; round < 3; round += 1) {
      const first = await post(server.url, '{ text(name: "cors") }', { origin: 'https://one.example' });
      const second = await post(server.url, '{ text(name: "cors") }', { origin: 'https://two.example' });
      expect(first.headers.get('access-control-allow-origin')).toBe('https://one.example');
      expect(second.headers.get('access-control-allow-origin')).toBe('https://two.example');
    }
    expect(ran('cors')).toBe(2);
  });

  it('streams a kept answer to a request accepting text/event-stream', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await post(server.url, '{ text(name: "stream") }');
    const response = await post(server.url, '{ text(name: "stream") }', { accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('etag')).toBeNull();
    expect(await response.text()).toContain('{"data":{"text":"stream"}}');
    expect(ran('stream')).toBe(2);
  });
});

describe('conditional requests on kept answers (RFC 9110 §13.1.2)', () => {
  const query = '{ text(name: "etag") }';

  it('tags a kept answer, and answers 304 to If-None-Match with a list, a weak tag or *, with the metadata of the 200 but no content headers', async () => {
    const origin = { origin: 'https://one.example' };
    expect((await post(server.url, query, origin)).headers.get('etag')).toBeNull(); // seen once: not kept
    const kept = await post(server.url, query, origin);
    const etag = kept.headers.get('etag') as string;
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
    expect(changed.headers.get('etag')).toBe(etag);
    expect(await changed.json()).toEqual({ data: { text: 'etag' } });
    expect(ran('etag')).toBe(2);
  });

  it('sends a 304 with no body that a plain HTTP client reads as such', async () => {
    await post(server.url, query);
    const etag = (await post(server.url, query)).headers.get('etag') as string;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const outgoing = httpRequest(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'if-none-match': etag } }, (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode));
      });
      outgoing.on('error', reject);
      outgoing.end(JSON.stringify({ query }));
    });
    expect(status).toBe(304);
  });
});

describe('a kept answer in a content coding', () => {
  it('is compressed once per coding, carries that coding\'s tag, and revalidates with any coding\'s tag', async () => {
    const compressed: string[] = [];
    const coded = await serve({ compression: createCompression({ onCompressed: (coding, effort) => compressed.push(`${coding}:${effort}`) }) });
    try {
      const query = '{ text(name: "coded", size: 4000) }';
      // fetch asks for gzip and deflate unless told otherwise.
      await post(coded.url, query, { 'accept-encoding': 'identity' });
      const identity = await post(coded.url, query, { 'accept-encoding': 'identity' });
      expect(identity.headers.get('content-encoding')).toBeNull();
      const etag = identity.headers.get('etag') as string;
      expect(identity.headers.get('vary')).toMatch(/Accept-Encoding/);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const inBrotli = await post(coded.url, query, { 'accept-encoding': 'br' });
        expect(inBrotli.headers.get('content-encoding')).toBe('br');
        expect(inBrotli.headers.get('etag')).toBe(`${etag.slice(0, -1)}-br"`);
        expect(((await inBrotli.json()) as { data: { text: string } }).data.text).toHaveLength(4000);
      }
      expect(compressed).toEqual(['br:kept']);
      expect((await post(coded.url, query, { 'accept-encoding': 'gzip', 'if-none-match': `${etag.slice(0, -1)}-br"` })).status).toBe(304);
      expect(ran('coded')).toBe(2);
    } finally {
      await coded.close();
    }
  });
});
