import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOf, postGraph, query, startGraphApp } from './graph-harness.js';

/** The persisted-documents manifest emitted by codegen: served, runnable by id, and (optionally) the only thing that runs. */
const manifestText = readFileSync(new URL('../../generated/client/persisted-documents.json', import.meta.url), 'utf8');
const manifest = JSON.parse(manifestText) as Record<string, string>;

function idOf(operationName: string): string {
  const entry = Object.entries(manifest).find(([, document]) => document.includes(`query ${operationName}(`) || document.includes(`query ${operationName} `));
  if (!entry) throw new Error(`no ${operationName} in the manifest`);
  return entry[0];
}

const SUPPORTERS = idOf('Supporters');
const STATS = idOf('ChannelStatistics');

describe('trusted documents, arbitrary documents allowed (default)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('serves the codegen manifest at GET /graphql/persisted-documents.json', async () => {
    const response = await fetch(`${started.app.url}/graphql/persisted-documents.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(manifest);
  });

  it('runs a document by documentId (prefixed or bare) and by extensions.persistedQuery, like its text', async () => {
    const variables = { platform: 'VIDEO' };
    const byText = await query(started.app.url, manifest[SUPPORTERS]!, variables);
    expect(byText.errors).toBeUndefined();
    expect(byText.data!.supporters.length).toBeGreaterThan(0);
    const bare = SUPPORTERS.replace(/^sha256:/, '');
    for (const payload of [{ documentId: SUPPORTERS }, { documentId: bare }, { extensions: { persistedQuery: { version: 1, sha256Hash: bare } } }]) {
      const { body } = await postGraph(started.app.url, { ...payload, variables });
      expect(body).toEqual(byText);
    }
  });

  it('runs a document by id on GET', async () => {
    const response = await fetch(`${started.app.url}/graphql?documentId=${encodeURIComponent(STATS)}`, { headers: { accept: 'application/json' } });
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.stats).toEqual({ subscribers: expect.any(Number), fetchedAt: expect.any(String), stale: false });
  });

  it('refuses an id that is not in the manifest', async () => {
    const { body } = await postGraph(started.app.url, { documentId: `sha256:${'0'.repeat(64)}` });
    expect(body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/not in the persisted-documents manifest/), extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_FOUND' }) })]);
  });
});

describe('GRAPHQL_TRUSTED_DOCUMENTS_ONLY=true', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({ trustedDocumentsOnly: true });
  });
  afterAll(() => started.close());

  it('refuses a document sent as text, even one that is in the manifest', async () => {
    for (const text of ['{ supporters { id } }', manifest[STATS]!]) {
      const { body } = await postGraph(started.app.url, { query: text });
      expect(body.data ?? null).toBeNull();
      expect(body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/Only trusted documents run on this server/), extensions: expect.objectContaining({ code: 'TRUSTED_DOCUMENTS_ONLY' }) })]);
    }
  });

  it('runs the manifest’s documents by id', async () => {
    const { body } = await postGraph(started.app.url, { documentId: SUPPORTERS, variables: { platform: 'MEMBERSHIP', orderBy: 'AMOUNT' } });
    expect(body.errors).toBeUndefined();
    expect(listOf<{ __typename: string }>(body.data!.supporters).every((s) => s.__typename === 'Patron')).toBe(true);
  });
});
