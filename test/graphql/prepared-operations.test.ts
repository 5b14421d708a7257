/**
 * Prepared operations (src/graphql/prepared-operations.ts): a repeated query is answered without
 * yoga's per-request pipeline, and its answers are yoga's.
 *
 * - Against the channel graph: fast-check sends sequences of requests (documents with and without
 *   variables and operation names, variables that coerce and that do not, Accept and Origin headers,
 *   bodies with extensions or odd members), each three times, to two servers over the same snapshot
 *   store on 127.0.0.1 — one with prepared operations, one without — and requires the same status,
 *   headers and bytes every time — with the response cache off, and on (its misses are prepared);
 *   both compress as fetch asks (gzip), so the compressed answers are compared too.
 * - Against a small yoga server: a shape's third request no longer reaches yoga (counted by an
 *   onParams hook) while its resolver still runs with the request's own variables; errors, an
 *   evicted document and a body with extensions go back to yoga.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_GRAPH_PARTS, createChannelGraphHandler, type ChannelGraphHandler } from '../../src/graphql/channel-graph.js';
import { createDocumentCache } from '../../src/graphql/document-cache.js';
import type { Execution } from '../../src/graphql/jit.js';
import { createPreparedOperations } from '../../src/graphql/prepared-operations.js';
import { withReadBody } from '../../src/graphql/read-body-listener.js';
import { createYogaAnswers } from '../../src/graphql/yoga-answers.js';
import { createGraphServer } from '../../src/graphql/server.js';
import { createCompression, NO_COMPRESSION } from '../../src/lib/compression.js';
import { listen, type Listening } from '../../src/lib/listen.js';
import { testConfig } from '../http/harness.js';
import { startGraphApp } from './graph-harness.js';

interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers that describe the connection or the moment, not the answer. */
const PER_EXCHANGE = new Set(['date', 'connection', 'keep-alive', 'x-request-id']);

async function exchange(baseUrl: string, body: string, headers: Record<string, string>): Promise<Exchange> {
  const response = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_EXCHANGE.has(name)) kept[name] = value;
  });
  return { status: response.status, headers: kept, body: await response.text() };
}

describe.each([
  ['the response cache off (every answer executed)', { responseCache: false }],
  ['the response cache on (the default: prepared operations answer its misses)', { responseCache: true }],
  ['trusted-documents mode (a query sent as text is refused, so never prepared)', { responseCache: false, trustedDocumentsOnly: true }],
])('prepared operations answer as yoga does (channel graph, two servers over one store), %s', (_name, overrides) => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let reference: ChannelGraphHandler;
  let referenceServer: Listening;
  beforeAll(async () => {
    const settings = { ...testConfig('').graph, jit: true, ...overrides };
    started = await startGraphApp(settings);
    // Compressed as the app compresses (fetch asks for gzip): yoga's own answers through the same levels.
    reference = createChannelGraphHandler(
      { store: started.app.store, settings, compression: createCompression(), logger: { debug() {}, info() {}, warn() {}, error() {} } },
      { ...CHANNEL_GRAPH_PARTS, preparedOperations: undefined },
    );
    referenceServer = await listen((request, response) => reference.requestListener(request, response));
  });
  afterAll(async () => {
    await referenceServer.close();
    await reference.dispose();
    await started.close();
  });

  const documents = [
    '{ supporters { __typename id name amountCents tier { title } ... on Patron { lifetimeCents } } }',
    'query($p: Platform) { supporters(platform: $p) { id name } }',
    'query Top($p: Platform) { topSupporter(platform: $p) { name amountCents } }',
    'query Stats { stats { subscribers } } query Tiers { tiers(platform: MEMBERSHIP) { title amountCents } }',
    'query Patron($id: String!) { patron(id: $id) { name tier { title } } }',
    'fragment S on Supporter { id name } query($p: Platform) { supporters(platform: $p) { ...S } }',
    'subscription { statsChanged { subscribers } }',
    'mutation { nope }',
    '{ supporters { id',
  ];
  const variables = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.record({ p: fc.constantFrom('MEMBERSHIP', 'VIDEO', null, 'NOPE', 42, ['VIDEO']) }, { requiredKeys: [] }),
    fc.record({ id: fc.constantFrom('patron-1', 'patron-2', 'nobody', 7) }, { requiredKeys: [] }),
  );
  const operationName = fc.constantFrom(undefined, null, 'Stats', 'Tiers', 'Top', 'Patron', 'Nope', '');
  const extra = fc.constantFrom({}, {}, {}, { extensions: {} }, { documentId: 'x' }, { other: 1 });
  const accept = fc.constantFrom(undefined, 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', '*/*', 'text/plain');
  const origin = fc.constantFrom(undefined, undefined, 'https://overlay.example', 'https://other.example');
  const request = fc.record({ query: fc.constantFrom(...documents), variables, operationName, extra, accept, origin }).map(({ query, variables: values, operationName: name, extra: more, accept: acceptHeader, origin: originHeader }) => ({
    body: JSON.stringify({ query, ...(values !== undefined && { variables: values }), ...(name !== undefined && { operationName: name }), ...more }),
    headers: { ...(acceptHeader !== undefined && { accept: acceptHeader }), ...(originHeader !== undefined && { origin: originHeader }) },
  }));

  it('the same status, headers and bytes for every request, the first, the second and the prepared ones', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (requests) => {
        for (const { body, headers } of requests) {
          for (let repeat = 0; repeat < 3; repeat += 1) {
            const [prepared, yoga] = await Promise.all([exchange(started.app.url, body, headers), exchange(referenceServer.url, body, headers)]);
            expect(prepared, `${body} ${JSON.stringify(headers)} #${repeat + 1}`).toEqual(yoga);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('prepared operations skip yoga only for a shape yoga answered with data', () => {
  /** How many requests reached yoga's GraphQL pipeline, and how many times the resolver ran. */
  const counts = { yoga: 0, resolver: 0 };
  let server: Listening;
  let partial = false;
  beforeAll(async () => {
    const documentCache = createDocumentCache({ maxEntries: 2 });
    const answers = createYogaAnswers();
    let execution: Execution | undefined;
    const yoga = createGraphServer({
      typeDefs: 'type Query { echo(text: String!): String! other: Int! third: Int! }',
      resolvers: {
        Query: {
          echo: (_: unknown, { text }: { text: string }) => {
            counts.resolver += 1;
            return text;
          },
          other: () => 1,
          third: () => 3,
        },
      },
      plugins: [answers.plugin, { onParams: () => void (counts.yoga += 1) }],
      jit: true,
      documentCache,
      onExecution: (made) => {
        execution = made;
      },
      logging: false,
    });
    if (execution === undefined) throw new Error('no executor');
    const prepared = createPreparedOperations({
      documentOf: documentCache.documentOf,
      prepared: execution.prepared,
      // A context whose partial errors the test sets: such an answer must go to yoga.
      context: () => ({ partialErrors: partial ? ['partial'] : [] }),
    });
    const write = prepared.writer(answers.answerWith((request) => yoga.fetch(request)), NO_COMPRESSION);
    server = await listen(withReadBody(() => true, 65_536, write, (request, response) => void yoga(request, response), () => undefined));
  });
  afterAll(() => server.close());

  const echo = 'query($t: String!) { echo(text: $t) }';
  const ask = (query: string, variables?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    exchange(server.url, JSON.stringify({ query, ...(variables && { variables }), ...extra }), { accept: 'application/json' });

  it('from the third request of a shape on, yoga is skipped and the resolver runs with each request\'s variables', async () => {
    const before = { ...counts };
    const answers = [];
    for (const text of ['a', 'b', 'c', 'd', 'e']) answers.push(await ask(echo, { t: text }));
    expect(answers.map((answer) => answer.body)).toEqual(['a', 'b', 'c', 'd', 'e'].map((text) => JSON.stringify({ data: { echo: text } })));
    expect(new Set(answers.map((answer) => JSON.stringify([answer.status, answer.headers['content-type']]))).size).toBe(1);
    // The first leaves the document's key, the second caches and compiles it and records the shape.
    expect(counts.yoga - before.yoga).toBe(2);
    expect(counts.resolver - before.resolver).toBe(5);
  });

  it('a result with errors goes to yoga, which answers it (400 for variables that do not coerce)', async () => {
    const before = counts.yoga;
    const refused = await ask(echo, { t: 42 });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ errors: [{ message: expect.stringMatching(/\$t/) as string }] });
    expect(counts.yoga - before).toBe(1);
    // The shape stays known: the next good request is prepared again.
    await ask(echo, { t: 'again' });
    expect(counts.yoga - before).toBe(1);
  });

  it('partial errors in the context go to yoga', async () => {
    const before = counts.yoga;
    partial = true;
    try {
      await ask(echo, { t: 'partial' });
    } finally {
      partial = false;
    }
    expect(counts.yoga - before).toBe(1);
  });

  it('a body with extensions always goes to yoga', async () => {
    const before = counts.yoga;
    for (let run = 0; run < 3; run += 1) expect((await ask(echo, { t: 'x' }, { extensions: {} })).status).toBe(200);
    expect(counts.yoga - before).toBe(3);
  });

  it('a document evicted from the document cache is parsed and validated by yoga again', async () => {
    // The document cache holds two documents: two others, each asked twice, evict the echo document.
    for (const other of ['{ other }', '{ third }']) for (let run = 0; run < 2; run += 1) await ask(other);
    const before = counts.yoga;
    expect(JSON.parse((await ask(echo, { t: 'back' })).body)).toEqual({ data: { echo: 'back' } });
    expect(counts.yoga - before).toBe(1);
  });
});
