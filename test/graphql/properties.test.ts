/**
 * Property-based tests of /graphql: fast-check generates GraphQL documents (valid-ish
 * from the schema's own fields, and garbage: deep nesting, many aliases, huge strings, odd
 * unicode, truncations), the GET parameters, the POST bodies and the request headers, sends them
 * over real HTTP (raw sockets) to the whole app as `npm start` configures it (production, response
 * cache and graphql-jit on) over the in-process sandbox, and checks every answer: no 5xx, every
 * error has a message, no stack trace or path. A failure prints fast-check's seed and path.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CODEGEN_PERSISTED_DOCUMENTS } from '../../src/graphql/plugins/trusted-documents.js';
import { expectSafeAnswer, headerValue, noLeakPattern, oddText, propertyOptions, queryComponent, rawExchange } from '../support/hostile-http.js';
import { startGraphApp } from './graph-harness.js';

type Started = Awaited<ReturnType<typeof startGraphApp>>;

// ---- documents ----

const FIELDS = ['supporters', 'topSupporter', 'patron', 'member', 'tiers', 'stats', 'id', 'name', 'platform', 'tier', 'amountCents', 'since', 'lifetimeCents', 'daysAtTier', 'title', 'subscribers', 'fetchedAt', 'stale', '__typename', '__schema', '__type', 'types', 'fields', 'ofType', 'kind'];
const TYPES = ['Patron', 'ChannelMember', 'Supporter', 'Tier', 'ChannelStats', 'Query', 'String', 'Int', 'Nope'];
const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,12}$/) });
const graphqlString = oddText(30).map((text) => JSON.stringify(text));
const value: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('MEMBERSHIP', 'VIDEO', 'SINCE', 'AMOUNT', 'true', 'null', '$v', '$id', '"""block\n"""'),
    graphqlString,
    fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), fc.double({ noNaN: true })).map(String),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.array(fc.tuple(name, tie('value')), { maxLength: 3 }).map((pairs) => `{ ${pairs.map(([key, item]) => `${key}: ${item}`).join(', ')} }`),
  ),
})).value;
const argumentsList = fc.array(fc.tuple(fc.constantFrom('platform', 'orderBy', 'id', 'first', 'x'), value), { maxLength: 3 }).map((pairs) => (pairs.length === 0 ? '' : `(${pairs.map(([key, item]) => `${key}: ${item}`).join(', ')})`));
const directive = fc.option(fc.tuple(fc.constantFrom('include', 'skip', 'deprecated', 'nope'), value).map(([directiveName, item]) => ` @${directiveName}(if: ${item})`), { nil: '' });

const selectionSet: fc.Arbitrary<string> = fc.letrec<{ set: string; selection: string }>((tie) => ({
  set: fc.array(tie('selection'), { minLength: 1, maxLength: 4 }).map((selections) => `{ ${selections.join(' ')} }`),
  selection: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.option(name.map((alias) => `${alias}: `), { nil: '' }), name, argumentsList, directive).map((parts) => parts.join('')),
    fc.tuple(fc.option(name.map((alias) => `${alias}: `), { nil: '' }), name, argumentsList, directive, tie('set')).map((parts) => parts.join(' ')),
    fc.tuple(fc.constantFrom(...TYPES), tie('set')).map(([type, set]) => `... on ${type} ${set}`),
    fc.constantFrom('...F', '...G', '...'),
  ),
})).set;

const variableDefinitions = fc.array(fc.tuple(fc.constantFrom('v', 'id', 'w'), fc.constantFrom('String', 'String!', 'Platform', '[Int]', 'Nope', 'Int = 3')), { maxLength: 3 }).map((pairs) => (pairs.length === 0 ? '' : `(${pairs.map(([variable, type]) => `$${variable}: ${type}`).join(', ')})`));

const operation = fc
  .tuple(fc.constantFrom('', 'query', 'query Q', 'mutation', 'subscription S', 'query Q2'), variableDefinitions, directive, selectionSet)
  .map(([head, variables, operationDirective, set]) => (head === '' ? set : `${head}${variables}${operationDirective} ${set}`));
const fragment = fc.tuple(fc.constantFrom('F', 'G'), fc.constantFrom(...TYPES), selectionSet).map(([fragmentName, type, set]) => `fragment ${fragmentName} on ${type} ${set}`);
const validish = fc.tuple(fc.array(operation, { minLength: 1, maxLength: 3 }), fc.array(fragment, { maxLength: 2 })).map(([operations, fragments]) => [...operations, ...fragments].join('\n'));

/** `{ stats { stats { … } } }`, balanced or not. */
const deepNesting = fc.tuple(fc.integer({ min: 1, max: 400 }), fc.boolean(), name).map(([depth, balanced, field]) => `${`{ ${field} `.repeat(depth)}${balanced ? '}'.repeat(depth) : ''}`);
const manyAliases = fc.integer({ min: 1, max: 600 }).map((count) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: stats { subscribers }`).join(' ')} }`);
/** Strings and comments around the document limit (64 KiB) and beyond. */
const hugeStrings = fc.tuple(fc.integer({ min: 60_000, max: 70_000 }), fc.constantFrom('string', 'comment', 'block', 'name'), fc.constantFrom('a', 'é', '\u{1f600}', ' ')).map(([length, where, unit]) => {
  const filler = unit.repeat(Math.ceil(length / unit.length));
  if (where === 'string') return `{ patron(id: "${filler}") { id } }`;
  if (where === 'block') return `{ patron(id: """${filler}""") { id } }`;
  if (where === 'name') return `{ ${'a'.repeat(length)} }`;
  return `# ${filler}\n{ stats { subscribers } }`;
});
const tokenSalad = fc.array(fc.oneof(fc.constantFrom('{', '}', '(', ')', '[', ']', ':', '$', '@', '...', '!', '=', '|', '&', '"', '"""', '#', ',', '\n', 'query', 'fragment', 'on'), name, value), { maxLength: 60 }).map((tokens) => tokens.join(' '));

/** Documents, and their truncations (an unterminated string, block or selection). */
export const documentText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof({ weight: 6, arbitrary: validish }, { weight: 1, arbitrary: deepNesting }, { weight: 1, arbitrary: manyAliases }, { weight: 1, arbitrary: hugeStrings }, { weight: 2, arbitrary: tokenSalad }, { weight: 2, arbitrary: oddText(80) }),
    fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 5 }),
  )
  .map(([text, cut]) => (cut === null ? text : text.slice(0, Math.floor(text.length * cut))));

// ---- JSON values in the wrong places ----

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const jsonText = fc.oneof(jsonValue.map((item) => JSON.stringify(item)), fc.constantFrom('{', '[1,', '{"a":}', 'nul', '"\\ud800"', '{"__proto__":{"x":1}}', '1e999', '-', ''));
const documentIds = Object.keys(CODEGEN_PERSISTED_DOCUMENTS);
const documentId = fc.oneof(fc.constantFrom(...documentIds, ...documentIds.map((id) => id.replace(/^sha256:/, ''))), fc.stringMatching(/^(sha256:)?[0-9a-f]{0,70}$/), oddText(20));

// ---- request parts ----

const ACCEPTS = ['application/graphql-response+json', 'application/json', 'application/graphql-response+json, application/json;q=0.9', '*/*', 'text/html', 'text/event-stream', 'multipart/mixed', 'multipart/mixed; deferSpec=20220824', 'application/xml', 'application/*;q=0', 'text/html;q=0.1, */*;q=0'];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/graphql+json', 'application/graphql', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json;', ';'];
const HOSTS = ['localhost', 'example.com:80', '[::1]:4000', '[::1', 'exa mple.com', 'host:99999', '300.1.1.1', 'a@b', 'ü.example', 'host:', ':80', '%zz', 'a/b', '-'];
const ETAGS = ['*', '"x"', 'W/"x"', '"a", W/"b"', 'W/', '"unterminated', ',,,'];

const optionalHeader = (headerName: string, examples: readonly string[]): fc.Arbitrary<Array<[string, string]>> => fc.option(headerValue(examples).map((text): Array<[string, string]> => [[headerName, text]]), { nil: [] });

const headers = fc
  .tuple(optionalHeader('Accept', ACCEPTS), optionalHeader('Content-Type', CONTENT_TYPES), optionalHeader('If-None-Match', ETAGS), optionalHeader('Host', HOSTS), optionalHeader('Origin', ['https://a.example', 'null', 'http://[::1]']))
  .map((groups) => groups.flat());

const postBody = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          query: fc.oneof({ weight: 5, arbitrary: documentText }, { weight: 1, arbitrary: jsonValue }),
          variables: fc.oneof(fc.dictionary(fc.constantFrom('v', 'id', 'w', '__proto__'), jsonValue, { maxKeys: 3 }), jsonValue),
          operationName: fc.oneof(fc.constantFrom('Q', 'Q2', 'S', 'nope'), jsonValue),
          extensions: fc.oneof(fc.record({ persistedQuery: fc.record({ version: jsonValue, sha256Hash: documentId }, { requiredKeys: [] }) }), jsonValue),
          documentId: fc.oneof(documentId, jsonValue),
        },
        { requiredKeys: [] },
      )
      .map((payload) => JSON.stringify(payload)),
  },
  { weight: 1, arbitrary: jsonText },
  { weight: 1, arbitrary: fc.array(fc.record({ query: documentText }), { maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
  { weight: 1, arbitrary: oddText(100) },
);

const GET_PARAMETERS = ['query', 'variables', 'extensions', 'operationName', 'documentId'];
const getParameter = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constant('query'), queryComponent(documentText)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('variables', 'extensions'), queryComponent(jsonText)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('operationName'), queryComponent(fc.oneof(fc.constantFrom('Q', 'S', ''), oddText(10)))) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('documentId'), queryComponent(documentId)) },
  { weight: 1, arbitrary: fc.tuple(queryComponent(fc.oneof(fc.constantFrom(...GET_PARAMETERS), oddText(8))), queryComponent(oddText(20))) },
);
const getTarget = fc
  .tuple(fc.constantFrom('/graphql', '/graphql/', '/graphql/persisted-documents.json'), fc.array(getParameter, { maxLength: 5 }), fc.option(fc.constantFrom('#frag', '&', '?'), { nil: '' }))
  .map(([path, parameters, tail]) => `${path}?${parameters.map(([key, item]) => `${key}=${item}`).join('&')}${tail}`);

describe('/graphql under generated requests (production defaults)', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('POST: any body (documents valid-ish and garbage, wrong JSON types, batches) under any Accept and Content-Type', async () => {
    await fc.assert(
      fc.asyncProperty(postBody, headers, async (body, requestHeaders) => {
        fc.pre(noLeakPattern(body, ...requestHeaders.map(([, item]) => item)));
        const answer = await rawExchange(started.app.url, { method: 'POST', target: '/graphql', headers: requestHeaders, body });
        expectSafeAnswer(answer, 'graphql', `POST /graphql ${JSON.stringify(requestHeaders)} ${body.slice(0, 500)}`, 'POST');
      }),
      propertyOptions(),
    );
  });

  it('GET: any combination of query, variables, extensions, operationName and documentId, odd encodings included', async () => {
    await fc.assert(
      fc.asyncProperty(getTarget, headers, fc.constantFrom('GET', 'HEAD'), async (target, requestHeaders, method) => {
        fc.pre(noLeakPattern(target, ...requestHeaders.map(([, item]) => item)));
        const answer = await rawExchange(started.app.url, { method, target, headers: requestHeaders });
        expectSafeAnswer(answer, 'graphql', `${method} ${target.slice(0, 500)} ${JSON.stringify(requestHeaders)}`, method);
      }),
      propertyOptions(),
    );
  });

  it('any method and headers on a valid document: Accept, Content-Type, If-None-Match, Host, Origin', async () => {
    const document = '{ stats { subscribers } tiers { title } }';
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'), headers, async (method, requestHeaders) => {
        fc.pre(noLeakPattern(...requestHeaders.map(([, item]) => item)));
        const request =
          method === 'POST' || method === 'PUT' || method === 'PATCH'
            ? { method, target: '/graphql', headers: requestHeaders, body: JSON.stringify({ query: document }) }
            : { method, target: `/graphql?query=${encodeURIComponent(document)}`, headers: requestHeaders };
        const answer = await rawExchange(started.app.url, request);
        expectSafeAnswer(answer, 'graphql', `${method} /graphql ${JSON.stringify(requestHeaders)}`, method);
      }),
      propertyOptions(),
    );
  });
});
