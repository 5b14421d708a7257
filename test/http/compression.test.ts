/**
 * Compressed answers over real HTTP (src/lib/compression.ts, content-coding.ts, tagged-body.ts), the
 * whole app in sandbox mode. Bodies are fetched with node:http and decoded with node's zlib, byte for
 * byte against the identity body; fetch (node's, and the undici package the shipped client uses)
 * decodes by itself, so its answers are checked by their Content-Encoding and decoded text.
 *
 * How often a body is compressed is read from the app's own metric,
 * `http_response_compressions_total{coding, effort}`: a warm REST representation and a response-cache
 * hit are compressed once per snapshot and coding (effort="kept"), an answer made for one request
 * every time (effort="answer").
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelApp } from '../../src/app.js';
import { ISSUE_QUERY, LARGE_QUERY } from '../../bench/lib/graph-server.js';
import { zlibCodings, type ContentCoding } from '../../src/lib/compression.js';
import { startGraphApp } from '../graphql/graph-harness.js';
import { startSandboxApp } from './harness.js';

const CODINGS = zlibCodings();
const zstdDecompressSync = (zlib as typeof zlib & { zstdDecompressSync?: (buffer: Buffer) => Buffer }).zstdDecompressSync;
const DECODE: Record<ContentCoding, (bytes: Buffer) => Buffer> = {
  br: zlib.brotliDecompressSync,
  gzip: zlib.gunzipSync,
  zstd: (bytes) => (zstdDecompressSync as (buffer: Buffer) => Buffer)(bytes),
};

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request over node:http: the body exactly as it came over the wire (nothing decoded). */
function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** The body decoded as its Content-Encoding says (none: as it is). */
function decoded(response: Raw): Buffer {
  const coding = response.headers['content-encoding'] as ContentCoding | undefined;
  return coding === undefined ? response.body : DECODE[coding](response.body);
}

/** Vary names Accept-Encoding (node joins repeated Vary lines with ", "). */
function variesOnEncoding(response: Raw): boolean {
  return /(^|,)\s*accept-encoding\s*(,|$)/i.test(String(response.headers.vary ?? ''));
}

/** The app's count of bodies compressed in `coding` at `effort`. */
async function compressions(app: ChannelApp, coding: ContentCoding, effort: 'kept' | 'answer'): Promise<number> {
  const line = new RegExp(`^http_response_compressions_total\\{coding="${coding}",effort="${effort}"\\} (\\d+)$`, 'm').exec(await app.metrics());
  return Number(line?.[1] ?? 0);
}

async function cacheHits(app: ChannelApp): Promise<number> {
  return Number(/^graphql_response_cache_lookups_total\{result="hit"\} (\d+)$/m.exec(await app.metrics())?.[1] ?? 0);
}

const graphHeaders = (acceptEncoding: string): Record<string, string> => ({ 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': acceptEncoding });
const issueBody = JSON.stringify({ query: ISSUE_QUERY });

describe('the REST representations (sandbox dataset: a 4 KB supporters list)', () => {
  let started: Awaited<ReturnType<typeof startSandboxApp>>;
  let url: string;
  let identity: Raw;
  beforeAll(async () => {
    started = await startSandboxApp();
    url = `${started.app.url}/membership/pledges`;
    identity = await raw(url, { headers: { 'accept-encoding': 'identity' } });
  });
  afterAll(() => started.close());

  it('is answered in identity to a request that asks for no coding, with Vary: Accept-Encoding', async () => {
    expect(identity.status).toBe(200);
    expect(identity.body.length).toBeGreaterThan(1024);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(variesOnEncoding(identity)).toBe(true);
    expect(Number(identity.headers['content-length'])).toBe(identity.body.length);
    const absent = await raw(url);
    expect(absent.headers['content-encoding']).toBeUndefined();
    expect(absent.body.equals(identity.body)).toBe(true);
  });

  it.each(CODINGS)('in %s: decodes byte for byte to the identity body, with a tag of its own', async (coding) => {
    const response = await raw(url, { headers: { 'accept-encoding': coding } });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe(coding);
    expect(variesOnEncoding(response)).toBe(true);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    expect(response.body.length).toBeLessThan(identity.body.length / 3);
    expect(DECODE[coding](response.body).equals(identity.body)).toBe(true);
    expect(response.headers.etag).toBe(`${String(identity.headers.etag).slice(0, -1)}-${coding}"`);
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/); // the contract's ETag alphabet
    expect(response.headers['content-type']).toBe(identity.headers['content-type']);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it('decodes in fetch, node\'s and the undici package\'s (gzip by default over http, br when asked)', async () => {
    const text = identity.body.toString('utf8');
    for (const client of [fetch, undiciFetch] as const) {
      const plain = await client(url);
      expect(plain.headers.get('content-encoding')).toBe('gzip');
      expect(await plain.text()).toBe(text);
      const brotli = await client(url, { headers: { 'accept-encoding': 'br' } });
      expect(brotli.headers.get('content-encoding')).toBe('br');
      expect(await brotli.text()).toBe(text);
    }
  });

  it.each([
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'],
    ['*', 'br'],
    ['*;q=0.1, gzip;q=0.2', 'gzip'],
    ['*;q=0', undefined],
    ['identity;q=1, br;q=0.5', undefined],
    ['deflate, compress', undefined],
    ['X-GZIP', 'gzip'],
    ['', undefined],
  ])('Accept-Encoding %j → %s', async (acceptEncoding, expected) => {
    const response = await raw(url, { headers: { 'accept-encoding': acceptEncoding } });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe(expected);
    expect(variesOnEncoding(response)).toBe(true);
    expect(decoded(response).equals(identity.body)).toBe(true);
  });

  it.runIf(CODINGS.includes('zstd'))('zstd where node has it, by weight', async () => {
    const response = await raw(url, { headers: { 'accept-encoding': 'br;q=0.5, zstd, gzip;q=0.8' } });
    expect(response.headers['content-encoding']).toBe('zstd');
    expect(decoded(response).equals(identity.body)).toBe(true);
  });

  it.each(['gzip;q=2', 'br;level=11', 'gzip;q=0.5;q=1', '"br"', 'br, gzip ; q = 1', ';', 'gzip;q=0.0001'])('a malformed Accept-Encoding (%j) gets the identity body, never an error', async (acceptEncoding) => {
    const response = await raw(url, { headers: { 'accept-encoding': acceptEncoding } });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(variesOnEncoding(response)).toBe(true);
    expect(response.body.equals(identity.body)).toBe(true);
  });

  it('HEAD gets the identity head (its length and tag, no coding) with the Vary, and no body', async () => {
    const head = await raw(url, { method: 'HEAD', headers: { 'accept-encoding': 'br, gzip' } });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(identity.body.length));
    expect(head.headers.etag).toBe(identity.headers.etag);
    expect(variesOnEncoding(head)).toBe(true);
  });

  it('answers 304 when If-None-Match names the body in any coding, carrying the tag named', async () => {
    const tags = new Map<string, string>([['identity', String(identity.headers.etag)]]);
    for (const coding of CODINGS) tags.set(coding, String((await raw(url, { headers: { 'accept-encoding': coding } })).headers.etag));
    expect(new Set(tags.values()).size).toBe(tags.size);
    for (const asked of ['identity', ...CODINGS]) {
      for (const [heldCoding, held] of tags) {
        for (const ifNoneMatch of [held, `W/${held}`, `"elsewhere", ${held}`]) {
          const response = await raw(url, { headers: { 'accept-encoding': asked, 'if-none-match': ifNoneMatch } });
          expect(response.status, `${asked} holding ${heldCoding} (${ifNoneMatch})`).toBe(304);
          expect(response.body.length).toBe(0);
          expect(response.headers.etag).toBe(held);
          expect(response.headers['content-encoding']).toBeUndefined();
          expect(variesOnEncoding(response)).toBe(true);
        }
      }
      // `*`: the client holds the body; the 304 names the coding this request gets.
      const any = await raw(url, { headers: { 'accept-encoding': asked, 'if-none-match': '*' } });
      expect(any.status).toBe(304);
      expect(any.headers.etag).toBe(tags.get(asked));
    }
    const stale = await raw(url, { headers: { 'accept-encoding': 'br', 'if-none-match': '"elsewhere-br", "elsewhere"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers['content-encoding']).toBe('br');
  });

  it('sends a body under 1 KiB as it is, without Vary (/video/stats, /healthz)', async () => {
    for (const path of ['/video/stats', '/healthz']) {
      const response = await raw(`${started.app.url}${path}`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(response.status).toBe(200);
      expect(response.body.length).toBeLessThan(1024);
      expect(response.headers['content-encoding'], path).toBeUndefined();
      expect(response.headers.vary, path).toBeUndefined();
    }
  });

  it('compresses a warm body once per coding, and again only once its snapshot changed', async () => {
    await started.app.store.refresh('membership');
    const before = { br: await compressions(started.app, 'br', 'kept'), gzip: await compressions(started.app, 'gzip', 'kept') };
    const first = await Promise.all(Array.from({ length: 10 }, () => raw(url, { headers: { 'accept-encoding': 'br' } })));
    await Promise.all(Array.from({ length: 10 }, () => raw(url, { headers: { 'accept-encoding': 'gzip' } })));
    expect(await compressions(started.app, 'br', 'kept')).toBe(before.br + 1);
    expect(await compressions(started.app, 'gzip', 'kept')).toBe(before.gzip + 1);
    for (const response of first) expect(response.body.equals(first[0]!.body)).toBe(true);

    await started.app.store.refresh('membership');
    const changed = await Promise.all(Array.from({ length: 5 }, () => raw(url, { headers: { 'accept-encoding': 'br' } })));
    expect(await compressions(started.app, 'br', 'kept')).toBe(before.br + 2);
    expect(changed[0]!.headers.etag).not.toBe(first[0]!.headers.etag);
    expect(JSON.parse(DECODE.br(changed[0]!.body).toString('utf8'))).toMatchObject({ stale: false });
  });

  it('never compresses GET /events (server-sent events, written event by event)', async () => {
    const response = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const outgoing = httpRequest(`${started.app.url}/events`, { headers: { 'accept-encoding': 'gzip, br', accept: 'text/event-stream' } }, (incoming) => {
        resolve(incoming.headers);
        incoming.destroy();
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(response['content-type']).toMatch(/^text\/event-stream/);
    expect(response['content-encoding']).toBeUndefined();
  });

  it('compresses /metrics (per request) and the overlay\'s script (once); the overlay page is under 1 KiB', async () => {
    const metrics = await raw(`${started.app.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
    expect(metrics.headers['content-encoding']).toBe('gzip');
    expect(variesOnEncoding(metrics)).toBe(true);
    expect(decoded(metrics).toString('utf8')).toMatch(/^# TYPE http_response_compressions_total counter$/m);

    const script = await raw(`${started.app.url}/overlay/overlay.js`, { headers: { 'accept-encoding': 'br' } });
    const plainScript = await raw(`${started.app.url}/overlay/overlay.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(script.headers['content-encoding']).toBe('br');
    expect(DECODE.br(script.body).equals(plainScript.body)).toBe(true);
    expect(script.headers['content-security-policy']).toBe(plainScript.headers['content-security-policy']);

    const page = await raw(`${started.app.url}/overlay/`, { headers: { 'accept-encoding': 'br' } });
    expect(page.body.length).toBeLessThan(1024);
    expect(page.headers['content-encoding']).toBeUndefined();
  });
});

describe('the GraphQL answers (sandbox dataset: the issue query answers 6 KB)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let url: string;
  beforeAll(async () => {
    started = await startGraphApp();
    url = `${started.app.url}/graphql`;
  });
  afterAll(() => started.close());

  it('a response-cache hit is compressed once per coding and decodes to the first answer', async () => {
    const query = '{ supporters { id name amountCents since tier { title } } }';
    const body = JSON.stringify({ query });
    const first = await raw(url, { method: 'POST', headers: graphHeaders('identity'), body });
    expect(first.status).toBe(200);
    expect(first.body.length).toBeGreaterThan(1024);
    expect(first.headers['content-encoding']).toBeUndefined();
    const kept = await raw(url, { method: 'POST', headers: graphHeaders('identity'), body }); // the second occurrence is kept, and tagged
    expect(kept.body.equals(first.body)).toBe(true);
    const hitsBefore = await cacheHits(started.app);
    const keptBefore = await compressions(started.app, 'br', 'kept');
    const hits = await Promise.all(Array.from({ length: 5 }, () => raw(url, { method: 'POST', headers: graphHeaders('br'), body })));
    expect(await cacheHits(started.app)).toBe(hitsBefore + 5);
    expect(await compressions(started.app, 'br', 'kept')).toBe(keptBefore + 1);
    for (const hit of hits) {
      expect(hit.headers['content-encoding']).toBe('br');
      expect(variesOnEncoding(hit)).toBe(true);
      expect(DECODE.br(hit.body).equals(first.body)).toBe(true);
      expect(hit.headers.etag).toBe(`${String(kept.headers.etag).slice(0, -1)}-br"`);
    }
    // Revalidation across codings: the identity tag held, a gzip request → 304 with that tag.
    const revalidated = await raw(url, { method: 'POST', headers: { ...graphHeaders('gzip'), 'if-none-match': String(kept.headers.etag) }, body });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(kept.headers.etag);
  });

  it('fetch decodes a cached answer like any other', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: issueBody })));
    const texts = await Promise.all(answers.map((answer) => answer.text()));
    for (const answer of answers) expect(answer.headers.get('content-encoding')).toBe('gzip');
    expect(new Set(texts).size).toBe(1);
    expect(JSON.parse(texts[0]!)).toMatchObject({ data: { supporters: expect.any(Array) } });
  });
});

describe('the GraphQL answers made per request (response cache off)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let url: string;
  beforeAll(async () => {
    started = await startGraphApp({ responseCache: false, graphiql: true });
    url = `${started.app.url}/graphql`;
  });
  afterAll(() => started.close());

  it('a prepared answer is compressed for each request at the fast level, decoding to the identity answer', async () => {
    const identity = await raw(url, { method: 'POST', headers: graphHeaders('identity'), body: issueBody });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(variesOnEncoding(identity)).toBe(true);
    const before = await compressions(started.app, 'gzip', 'answer');
    for (let repeat = 0; repeat < 4; repeat += 1) {
      const response = await raw(url, { method: 'POST', headers: graphHeaders('gzip, deflate'), body: issueBody });
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(response.headers.etag).toBeUndefined();
      expect(DECODE.gzip(response.body).equals(identity.body)).toBe(true);
    }
    expect(await compressions(started.app, 'gzip', 'answer')).toBe(before + 4);
    // What a browser sends: a kept body would come in brotli, an answer made per request in the
    // cheapest coding it accepts (zstd where node has it, else gzip).
    const browser = await raw(url, { method: 'POST', headers: graphHeaders('gzip, deflate, br, zstd'), body: issueBody });
    const cheapest = CODINGS.includes('zstd') ? 'zstd' : 'gzip';
    expect(browser.headers['content-encoding']).toBe(cheapest);
    expect(DECODE[cheapest](browser.body).equals(identity.body)).toBe(true);
  });

  it('yoga\'s own answers are compressed too (a GET query, GraphiQL\'s page), HEAD and small ones are not', async () => {
    const get = `${url}?query=${encodeURIComponent(ISSUE_QUERY)}`;
    const identity = await raw(get, { headers: { accept: 'application/json', 'accept-encoding': 'identity' } });
    const brotli = await raw(get, { headers: { accept: 'application/json', 'accept-encoding': 'br' } });
    expect(identity.status).toBe(200);
    expect(variesOnEncoding(identity)).toBe(true);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(variesOnEncoding(brotli)).toBe(true);
    expect(Number(brotli.headers['content-length'])).toBe(brotli.body.length);
    expect(DECODE.br(brotli.body).equals(identity.body)).toBe(true);

    const page = await raw(url, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    const plainPage = await raw(url, { headers: { accept: 'text/html', 'accept-encoding': 'identity' } });
    expect(plainPage.headers['content-type']).toMatch(/^text\/html/);
    expect(plainPage.body.length).toBeGreaterThan(1024);
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(DECODE.gzip(page.body).equals(plainPage.body)).toBe(true);

    const small = await raw(`${url}?query=${encodeURIComponent('{ stats { subscribers } }')}`, { headers: { accept: 'application/json', 'accept-encoding': 'br' } });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary ?? '').not.toMatch(/accept-encoding/i);
  });
});

describe('a large answer (2,000 patrons: over 64 KiB, compressed on the thread pool)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let cacheOff: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({}, { patrons: 2000 });
    cacheOff = await startGraphApp({ responseCache: false }, { patrons: 2000 });
  });
  afterAll(async () => {
    await started.close();
    await cacheOff.close();
  });

  it('prepared: each request\'s large answer decodes to the identity answer', async () => {
    const url = `${cacheOff.app.url}/graphql`;
    const body = JSON.stringify({ query: LARGE_QUERY });
    const identity = await raw(url, { method: 'POST', headers: graphHeaders('identity'), body });
    expect(identity.body.length).toBeGreaterThan(64 * 1024);
    for (const coding of CODINGS) {
      const responses = await Promise.all([1, 2, 3].map(() => raw(url, { method: 'POST', headers: graphHeaders(coding), body })));
      for (const response of responses) {
        expect(response.headers['content-encoding']).toBe(coding);
        expect(response.body.length).toBeLessThan(identity.body.length / 5);
        expect(DECODE[coding](response.body).equals(identity.body)).toBe(true);
      }
    }
  });

  it('kept: concurrent first requests of a coding share one compression, cache hits and the warm REST list alike', async () => {
    const url = `${started.app.url}/graphql`;
    const body = JSON.stringify({ query: LARGE_QUERY });
    const identity = await raw(url, { method: 'POST', headers: graphHeaders('identity'), body });
    await raw(url, { method: 'POST', headers: graphHeaders('identity'), body });
    const rest = `${started.app.url}/membership/pledges?sort=amount`;
    const restIdentity = await raw(rest, { headers: { 'accept-encoding': 'identity' } });
    expect(restIdentity.body.length).toBeGreaterThan(64 * 1024);
    const before = await compressions(started.app, 'gzip', 'kept');
    const [graphAnswers, restAnswers] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => raw(url, { method: 'POST', headers: graphHeaders('gzip'), body }))),
      Promise.all(Array.from({ length: 6 }, () => raw(rest, { headers: { 'accept-encoding': 'gzip' } }))),
    ]);
    expect(await compressions(started.app, 'gzip', 'kept')).toBe(before + 2);
    for (const answer of graphAnswers) expect(DECODE.gzip(answer.body).equals(identity.body)).toBe(true);
    for (const answer of restAnswers) expect(DECODE.gzip(answer.body).equals(restIdentity.body)).toBe(true);
  });
});

describe('COMPRESSION=false', () => {
  let started: Awaited<ReturnType<typeof startSandboxApp>>;
  beforeAll(async () => {
    started = await startSandboxApp({}, { compression: false });
  });
  afterAll(() => started.close());

  it('answers every request in identity, without Vary, and compresses nothing', async () => {
    const rest = await raw(`${started.app.url}/membership/pledges`, { headers: { 'accept-encoding': 'br, gzip' } });
    const graph = await raw(`${started.app.url}/graphql`, { method: 'POST', headers: graphHeaders('br, gzip'), body: issueBody });
    const metrics = await raw(`${started.app.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
    for (const response of [rest, graph, metrics]) {
      expect(response.status).toBe(200);
      expect(response.body.length).toBeGreaterThan(1024);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers.vary ?? '').not.toMatch(/accept-encoding/i);
    }
    expect(JSON.parse(graph.body.toString('utf8'))).toMatchObject({ data: { supporters: expect.any(Array) } });
    expect(metrics.body.toString('utf8')).not.toMatch(/^http_response_compressions_total\{/m);
  });
});
