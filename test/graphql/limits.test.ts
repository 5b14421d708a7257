import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraph, query, startGraphApp } from './graph-harness.js';

/** graphql-armor's limits, with their defaults and their environment overrides, over HTTP. */
const manifest = JSON.parse(readFileSync(new URL('../../generated/client/persisted-documents.json', import.meta.url), 'utf8')) as Record<string, string>;

function aliases(count: number): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: stats { subscribers }`).join(' ')} }`;
}

/** `{ tiers { supporters { tier { supporters { … { id } } } } } }` with `levels` levels below `tiers`. */
function nestedTiers(levels: number): string {
  let selection = 'id';
  for (let i = levels - 1; i >= 0; i--) selection = i % 2 === 0 ? `supporters { ${selection} }` : `tier { ${selection} }`;
  return `{ tiers { ${selection} } }`;
}

/** The one error of a refused document: its message, prefixed by its `extensions.code`. */
function firstError(body: Awaited<ReturnType<typeof postGraph>>['body']): string {
  expect(body.data ?? null).toBeNull();
  expect(body.errors?.length).toBe(1);
  const [error] = body.errors!;
  return `${String(error!.extensions?.code)}: ${error!.message}`;
}

describe('default limits', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('runs every operation the package ships (the persisted-documents manifest) within them', async () => {
    expect(Object.keys(manifest).length).toBeGreaterThanOrEqual(5);
    for (const [id, document] of Object.entries(manifest)) {
      // Subscriptions stream: test/events/graphql-subscriptions.test.ts runs them over SSE and WebSocket.
      if (/(^|\} )subscription\b/.test(document)) continue;
      const variables = { ...(document.includes('$id') && { id: 'unknown' }), ...(document.includes('$from') && { from: '2025-01-01T00:00:00Z' }), ...(document.includes('$since') && { since: '2025-01-01T00:00:00Z' }) };
      const { body } = await postGraph(started.app.url, { query: document, variables });
      // This graph has no history's database: those fields answer HISTORY_UNAVAILABLE, which is no limit.
      const errors = (body.errors as Array<{ extensions?: { code?: string } }> | undefined)?.filter((error) => error.extensions?.code !== 'HISTORY_UNAVAILABLE');
      expect(errors?.length ? errors : undefined, `${id}: ${document}`).toBeUndefined();
    }
  });

  it('rejects a 2,000-alias document (56 KB, 12,000 tokens) at the token limit, before parsing it whole', async () => {
    const { body } = await postGraph(started.app.url, { query: aliases(2_000) });
    expect(firstError(body)).toBe('MAX_TOKENS_EXCEEDED: Token limit of 1000 exceeded.');
  });

  it('rejects 16 aliases (limit 15) naming the limit and the count', async () => {
    expect(firstError((await postGraph(started.app.url, { query: aliases(16) })).body)).toBe('MAX_ALIASES_EXCEEDED: Aliases limit of 15 exceeded, found 16.');
    expect((await query(started.app.url, aliases(15))).errors).toBeUndefined();
  });

  it('rejects a 50-level tiers { supporters { tier { … } } } document, naming the limit', async () => {
    // Its cost (×1.5 per level) is checked first; the depth limit alone rejects it too (below).
    expect(firstError((await postGraph(started.app.url, { query: nestedTiers(50) })).body)).toMatch(/^MAX_COST_EXCEEDED: Query Cost limit of 5000 exceeded, found \d+/);
    // Depth counts every field level, leaves included: tiers + 7 levels + id = 9.
    expect(firstError((await postGraph(started.app.url, { query: nestedTiers(7) })).body)).toBe('MAX_DEPTH_EXCEEDED: Query depth limit of 8 exceeded, found 9.');
    expect((await query(started.app.url, nestedTiers(6))).errors).toBeUndefined();
  });

  it('rejects more than 10 directives', async () => {
    const directives = Array.from({ length: 11 }, () => '@include(if: true)').join(' ');
    expect(firstError((await postGraph(started.app.url, { query: `{ stats ${directives} { subscribers } }` })).body)).toBe('MAX_DIRECTIVES_EXCEEDED: Directives limit of 10 exceeded, found 11.');
  });

  it('still answers introspection (GraphiQL needs it) despite its depth', async () => {
    const { body } = await postGraph(started.app.url, { query: '{ __schema { types { name fields { name type { ofType { ofType { ofType { name } } } } } } } }' });
    expect(body.errors).toBeUndefined();
  });
});

describe('limits set through the environment', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({ maxTokens: 100_000, maxAliases: 2, maxCost: 15 });
  });
  afterAll(() => started.close());

  it('with a higher token limit the 2,000 aliases hit the alias limit instead', async () => {
    expect(firstError((await postGraph(started.app.url, { query: aliases(2_000) })).body)).toBe('MAX_ALIASES_EXCEEDED: Aliases limit of 2 exceeded, found 2000.');
  });

  it('applies GRAPHQL_MAX_COST', async () => {
    // Cost: 17.75 (objects 2, scalars 1, ×1.5 per level) against a limit of 15.
    expect(firstError((await postGraph(started.app.url, { query: '{ supporters { id name amountCents since tier { id title amountCents } } }' })).body)).toBe('MAX_COST_EXCEEDED: Query Cost limit of 15 exceeded, found 17.75.');
    expect((await query(started.app.url, '{ stats { subscribers } }')).errors).toBeUndefined();
  });
});

describe('the depth limit on its own (GRAPHQL_MAX_DEPTH=3, cost unlimited)', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp({ maxDepth: 3, maxCost: 10 ** 15 });
  });
  afterAll(() => started.close());

  it('rejects the 50-level document at depth 3', async () => {
    expect(firstError((await postGraph(started.app.url, { query: nestedTiers(50) })).body)).toBe('MAX_DEPTH_EXCEEDED: Query depth limit of 3 exceeded, found 52.');
    expect((await query(started.app.url, nestedTiers(1))).errors).toBeUndefined();
  });
});
