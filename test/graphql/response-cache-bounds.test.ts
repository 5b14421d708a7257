/**
 * The response cache's memory bounds (src/graphql/response-cache.ts): an answer is kept from its
 * request's second occurrence on, entries are evicted least recently used first once their bytes pass `maxBytes`, a response larger than `maxBytes` is never kept, and a
 * request body over `maxRequestBytes` bypasses the cache (yoga answers it, its body limit applies).
 * A hit is observed as a resolver that did not run again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResponseCache, type ResponseCache } from '../../src/graphql/response-cache.js';
import { createGraphServer } from '../../src/graphql/server.js';

let server: Server;
let cache: ResponseCache;
let baseUrl: string;
/** How often `text` ran, per requested size. */
const runs = new Map<number, number>();

beforeAll(async () => {
  // Room for two answers of ~120 bytes, not three; 300-byte request bodies at most.
  // Room for two entries of ~200 bytes (an answer of 100-102 characters, 120 bytes, and its key, the request, ~77), not three.
  cache = createResponseCache({ onChange: () => () => undefined }, { ttlMs: 60_000, maxBytes: 500, maxRequestBytes: 300 });
  const yoga = createGraphServer({
    typeDefs: 'type Query { text(size: Int!, pad: String): String! }',
    resolvers: {
      Query: {
        text: (_: unknown, { size }: { size: number }) => {
          runs.set(size, (runs.get(size) ?? 0) + 1);
          return 'x'.repeat(size);
        },
      },
    },
    plugins: [cache.plugin],
    logging: false,
  });
  server = createServer(cache.listener((request) => yoga.fetch(request), (request, response) => void yoga(request, response), () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(() => {
  cache.close();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

async function ask(size: number, pad = ''): Promise<void> {
  const response = await fetch(baseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: `{ text(size: ${size}, pad: "${pad}") }` }),
  });
  expect(response.status).toBe(200);
  expect(((await response.json()) as { data: { text: string } }).data.text).toHaveLength(size);
}

describe('response cache bounds', () => {
  it('keeps answers (from their second request on) while they fit in maxBytes and evicts the least recently used when they do not', async () => {
    for (let ask100 = 0; ask100 < 3; ask100 += 1) await ask(100);
    expect(runs.get(100)).toBe(2); // the first answer leaves only its key, the second is kept, the third is a hit
    for (let ask101 = 0; ask101 < 3; ask101 += 1) await ask(101);
    expect(runs.get(101)).toBe(2);
    await ask(102);
    await ask(102); // a third answer passes maxBytes: the answer for 100 goes
    await ask(102);
    await ask(101);
    expect(runs.get(102)).toBe(2);
    expect(runs.get(101)).toBe(2);
    await ask(100);
    expect(runs.get(100)).toBe(3);
  });

  it('a stream of distinct requests keeps nothing: it never evicts the answers clients repeat', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await ask(1);
    expect(runs.get(1)).toBe(2);
    for (let size = 10; size < 60; size += 1) await ask(size); // 50 distinct answers, each fitting the cache alone
    await ask(1);
    expect(runs.get(1)).toBe(2);
  });

  it('never keeps an answer larger than maxBytes', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await ask(500);
    expect(runs.get(500)).toBe(3);
  });

  it('passes a request body over maxRequestBytes through uncached', async () => {
    const pad = 'p'.repeat(300);
    for (let attempt = 0; attempt < 3; attempt += 1) await ask(7, pad);
    expect(runs.get(7)).toBe(3);
  });

  it('forgets every answer on clear() (a development server swapped its schema)', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await ask(3);
    expect(runs.get(3)).toBe(2);
    cache.clear();
    await ask(3);
    expect(runs.get(3)).toBe(3);
  });
});
