/**
 * GRAPHQL_MAX_DOCUMENT_BYTES (src/graphql/plugins/document-limit.ts) over HTTP against the whole app: a
 * document over the limit is refused before it is lexed (413 for a POST, 414 for a GET, each with a
 * GraphQL error), a document of exactly the limit runs, also as a percent-encoded GET, and the POST
 * body limit follows from the document limit, refusing a declared length before reading the body.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ALLOWANCE_BYTES } from '../../src/graphql/plugins/document-limit.js';
import { postGraph, startGraphApp } from './graph-harness.js';

const LIMIT = 64 * 1024;

/** A valid query padded with a comment to exactly `bytes` bytes (UTF-8). */
function documentOf(bytes: number, filler = '.'): string {
  const query = '{ stats { subscribers } }\n#';
  return query + filler.repeat(bytes - query.length);
}

async function get(baseUrl: string, query: string): Promise<{ status: number; body: { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } }> {
  const response = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as never };
}

describe('the default document limit (64 KiB)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({ responseCache: false });
  });
  afterAll(() => started.close());

  it('runs a document of exactly 65,536 bytes', async () => {
    const { status, body } = await postGraph(started.app.url, { query: documentOf(LIMIT) });
    expect(status).toBe(200);
    expect(body.data).toEqual({ stats: { subscribers: expect.any(Number) } });
  });

  it('refuses a POSTed document of 65,537 bytes with 413 and a GraphQL error', async () => {
    const { status, body } = await postGraph(started.app.url, { query: documentOf(LIMIT + 1) });
    expect(status).toBe(413);
    expect(body).toEqual({
      errors: [{ message: 'The GraphQL document is 65537 bytes; this server accepts documents of up to 65536 bytes.', extensions: { code: 'DOCUMENT_TOO_LARGE' } }],
    });
  });

  it('counts bytes, not characters', async () => {
    // A 27-character query and 21,846 three-byte characters: 21,873 characters, 65,565 bytes.
    const query = documentOf(27 + 21_846, '€');
    expect([query.length, Buffer.byteLength(query)]).toEqual([21_873, 65_565]);
    const { status, body } = await postGraph(started.app.url, { query });
    expect(status).toBe(413);
    expect(body.errors?.[0]?.extensions?.code).toBe('DOCUMENT_TOO_LARGE');
  });

  it('runs a GET of exactly 65,536 bytes fully percent-encoded (196 KB of URL)', async () => {
    const { status, body } = await get(started.app.url, documentOf(LIMIT, ' '));
    expect(status).toBe(200);
    expect(body.data).toEqual({ stats: { subscribers: expect.any(Number) } });
  });

  it('refuses a GET document of 65,537 bytes with 414 and a GraphQL error', async () => {
    const { status, body } = await get(started.app.url, documentOf(LIMIT + 1));
    expect(status).toBe(414);
    expect(body.errors).toEqual([{ message: 'The GraphQL document is 65537 bytes; this server accepts documents of up to 65536 bytes.', extensions: { code: 'DOCUMENT_TOO_LARGE' } }]);
  });

  it('answers a declared body over limit + allowance with 413 at once, without reading the body', async () => {
    const { port } = new URL(started.app.url);
    // Headers only, announcing 50 MB: the answer arrives although not one byte of the body was sent.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(50_000_000) } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body });
          outgoing.destroy();
        });
      });
      outgoing.on('error', reject);
      outgoing.flushHeaders();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
  });
});

describe('GRAPHQL_MAX_DOCUMENT_BYTES=1000', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({ responseCache: false, maxDocumentBytes: 1000 });
  });
  afterAll(() => started.close());

  it('applies to POST and GET, and moves the body limit with it', async () => {
    expect((await postGraph(started.app.url, { query: documentOf(1000) })).status).toBe(200);
    expect((await postGraph(started.app.url, { query: documentOf(1001) })).status).toBe(413);
    expect((await get(started.app.url, documentOf(1000))).status).toBe(200);
    expect((await get(started.app.url, documentOf(1001))).status).toBe(414);
    // A body of 1,000 + allowance bytes is read, one byte more is refused by the body limit, whatever it holds.
    const bodyOf = (bytes: number) => {
      const base = JSON.stringify({ query: '{ stats { subscribers } }', extensions: { padding: '' } }).length;
      return { query: '{ stats { subscribers } }', extensions: { padding: 'x'.repeat(bytes - base) } };
    };
    expect((await postGraph(started.app.url, bodyOf(1000 + REQUEST_ALLOWANCE_BYTES))).status).toBe(200);
    const { status, body } = await postGraph(started.app.url, bodyOf(1000 + REQUEST_ALLOWANCE_BYTES + 1));
    expect(status).toBe(413);
    expect(body.errors?.[0]?.extensions?.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });
});
