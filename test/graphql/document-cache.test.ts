/**
 * The parse and validation caches of createGraphServer (src/graphql/speed/document-cache.ts, given
 * to yoga as its parserAndValidationCache) and graphql-jit's compiled operations (speed/jit.ts):
 * a document is kept from its second occurrence on, then neither parsed nor validated again; a
 * stream of distinct documents keeps nothing and compiles nothing; the caches stay within their
 * entry and byte bounds. Real yoga servers over node:http; a plugin counts the parser's and the
 * validator's real calls, and graphql-jit's compilations are counted.
 */
import { createServer, type Server } from 'node:http';
import type * as NodeCrypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type * as GraphqlJit from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentCache, type DocumentCache } from '../../src/graphql/speed/document-cache.js';
import { createGraphServer } from '../../src/graphql/server.js';

// The real hash and the real compiler, counted: a cached document must be found without hashing
// its text, and only cached documents are compiled.
const calls = vi.hoisted(() => ({ hash: 0, compile: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof NodeCrypto>();
  return {
    ...crypto,
    hash: (...args: Parameters<typeof crypto.hash>) => {
      calls.hash += 1;
      return crypto.hash(...args);
    },
  };
});
vi.mock('graphql-jit', async (importOriginal) => {
  const jit = await importOriginal<typeof GraphqlJit>();
  return {
    ...jit,
    compileQuery: (...args: Parameters<typeof jit.compileQuery>) => {
      calls.compile += 1;
      return jit.compileQuery(...args);
    },
  };
});

interface Calls {
  parse: number;
  validate: number;
}

/** Counts the calls that reach the real parse and validate functions. */
function countCalls(counted: Calls): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        counted.parse += 1;
        return parseFn(source, options) as unknown;
      });
    },
    onValidate({ validateFn, setValidationFn }) {
      setValidationFn((...args: Parameters<typeof validateFn>) => {
        counted.validate += 1;
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
  const counted: Calls = { parse: 0, validate: 0 };
  const yoga = createGraphServer({
    typeDefs: 'type Query { hello(name: String): String! }',
    resolvers: { Query: { hello: (_: unknown, { name }: { name?: string }) => `hello ${name ?? 'world'}` } },
    plugins: [countCalls(counted)],
    documentCache: cache,
    jit: options.jit ?? false,
    logging: false,
  });
  const server = createServer((request, response) => void yoga(request, response));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    calls: counted,
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
    expect(cache.stats().documents).toBe(0); // seen once: only its key is remembered
    for (let i = 0; i < 4; i++) expect((await graph.post('{ hello }')).body).toEqual({ data: { hello: 'hello world' } });
    expect(graph.calls).toEqual({ parse: 2, validate: 2 });
    expect(cache.stats().documents).toBe(1);
  });

  it('finds a cached document by its text: no hash is computed for it any more', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache, { jit: true });
    for (const _occurrence of [1, 2]) await graph.post('{ hello }');
    expect(cache.stats().documents).toBe(1);
    const before = calls.hash;
    for (let i = 0; i < 5; i++) expect((await graph.post('{ hello }')).body).toEqual({ data: { hello: 'hello world' } });
    expect(calls.hash).toBe(before);
    // A document not cached yet is hashed (for the list of documents seen once).
    await graph.post('{ hello(name: "x") }');
    expect(calls.hash).toBe(before + 1);
  });

  it('keeps nothing of a stream of distinct documents, each seen once, valid or not, and compiles none', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache, { jit: true });
    const compiled = calls.compile;
    for (let i = 0; i < 30; i++) {
      expect((await graph.post(`{ hello(name: "${i}") }`)).status).toBe(200);
      expect((await graph.post(`{ hello(name: "${i}") `)).body.errors).toHaveLength(1); // syntax error
    }
    expect(cache.stats()).toEqual({ documents: 0, errors: 0, bytes: 0 });
    expect(calls.compile).toBe(compiled);
  });

  it('compiles a query once its document is cached, and once only', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache, { jit: true });
    const compiled = calls.compile;
    for (let i = 0; i < 5; i++) expect((await graph.post('{ a: hello(name: "jit") }')).body).toEqual({ data: { a: 'hello jit' } });
    expect(calls.compile).toBe(compiled + 1);
  });

  it('keeps a repeated parse failure within the same bounds, and answers it without parsing again', async () => {
    const cache = createDocumentCache();
    const graph = await serve(cache);
    for (let i = 0; i < 4; i++) expect((await graph.post('{ hello(name: "0") ')).body.errors).toHaveLength(1);
    expect(graph.calls.parse).toBe(2);
    expect(cache.stats().errors).toBe(1);
  });

  it('stays within its entry bound, dropping the least recently used document', async () => {
    const cache = createDocumentCache({ maxEntries: 5 });
    const graph = await serve(cache);
    for (let i = 0; i < 12; i++) for (const _occurrence of [1, 2]) await graph.post(`{ hello(name: "${i}") }`);
    expect(cache.stats().documents).toBe(5);
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
    // ~10 KB of text each (a comment) and 4 tokens (parsed and compiled, ~7.6 KB): two fit.
    for (let i = 0; i < 10; i++) for (const _occurrence of [1, 2]) await graph.post(`{ hello } # ${String(i).padEnd(10_000, '.')}`);
    expect(cache.stats().documents).toBe(2);
    expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
    // A document heavier than the whole budget is answered, and not kept.
    const heavy = `{ hello } # ${'.'.repeat(maxBytes)}`;
    for (const _occurrence of [1, 2]) expect((await graph.post(heavy)).body).toEqual({ data: { hello: 'hello world' } });
    expect(cache.stats().documents).toBe(2);
  });
});
