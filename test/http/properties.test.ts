/**
 * Property-based tests of the REST API of openapi/channel-api.yaml: fast-check
 * generates webhook deliveries (JSON:API member documents with any attribute values, garbage
 * bodies, any event name, signatures right and wrong), then query strings for /membership/pledges,
 * /video/members and /video/stats (their `sort` parameter, repeated, odd encodings, unknown
 * parameters) under any method and headers (Accept, If-None-Match with the real ETags, Host),
 * sends them over real HTTP (raw sockets) to the whole app over the in-process sandbox, and checks
 * every answer: no 5xx, an error is problem+json with a `detail`, no stack trace or path, and the
 * answer is one the contract allows. The reads run after the webhooks, over whatever the accepted
 * events left in the snapshot. A failure prints fast-check's seed and path.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMBERSHIP_WEBHOOK_EVENTS } from '../../src/channel/membership.js';
import { SUPPORTER_ORDERS } from '../../src/channel/order.js';
import { expectSafeAnswer, headerValue, noLeakPattern, oddText, propertyOptions, queryComponent, rawExchange, type RawAnswer } from '../support/hostile-http.js';
import { startSandboxApp, validator } from './harness.js';

type Started = Awaited<ReturnType<typeof startSandboxApp>>;

const READ_PATHS = ['/membership/pledges', '/video/members', '/video/stats'] as const;
/** The REST handler's default webhook body limit. */
const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/** The answer conforms to openapi/channel-api.yaml (status, headers, body schema). */
function expectContract(method: string, path: string, answer: RawAnswer, what: string): void {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
  const violations = validator.validate({ method, path, status: answer.status, headers, body: method === 'HEAD' ? '' : answer.body });
  expect(violations, `the answer to ${what} violates the contract: ${answer.status} ${answer.body.slice(0, 500)}`).toEqual([]);
}

// ---- webhook deliveries ----

const anyJson = fc.jsonValue({ maxDepth: 2 });
/** A value of the expected type most of the time, anything else sometimes. */
const mostly = <T,>(expected: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 15, arbitrary: expected }, { weight: 1, arbitrary: anyJson });
/** Mostly the ids the other resources of the document use, so that links resolve and events are accepted. */
const resourceId = (ids: readonly string[]) => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.constantFrom('', 'x') }, { weight: 1, arbitrary: oddText(12) });
const isoDate = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
const cents = fc.oneof(fc.nat({ max: 10_000_000 }), fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER));

const memberAttributes = fc.record(
  {
    full_name: mostly(fc.option(oddText(30))),
    patron_status: mostly(fc.constantFrom('active_patron', 'active_patron', 'active_patron', 'declined_patron', 'former_patron', null)),
    currently_entitled_amount_cents: mostly(cents),
    pledge_relationship_start: mostly(fc.option(fc.oneof({ weight: 6, arbitrary: isoDate }, { weight: 1, arbitrary: fc.constantFrom('2024-13-45T99:00:00Z', 'yesterday', '') }), { freq: 8 })),
    campaign_lifetime_support_cents: mostly(fc.option(cents)),
  },
  { requiredKeys: ['patron_status', 'currently_entitled_amount_cents', 'pledge_relationship_start'] },
);
const linkage = (type: string, ids: readonly string[]) => fc.record({ type: mostly(fc.constant(type)), id: mostly(resourceId(ids)) });
const tierResource = fc.record({ type: fc.constant('tier'), id: mostly(resourceId(['t1', 't2'])), attributes: mostly(fc.record({ title: mostly(fc.option(oddText(30))), amount_cents: mostly(fc.option(cents)) }, { requiredKeys: [] })) }, { requiredKeys: ['type', 'id'] });
const userResource = fc.record({ type: fc.constant('user'), id: mostly(resourceId(['u1'])), attributes: mostly(fc.record({ first_name: mostly(fc.option(oddText(20))), full_name: mostly(fc.option(oddText(30))) }, { requiredKeys: [] })) }, { requiredKeys: ['type', 'id'] });
const memberDocument = fc.record(
  {
    data: fc.record(
      {
        type: mostly(fc.constant('member')),
        id: mostly(resourceId(['m1', 'm2', 'member-1'])),
        attributes: mostly(memberAttributes),
        relationships: mostly(fc.record({ currently_entitled_tiers: fc.record({ data: mostly(fc.array(linkage('tier', ['t1', 't2']), { maxLength: 2 })) }), user: fc.record({ data: mostly(fc.option(linkage('user', ['u1']))) }) }, { requiredKeys: [] })),
      },
      { requiredKeys: ['type', 'id'] },
    ),
    included: mostly(fc.array(fc.oneof(tierResource, userResource, anyJson), { maxLength: 4 })),
  },
  { requiredKeys: ['data'] },
);

const webhookBody = fc.oneof(
  { weight: 6, arbitrary: memberDocument.map((document) => JSON.stringify(document)) },
  { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: oddText(100) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"data":', 'null', `{"data":{"type":"member","id":"x","pad":"${'x'.repeat(300 * 1024)}"}}`) },
);

type Signature = 'right' | 'upper-case' | 'wrong' | 'missing' | 'not-hex' | 'short' | 'odd';
const signatureKind = fc.constantFrom<Signature>('right', 'right', 'right', 'upper-case', 'wrong', 'missing', 'not-hex', 'short', 'odd');
const eventHeader = fc.option(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...MEMBERSHIP_WEBHOOK_EVENTS) }, { weight: 1, arbitrary: headerValue(['members:create', 'members:pledge:create ', 'MEMBERS:PLEDGE:CREATE']) }), { nil: undefined });

function signature(kind: Signature, body: string, secret: string): string | undefined {
  const right = createHmac('md5', secret).update(body).digest('hex');
  switch (kind) {
    case 'right':
      return right;
    case 'upper-case':
      return right.toUpperCase();
    case 'wrong':
      return createHmac('md5', `${secret}x`).update(body).digest('hex');
    case 'missing':
      return undefined;
    case 'not-hex':
      return 'z'.repeat(32);
    case 'short':
      return right.slice(0, 31);
    case 'odd':
      return `${right} ${right}`;
  }
}

// ---- reads ----

const sortValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SUPPORTER_ORDERS) }, { weight: 1, arbitrary: fc.constantFrom('SINCE', 'amount ', '', 'since,amount') }, { weight: 2, arbitrary: oddText(12) });
const queryParameter = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constant('sort'), queryComponent(sortValue)) },
  { weight: 1, arbitrary: fc.tuple(queryComponent(fc.oneof(fc.constantFrom('Sort', 'sort[]', 'limit', 'fields[member]', ''), oddText(8))), queryComponent(oddText(12))) },
  { weight: 1, arbitrary: fc.tuple(queryComponent(fc.constantFrom('sort')), fc.constant('')) },
);
const readTarget = fc
  .tuple(
    fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...READ_PATHS) }, { weight: 1, arbitrary: fc.constantFrom('/video/stats/', '/VIDEO/stats', '//video/stats', '/video/%73tats', '/membership/webhook', '/healthz', '/') }),
    fc.option(fc.array(queryParameter, { maxLength: 4 }), { nil: undefined }),
    fc.option(fc.constantFrom('#x', '&', '?', ';'), { nil: '' }),
  )
  .map(([path, parameters, tail]) => ({ path, target: `${path}${parameters === undefined ? '' : `?${parameters.map(([key, item]) => `${key}=${item}`).join('&')}`}${tail}` }));

describe('the REST API under generated requests', () => {
  let started: Started;
  const etags: string[] = [];
  beforeAll(async () => {
    started = await startSandboxApp();
    for (const path of READ_PATHS) {
      const answer = await rawExchange(started.app.url, { method: 'GET', target: path });
      if (answer.headers.etag !== undefined) etags.push(answer.headers.etag);
    }
  });
  afterAll(() => started.close());

  it('webhook deliveries: any body, event and signature (X-Patreon-Signature right or wrong)', async () => {
    const secret = started.app.sandbox.credentials.webhookSecret;
    await fc.assert(
      fc.asyncProperty(webhookBody, eventHeader, signatureKind, fc.option(headerValue(['application/json', 'text/plain', 'application/vnd.api+json']), { nil: undefined }), async (body, event, kind, contentType) => {
        fc.pre(noLeakPattern(body, event ?? '', contentType ?? ''));
        const signed = signature(kind, body, secret);
        const headers: Array<[string, string]> = [];
        if (contentType !== undefined) headers.push(['Content-Type', contentType]);
        if (event !== undefined) headers.push(['X-Patreon-Event', event]);
        if (signed !== undefined) headers.push(['X-Patreon-Signature', signed]);
        const answer = await rawExchange(started.app.url, { method: 'POST', target: '/membership/webhook', headers, body });
        const what = `POST /membership/webhook ${JSON.stringify(headers)} ${body.slice(0, 500)}`;
        expectSafeAnswer(answer, 'problem', what, 'POST');
        expectContract('POST', '/membership/webhook', answer, what);
        // The body's size is checked first (256 KiB), then the signature, before anything else.
        const unsigned = kind === 'wrong' || kind === 'missing' || kind === 'not-hex' || kind === 'short' || kind === 'odd';
        if (unsigned) expect(answer.status, what).toBe(Buffer.byteLength(body) > WEBHOOK_BODY_LIMIT_BYTES ? 413 : 401);
      }),
      propertyOptions(),
    );
  });

  it('reads: any query string, method and headers (Accept, If-None-Match, Host) on the three resources', async () => {
    const headers = fc
      .tuple(
        fc.option(headerValue(['application/json', 'application/problem+json', 'text/html', '*/*', 'application/xml;q=0']), { nil: undefined }),
        fc.option(fc.oneof(fc.constantFrom(...etags, ...etags.map((etag) => `W/${etag}`), '*', etags.join(', ')), headerValue(['"x"', 'W/"x"', '"unterminated', ',,'])), { nil: undefined }),
        fc.option(headerValue(['localhost', '[::1', 'exa mple.com', 'host:99999', 'ü.example']), { nil: undefined }),
      )
      .map(([accept, ifNoneMatch, host]) => [
        ...(accept === undefined ? [] : [['Accept', accept] as [string, string]]),
        ...(ifNoneMatch === undefined ? [] : [['If-None-Match', ifNoneMatch] as [string, string]]),
        ...(host === undefined ? [] : [['Host', host] as [string, string]]),
      ]);
    const method = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'HEAD') }, { weight: 1, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH') });
    await fc.assert(
      fc.asyncProperty(readTarget, method, headers, async ({ path, target }, verb, requestHeaders) => {
        fc.pre(noLeakPattern(target, ...requestHeaders.map(([, item]) => item)));
        const answer = await rawExchange(started.app.url, { method: verb, target, headers: requestHeaders, ...(verb === 'POST' || verb === 'PUT' || verb === 'PATCH' ? { body: '{}' } : {}) });
        const what = `${verb} ${target} ${JSON.stringify(requestHeaders)}`;
        expectSafeAnswer(answer, 'problem', what, verb);
        if ((READ_PATHS as readonly string[]).includes(path) && (verb === 'GET' || verb === 'HEAD')) expectContract(verb, path, answer, what);
      }),
      propertyOptions(),
    );
  });

  it('after those deliveries, every read and the graph still answer 200', async () => {
    for (const path of READ_PATHS) {
      const answer = await rawExchange(started.app.url, { method: 'GET', target: `${path}${path === '/video/stats' ? '' : '?sort=amount'}` });
      expect(answer.status, `${path}: ${answer.body.slice(0, 500)}`).toBe(200);
      expectContract('GET', path, answer, path);
    }
    const document = '{ supporters(orderBy: AMOUNT) { __typename id name amountCents since tier { title supporters { id } } ... on Patron { lifetimeCents } } tiers { title amountCents } }';
    const answer = await rawExchange(started.app.url, { method: 'POST', target: '/graphql', headers: [['Content-Type', 'application/json'], ['Accept', 'application/graphql-response+json']], body: JSON.stringify({ query: document }) });
    expectSafeAnswer(answer, 'graphql', document, 'POST');
    expect(answer.status, answer.body.slice(0, 500)).toBe(200);
    expect(JSON.parse(answer.body)).not.toHaveProperty('errors');
  });
});
