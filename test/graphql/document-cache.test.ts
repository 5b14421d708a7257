/**
 * The parse and validation cache of createGraphServer (src/graphql/document-cache.ts):
 * only documents that parsed and validated are kept, from their second occurrence on; a cached
 * document is neither parsed nor validated again; the cache stays within its entry and byte bounds,
 * graphql-jit's compiled operations included. Real yoga servers over node:http; a plugin counts the parser's and the
 * validator's real calls.
 */
import { createServer, type Server } from 'node:http';
import type * as NodeCrypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'graphql-yoga';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentCache, type DocumentCache } from '../../src/graphql/document-cache.js';
import { createGraphServer } from '../../src/graphql/server.js';

// The real hash, counted: a cached document must be found without hashing its text.
const hashCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof NodeCrypto>();
  return {
    ...crypto,
    hash: (...args: Parameters<typeof crypto.hash>) => {
      hashCalls.count += 1;
      return crypto.hash(...args);
    },
  };
});

interface Calls {
  parse: number;
  validate: number;
}

/** Counts the calls that reach the real parse and validate functions. */
function countCalls(calls: Calls): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        calls.parse += 1;
        return parseFn(source, options) as unknown;
      });
    },
    onValidate({ validateFn, setValidationFn }) {
      setValidationFn((...args: Parameters<typeof validateFn>) => {
        calls.validate += 1;
        return validateFn(...args) as unknown;
      });
    },
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(cache: DocumentCache, options: { jit?: boolean } = {}): Promise<{ calls: Calls; post(query: string): Promise<{ status: number; body: { data?: unknown; errors?: unknown[] } }> }> {
  const calls: Calls = { parse: 0, validate: 0 };
  const yoga = createGraphServer({
    typeDefs: 'type Query { hello(name: String): String! }',
    resolvers: { Query: { hello: (_: unknown, { name }: { name?: string }) => `hello ${name ?? 'world'}` } },
    plugins: [countCalls(calls)],
    documentCache: cache,
    jit: options.jit ?? false,
    logging: false,
  });
  const server = createServer((request, response) => void yoga(request, response));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    calls,
    async post(query) {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) });
      return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
    },
  };
}

describe('the document cache', () => {
  it('keeps a valid document from its second occurrence: later repeats are neither parsed nor validated', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache);
    expect((await graph.post('{ hello }')).body).toEqual({ data: { hello: 'hello world' } });
    expect(cache.stats().entries).toBe(0); // seen once: only its key is remembered
    for (let i = 0; i < 4; i++) expect((await graph.post('{ hello }')).body).toEqual({ data: { hello: 'hello world' } });
    expect(graph.calls).toEqual({ parse: 2, validate: 2 });
    expect(cache.stats().entries).toBe(1);
  });

  it('finds a cached document by its text: no hash is computed for it any more', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache, { jit: true });
    for (const _occurrence of [1, 2]) await graph.post('{ hello }');
    expect(cache.stats().entries).toBe(1);
    const before = hashCalls.count;
    for (let i = 0; i < 5; i++) expect((await graph.post('{ hello }')).body).toEqual({ data: { hello: 'hello world' } });
    expect(hashCalls.count).toBe(before);
    // A document not cached yet is hashed (for the list of documents seen once).
    await graph.post('{ hello(name: "x") }');
    expect(hashCalls.count).toBe(before + 1);
  });

  it('keeps nothing of a stream of distinct valid documents, each seen once', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache);
    for (let i = 0; i < 50; i++) expect((await graph.post(`{ hello(name: "${i}") }`)).status).toBe(200);
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it('keeps no document that failed to parse or to validate', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache);
    for (let i = 0; i < 20; i++) {
      expect((await graph.post(`{ hello(name: "${i}") `)).body.errors).toHaveLength(1); // syntax error
      expect((await graph.post(`{ hello(nickname: "${i}") }`)).body.errors).toHaveLength(1); // unknown argument
    }
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
    // A failure is not remembered either: the same invalid document is parsed again.
    const before = graph.calls.parse;
    await graph.post('{ hello(name: "0") ');
    expect(graph.calls.parse).toBe(before + 1);
  });

  it('stays within its entry bound, dropping the least recently used document', async () => {
    const cache = createDocumentCache({ maxEntries: 5 });
    const graph = await serve(cache);
    for (let i = 0; i < 12; i++) for (const _occurrence of [1, 2]) await graph.post(`{ hello(name: "${i}") }`);
    expect(cache.stats().entries).toBe(5);
    const parsed = graph.calls.parse;
    await graph.post('{ hello(name: "11") }'); // among the 5 most recent
    expect(graph.calls.parse).toBe(parsed);
    await graph.post('{ hello(name: "0") }'); // dropped long ago
    expect(graph.calls.parse).toBe(parsed + 1);
  });

  it('stays within its byte bound, weighing each document by its text and its tokens', async () => {
    const maxBytes = 50_000;
    const cache = createDocumentCache({ maxBytes });
    const graph = await serve(cache);
    // ~10 KB of text each (a comment), 4 tokens: ~11.6 KB of weight, so four fit.
    for (let i = 0; i < 10; i++) for (const _occurrence of [1, 2]) await graph.post(`{ hello } # ${String(i).padEnd(10_000, '.')}`);
    expect(cache.stats().entries).toBe(4);
    expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
    // A document heavier than the whole budget is answered, and not kept.
    const heavy = `{ hello } # ${'.'.repeat(maxBytes)}`;
    for (const _occurrence of [1, 2]) expect((await graph.post(heavy)).body).toEqual({ data: { hello: 'hello world' } });
    expect(cache.stats().entries).toBe(4);
  });

  it('charges graphql-jit’s compiled operations to their document, within the same byte bound', async () => {
    const maxBytes = 2_000_000;
    const cache = createDocumentCache({ maxBytes });
    const graph = await serve(cache, { jit: true });
    // 40 fields with an argument: 322 tokens, weighing ~130 KB parsed and ~480 KB more once compiled.
    const document = (i: number) => `{ ${Array.from({ length: 40 }, (_, field) => `f${field}: hello(name: "${i}")`).join(' ')} }`;
    const parsedOnly = createDocumentCache();
    const reference = await serve(parsedOnly);
    for (const _occurrence of [1, 2]) {
      await graph.post(document(0));
      await reference.post(document(0));
    }
    expect(cache.stats().bytes).toBeGreaterThan(3 * parsedOnly.stats().bytes);

    for (let i = 1; i < 40; i++) {
      for (const _occurrence of [1, 2, 3]) {
        const { body } = await graph.post(document(i));
        expect((body.data as Record<string, string>).f39).toBe(`hello ${i}`);
      }
    }
    expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.stats().entries).toBeLessThan(40);
  });
});
