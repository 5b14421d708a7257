/**
 * GraphiQL's files (src/graphql/graphiql/graphiql-assets.ts): a small page referencing content-hashed files
 * under /graphql/graphiql/, each served with a year of immutable caching and the encoding the
 * request's Accept-Encoding prefers (brotli, gzip, or none), decoding to the very same bytes.
 * GraphiQL is off unless asked for (production default); test/browser runs the page in Chromium.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphApp } from './graph-harness.js';

const asBrowser = { accept: 'text/html,application/xhtml+xml' };

describe('GraphiQL served as separate files (GRAPHQL_GRAPHIQL=true)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let page: string;
  let files: string[];
  beforeAll(async () => {
    started = await startGraphApp({ graphiql: true });
    page = await (await fetch(`${started.app.url}/graphql`, { headers: asBrowser })).text();
    files = [...page.matchAll(/(?:src|href)="([^"]+)"/g), ...page.matchAll(/"(\/graphql\/graphiql\/[^"]+)"/g)].map((match) => match[1]!);
  });
  afterAll(() => started.close());

  it('is a page under 2 KB that references hashed files under /graphql/graphiql/', () => {
    expect(Buffer.byteLength(page)).toBeLessThan(2_000);
    expect(page).toContain('<title>Channel graph</title>');
    expect(new Set(files).size).toBe(6); // script, stylesheet, favicon, three editor workers
    for (const file of files) expect(file).toMatch(/^\/graphql\/graphiql\/[\w.]+\.[0-9a-f]{12}\.(js|css|ico)$/);
  });

  it('serves every file with a year of immutable caching, compressed as Accept-Encoding prefers', async () => {
    for (const file of files) {
      const plain = await fetch(`${started.app.url}${file}`, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.status, file).toBe(200);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.headers.get('vary')).toBe('Accept-Encoding');
      expect(plain.headers.get('content-encoding')).toBeNull();
      const bytes = Buffer.from(await plain.arrayBuffer());

      for (const [acceptEncoding, decode] of [
        ['gzip, deflate, br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        // node:http, not fetch: fetch would decode the body itself.
        const { headers, body } = await rawGet(`${started.app.url}${file}`, acceptEncoding);
        const encoding = headers['content-encoding'];
        if (encoding === undefined) {
          expect(body.equals(bytes), `${file} ${acceptEncoding}`).toBe(true); // not worth compressing
          continue;
        }
        expect(encoding).toBe(acceptEncoding === 'gzip' ? 'gzip' : 'br');
        expect(body.length).toBeLessThan(bytes.length);
        expect(decode(body).equals(bytes), `${file} decoded from ${encoding}`).toBe(true);
      }
    }
  });

  it('compresses the script to a fraction of its size', async () => {
    const script = files.find((file) => /\/graphiql\.[0-9a-f]{12}\.js$/.test(file))!;
    const plain = await rawGet(`${started.app.url}${script}`, 'identity');
    const brotli = await rawGet(`${started.app.url}${script}`, 'br');
    expect(plain.body.length).toBeGreaterThan(4_000_000);
    expect(brotli.body.length).toBeLessThan(plain.body.length / 2.5);
  });

  it('answers HEAD without a body, an unknown file with 404, and other methods with 405', async () => {
    const head = await fetch(`${started.app.url}${files[0]}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect((await fetch(`${started.app.url}/graphql/graphiql/graphiql.000000000000.js`)).status).toBe(404);
    const post = await fetch(`${started.app.url}${files[0]}`, { method: 'POST', body: '' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('GraphiQL by default (production)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('is off: a browser gets no GraphiQL page (the page saying it is off) and no files', async () => {
    const page = await fetch(`${started.app.url}/graphql`, { headers: asBrowser });
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('GraphiQL is off');
    expect(html).not.toMatch(/<script/);
    expect((await fetch(`${started.app.url}/graphql/graphiql/graphiql.000000000000.js`)).status).toBe(404);
  });
});

function rawGet(url: string, acceptEncoding: string): Promise<{ headers: Record<string, string | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
