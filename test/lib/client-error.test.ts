/**
 * A request node:http cannot parse gets an answer that says what was wrong (every
 * error has a message), not node's bare status line. Found by test/graphql/properties.test.ts:
 * a GET whose URL is over the request-head limit was a 431 with an empty body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxApp } from '../http/harness.js';
import { expectSafeAnswer, rawExchange } from '../support/hostile-http.js';

describe('requests node:http cannot parse, against the whole app', () => {
  let started: Awaited<ReturnType<typeof startSandboxApp>>;
  beforeAll(async () => {
    started = await startSandboxApp();
  });
  afterAll(() => started.close());

  function expectBoth(answer: Awaited<ReturnType<typeof rawExchange>>, status: number): void {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers.connection).toBe('close');
    const body = JSON.parse(answer.body) as { status: number; detail: string; errors: Array<{ message: string }> };
    expect(body.status).toBe(status);
    expect(body.detail).toMatch(/\w/);
    expect(body.errors[0]?.message).toBe(body.detail);
    // Readable as a GraphQL answer and as a REST problem alike.
    expectSafeAnswer(answer, 'graphql', 'graphql view');
    expectSafeAnswer(answer, 'problem', 'problem view');
  }

  it('a GET /graphql whose URL is over the request-head limit: 431 naming the limit and POST', async () => {
    const target = `/graphql?query=${encodeURIComponent(`{ patron(id: "${'é'.repeat(100_000)}") { id } }`)}`;
    const answer = await rawExchange(started.app.url, { method: 'GET', target });
    expectBoth(answer, 431);
    expect(JSON.parse(answer.body).detail).toMatch(/too large.*POST/);
  });

  it('a header value with a control character: 400 with a message', async () => {
    const answer = await rawExchange(started.app.url, { method: 'GET', target: '/video/stats', headers: [['X-Odd', 'a\u0001b']] });
    expectBoth(answer, 400);
  });

  it('an unknown method: 400 with a message', async () => {
    const answer = await rawExchange(started.app.url, { method: 'BREW', target: '/graphql' });
    expectBoth(answer, 400);
    expect(JSON.parse(answer.body).detail).toMatch(/method/);
  });

  it('the server still answers afterwards', async () => {
    const answer = await rawExchange(started.app.url, { method: 'GET', target: '/healthz' });
    expect(answer.status).toBe(200);
  });
});
