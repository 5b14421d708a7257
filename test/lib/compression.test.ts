/**
 * src/lib/compression.ts: the codings the running node offers (zstd only where zlib has it), what
 * is negotiated at all (size, media type, on/off), and bodies compressed at once up to 64 KiB and on
 * the thread pool above, each decoding with node's zlib to the very bytes given.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  createCompression, isCompressibleType, MAX_SYNC_COMPRESSED_BYTES, MIN_COMPRESSED_BYTES, NO_COMPRESSION, writeNegotiated, zlibCodings, type ContentCoding,
} from '../../src/lib/compression.js';

/** zlib's zstd decoder where node has one (node 22.15 / 23.8 on). */
const zstdDecompressSync = (zlib as typeof zlib & { zstdDecompressSync?: (buffer: Buffer) => Buffer }).zstdDecompressSync;

const DECODERS: Record<ContentCoding, (bytes: Buffer) => Buffer> = {
  br: zlib.brotliDecompressSync,
  gzip: zlib.gunzipSync,
  zstd: (bytes) => {
    if (zstdDecompressSync === undefined) throw new Error('no zstd in this node');
    return zstdDecompressSync(bytes);
  },
};

/** JSON-like text of `length` bytes that compresses as an answer does (repeated keys, varying values). */
function jsonLike(length: number): Buffer {
  let text = '[';
  for (let i = 0; text.length < length; i += 1) text += `{"id":"${(i * 2654435761) % 1e9}","name":"n${i % 97}","amountCents":${(i * 37) % 5000}},`;
  return Buffer.from(text.slice(0, length));
}

describe('zlibCodings', () => {
  it('offers br and gzip, and zstd exactly where the running node\'s zlib has it', () => {
    const codings = zlibCodings();
    expect(codings).toContain('br');
    expect(codings).toContain('gzip');
    expect(codings.includes('zstd')).toBe(typeof (zlib as { zstdCompress?: unknown }).zstdCompress === 'function');
    expect(createCompression().codings).toEqual(codings);
  });
});

describe('createCompression', () => {
  const compression = createCompression();

  it('negotiates 1 KiB or more of a compressible type, and nothing when off', () => {
    expect(compression.negotiates(MIN_COMPRESSED_BYTES, 'application/json; charset=utf-8')).toBe(true);
    expect(compression.negotiates(MIN_COMPRESSED_BYTES - 1, 'application/json; charset=utf-8')).toBe(false);
    expect(compression.negotiates(10_000, 'text/event-stream')).toBe(false);
    expect(compression.negotiates(10_000, undefined)).toBe(false);
    const off = createCompression({ enabled: false });
    expect(off.codings).toEqual([]);
    expect(off.negotiates(10_000, 'application/json')).toBe(false);
    expect(off.codingOf('br, gzip', 'kept')).toBe('identity');
    expect(NO_COMPRESSION.codingOf('gzip', 'answer')).toBe('identity');
  });

  it('negotiates among the codings it offers: for a kept body the smallest first, for an answer the cheapest', () => {
    const browser = 'gzip, deflate, br, zstd';
    expect(compression.codingOf(browser, 'kept')).toBe('br');
    expect(compression.codingOf(browser, 'answer')).toBe(zlibCodings().includes('zstd') ? 'zstd' : 'gzip');
    expect(compression.codingOf('br', 'answer')).toBe('br');
    expect(compression.codingOf('gzip;q=0.5, br', 'answer')).toBe('br');
    expect(createCompression({ codings: ['gzip'] }).codingOf(browser, 'kept')).toBe('gzip');
    expect(createCompression({ codings: ['gzip', 'br'] }).codings).toEqual(['br', 'gzip']);
    expect(compression.codingOf(undefined, 'kept')).toBe('identity');
  });

  it.each(zlibCodings())('%s: up to 64 KiB at once, above on the thread pool; either decodes to the same bytes', async (coding) => {
    const counted: string[] = [];
    const counting = createCompression({ onCompressed: (done, effort) => counted.push(`${done}:${effort}`) });
    for (const effort of ['kept', 'answer'] as const) {
      const small = jsonLike(MAX_SYNC_COMPRESSED_BYTES);
      const atOnce = counting.compress(coding, small, effort);
      expect(atOnce).toBeInstanceOf(Buffer);
      expect(DECODERS[coding](atOnce as Buffer).equals(small)).toBe(true);
      expect((atOnce as Buffer).length).toBeLessThan(small.length / 3);

      const large = jsonLike(MAX_SYNC_COMPRESSED_BYTES + 1);
      const later = counting.compress(coding, large, effort);
      expect(later).toBeInstanceOf(Promise);
      expect(DECODERS[coding](await later).equals(large)).toBe(true);
    }
    expect(counted).toEqual([`${coding}:kept`, `${coding}:kept`, `${coding}:answer`, `${coding}:answer`]);
  });

  it('refuses a coding it does not offer', () => {
    expect(() => createCompression({ codings: ['gzip'] }).compress('br', jsonLike(2000), 'answer')).toThrow(/not offered/);
  });
});

describe('isCompressibleType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['application/problem+json', true],
    ['application/graphql-response+json; charset=utf-8', true],
    ['text/plain; version=0.0.4; charset=utf-8', true],
    ['text/html; charset=utf-8', true],
    ['text/javascript; charset=utf-8', true],
    ['text/css', true],
    ['image/svg+xml', true],
    ['text/event-stream', false],
    ['multipart/mixed; boundary="-"', false],
    ['image/x-icon', false],
    ['image/png', false],
    ['application/octet-stream', false],
    ['application/jsonx', false],
    ['', false],
  ])('%j → %s', (contentType, expected) => {
    expect(isCompressibleType(contentType)).toBe(expected);
  });
});

describe('writeNegotiated', () => {
  it('adds Accept-Encoding to the answer\'s own Vary, also after a header was set with setHeader', async () => {
    const compression = createCompression();
    const body = jsonLike(4096);
    // The request id is set with setHeader before the handler runs: node then merges writeHead's list name by name.
    const server = createServer((request, response) => {
      response.setHeader('x-request-id', 'id-1');
      writeNegotiated(request, response, compression, 200, ['content-type', 'application/json', 'vary', 'Origin'], body, 'application/json');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      for (const acceptEncoding of ['gzip', 'identity']) {
        const answer = await fetch(url, { headers: { 'accept-encoding': acceptEncoding } });
        expect(answer.headers.get('vary'), acceptEncoding).toBe('Origin, Accept-Encoding');
        expect(answer.headers.get('x-request-id')).toBe('id-1');
        expect(Buffer.from(await answer.arrayBuffer())).toEqual(body);
      }
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
