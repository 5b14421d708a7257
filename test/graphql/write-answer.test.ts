/**
 * writeAnswer (src/graphql/graph-answer.ts) encodes a text answer once and declares the length of
 * what it wrote: over a real server, for texts of every kind of UTF-8 sequence (fast-check strings
 * of any code points, lone surrogates included, which UTF-8 cannot carry and are written as U+FFFD
 * as node writes a string), short and long.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAnswer } from '../../src/graphql/graph-answer.js';
import { listen, type Listening } from '../../src/lib/listen.js';

let next = '';
let server: Listening;
beforeAll(async () => {
  server = await listen((request, response) => writeAnswer(request, response, { status: 200, headers: new Map([['content-type', 'application/json; charset=utf-8']]), body: next, query: true }));
});
afterAll(() => server.close());

function fetchRaw(): Promise<{ declared: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(server.url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ declared: Number(response.headers['content-length']), bytes: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

describe('writeAnswer', () => {
  it('writes a text answer as its UTF-8 bytes, with their exact Content-Length', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.oneof(fc.constant('é'), fc.constant('😀'), fc.constant('\ud800'), fc.constant('a'), fc.constant('\u20ac')), maxLength: 200 }), async (text) => {
        next = text;
        const { declared, bytes } = await fetchRaw();
        expect(bytes.equals(Buffer.from(text))).toBe(true);
        expect(declared).toBe(bytes.length);
      }),
      { numRuns: 200 },
    );
  });

  it('writes long answers the same way (beyond node\'s buffer pool, over 64 KiB of text)', async () => {
    for (const text of ['€'.repeat(4096), 'é'.repeat(64 * 1024), '😀'.repeat(40_000)]) {
      next = text;
      const { declared, bytes } = await fetchRaw();
      expect(bytes.equals(Buffer.from(text))).toBe(true);
      expect(declared).toBe(bytes.length);
    }
  });
});
