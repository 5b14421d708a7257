/**
 * The response cache's memory bounds (src/graphql/speed/response-cache.ts): an answer is kept from
 * its request's second occurrence on, entries are evicted least recently used first once their
 * bytes pass `maxBytes`, a response larger than `maxBytes` is never kept, and an answer's compressed
 * codings count in its bytes. A hit is observed as a resolver that did not run again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphServer } from '../../src/graphql/server.js';
import { createResponseCache, type ResponseCache } from '../../src/graphql/speed/response-cache.js';
import { createCompression } from '../../src/lib/compression.js';
import { listen, type Listening } from '../../src/lib/listen.js';

let server: Listening;
let cache: ResponseCache;
let baseUrl: string;
/** How often `text` ran, per requested size. */
const runs = new Map<number, number>();

beforeAll(async () => {
  // Room for two entries of ~157 bytes (an answer of 100-102 characters, 119-121 bytes, and its key, ~37), not three.
  cache = createResponseCache({ ttlMs: 60_000, maxBytes: 400 });
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
  server = await listen(yoga);
  baseUrl = `${server.url}/graphql`;
});
afterAll(() => server.close());

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

  it('forgets every answer on clear() (the data they were made of changed)', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await ask(3);
    expect(runs.get(3)).toBe(2);
    cache.clear();
    await ask(3);
    expect(runs.get(3)).toBe(3);
  });
});

describe('response cache bounds with compression', () => {
  /**
   * Room for two answers of 2,000 characters in identity (each ~2,050 bytes with its key) and 700
   * bytes more: not for one of them in brotli besides (about 1,500 bytes: the text is random letters
   * and digits, which compress to about three quarters).
   */
  const maxBytes = 2 * 2_050 + 700;
  const counted = new Map<string, number>();
  let compressedServer: Listening;
  beforeAll(async () => {
    const compressedCache = createResponseCache({ ttlMs: 60_000, maxBytes, compression: createCompression() });
    const yoga = createGraphServer({
      typeDefs: 'type Query { noise(seed: Int!): String! }',
      resolvers: {
        Query: {
          noise: (_: unknown, { seed }: { seed: number }) => {
            counted.set(String(seed), (counted.get(String(seed)) ?? 0) + 1);
            let state = seed;
            let text = '';
            while (text.length < 2_000) {
              state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
              text += 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[state % 62];
            }
            return text;
          },
        },
      },
      plugins: [compressedCache.plugin],
      logging: false,
    });
    compressedServer = await listen(yoga);
  });
  afterAll(() => compressedServer.close());

  async function noise(seed: number, acceptEncoding: string): Promise<string | null> {
    const response = await fetch(`${compressedServer.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': acceptEncoding },
      body: JSON.stringify({ query: `{ noise(seed: ${seed}) }` }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { noise: string } }).data.noise).toHaveLength(2_000);
    return response.headers.get('content-encoding');
  }

  it('counts an answer\'s compressed bytes: adding a coding evicts the least recently used answer', async () => {
    for (const seed of [1, 2]) for (let ask = 0; ask < 3; ask += 1) expect(await noise(seed, 'identity')).toBeNull();
    expect([counted.get('1'), counted.get('2')]).toEqual([2, 2]); // both kept: each third request was a hit
    // Answer 1 in brotli: its entry grows past the bound, and answer 2, used least recently, goes.
    expect(await noise(1, 'br')).toBe('br');
    expect(await noise(1, 'br')).toBe('br');
    expect(counted.get('1')).toBe(2);
    expect(await noise(2, 'identity')).toBeNull();
    expect(counted.get('2')).toBe(3);
  });
});
