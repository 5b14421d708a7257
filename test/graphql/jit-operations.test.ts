import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraph, startGraphApp } from './graph-harness.js';

/**
 * graphql-jit (on by default) must not change what a request means: a document with several
 * operations runs the one its operationName selects, every time (jit caches compiled queries by
 * document), and variables that fail coercion are a request error, as with graphql-js.
 */
describe('graphql-jit keeps GraphQL semantics', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({ jit: true, responseCache: false });
  });
  afterAll(() => started.close());

  const document = 'query Stats { stats { subscribers } } query Tiers { tiers(platform: MEMBERSHIP) { title } }';

  it('runs the operation named by operationName, whichever ran first', async () => {
    for (const operationName of ['Stats', 'Tiers', 'Stats', 'Tiers']) {
      const { status, body } = await postGraph(started.app.url, { query: document, operationName });
      expect(status).toBe(200);
      expect(Object.keys(body.data ?? {})).toEqual([operationName === 'Stats' ? 'stats' : 'tiers']);
    }
  });

  it('answers a missing non-null variable as a request error (400 under graphql-response+json)', async () => {
    const query = 'query Patron($id: String!) { patron(id: $id) { name } }';
    for (const run of [1, 2]) {
      const { status, body } = await postGraph(started.app.url, { query }, { accept: 'application/graphql-response+json' });
      expect(status, `run ${run}`).toBe(400);
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.message).toMatch(/Variable "\$id" of required type "String!" was not provided/);
    }
  });
});
