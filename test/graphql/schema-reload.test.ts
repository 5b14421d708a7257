/**
 * A development server serves a changed SDL without a restart (server.ts `onReloadSchema`): every
 * cached document goes, with its graphql-jit compiled operation; no answer the response cache kept
 * for the old schema is given again; a field without a resolver is warned about and served as null,
 * as at start; an SDL that does not build leaves the served schema in place; an open subscription
 * goes on. The channel app offers the reload in development mode only, and an unchanged SDL keeps
 * its cached answers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGraphServer, type ReloadSchema } from '../../src/graphql/server.js';
import { createDocumentCache } from '../../src/graphql/speed/document-cache.js';
import { createResponseCache } from '../../src/graphql/speed/response-cache.js';
import { query, startGraphApp } from './graph-harness.js';

const SDL = 'type Query { hero: Hero }\ntype Hero { name: String! age: Int }\ntype Subscription { ticks: Int }';

/** The ticks a subscription is waiting for, pushed by the test. */
function tickSource() {
  const waiting: Array<(value: number) => void> = [];
  return {
    push: (value: number) => waiting.shift()?.(value),
    async *ticks(): AsyncGenerator<{ ticks: number }> {
      for (;;) yield { ticks: await new Promise<number>((resolve) => waiting.push(resolve)) };
    },
    get subscribers() {
      return waiting.length;
    },
  };
}

describe('createGraphServer with onReloadSchema', () => {
  let dir: string;
  let reload: ReloadSchema;
  const cache = createDocumentCache();
  const answers = createResponseCache({ ttlMs: 60_000 });
  const source = tickSource();
  /** How often the resolver of Hero.age ran. */
  let ageRuns = 0;
  let yoga: ReturnType<typeof createGraphServer>;

  const post = async (text: string): Promise<{ status: number; body: { data?: unknown; errors?: Array<{ message: string }> } }> => {
    const response = await yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: text }) });
    return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: Array<{ message: string }> } };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'schema-reload-'));
    await writeFile(join(dir, 'schema.graphql'), SDL);
    yoga = createGraphServer({
      schemaDir: dir,
      resolvers: {
        Query: { hero: () => ({ name: 'R2-D2', age: 33 }) },
        Hero: { name: (hero: { name: string }) => hero.name, age: (hero: { age: number }) => ((ageRuns += 1), hero.age) },
        Subscription: { ticks: { subscribe: () => source.ticks() } },
      },
      documentCache: cache,
      plugins: [answers.plugin],
      jit: true,
      missingResolvers: 'warn',
      onReloadSchema: (made) => {
        reload = made;
      },
    });
  });
  afterAll(async () => {
    await yoga.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers "unchanged" for the SDL it serves, keeping its cached documents', async () => {
    for (let run = 0; run < 3; run += 1) expect((await post('{ hero { age } }')).body).toEqual({ data: { hero: { age: 33 } } });
    expect(cache.stats().documents).toBe(1);
    expect(reload()).toBe('unchanged');
    expect(cache.stats().documents).toBe(1);
  });

  it('serves a changed field type to a document compiled against the old one, and no answer kept for the old one', async () => {
    // Cached and compiled by graphql-jit as Int, its answer kept (the previous test ran it three times): a hit.
    const ran = ageRuns;
    expect((await post('{ hero { age } }')).body).toEqual({ data: { hero: { age: 33 } } });
    expect(ageRuns).toBe(ran);
    await writeFile(join(dir, 'schema.graphql'), SDL.replace('age: Int', 'age: String'));
    expect(reload()).toBe('swapped');
    expect(cache.stats().documents).toBe(0);
    for (let run = 0; run < 3; run += 1) expect((await post('{ hero { age } }')).body).toEqual({ data: { hero: { age: '33' } } });
    // Executed against the new schema, twice (its key's second occurrence is kept), then a hit.
    expect(ageRuns).toBe(ran + 2);
  });

  it('serves a new field without a resolver as null, warning about it by name', async () => {
    expect((await post('{ hero { name height } }')).body.errors?.[0]?.message).toBe('Cannot query field "height" on type "Hero".');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await writeFile(join(dir, 'schema.graphql'), SDL.replace('age: Int', 'age: String height: Float'));
      expect(reload()).toBe('swapped');
      expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([expect.stringMatching(/!!! WARNING: 1 schema field\(s\) have no resolver.*Hero\.height/)]);
    } finally {
      warn.mockRestore();
    }
    expect((await post('{ hero { name height } }')).body).toEqual({ data: { hero: { name: 'R2-D2', height: null } } });
  });

  it('keeps serving the schema it has when the SDL does not build', async () => {
    await writeFile(join(dir, 'schema.graphql'), 'type Query { hero: Hero');
    expect(() => reload()).toThrow(/Syntax Error/);
    // A resolver whose field the SDL no longer has is refused as at start.
    await writeFile(join(dir, 'schema.graphql'), SDL.replace('age: Int', ''));
    expect(() => reload()).toThrow(/Hero\.age defined in resolvers, but not in schema/);
    expect((await post('{ hero { name height age } }')).body).toEqual({ data: { hero: { name: 'R2-D2', height: null, age: '33' } } });
  });

  it('keeps a subscription that was open during the swap', async () => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { ticks }' }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    const nextEvent = async (): Promise<string> => {
      while (!received.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; received: ${received}`);
        received += decoder.decode(value, { stream: true });
      }
      const [event = '', ...rest] = received.split('\n\n');
      received = rest.join('\n\n');
      return event;
    };
    // The first read starts the subscription; a keep-alive comment may come before the event.
    const untilData = async (): Promise<string> => {
      for (;;) {
        const event = await nextEvent();
        if (event.includes('data:')) return event;
      }
    };
    const first = untilData();
    await vi.waitFor(() => expect(source.subscribers).toBe(1));
    source.push(1);
    expect(await first).toContain('{"data":{"ticks":1}}');
    await writeFile(join(dir, 'schema.graphql'), `${SDL}\nextend type Query { version: Int }`);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(reload()).toBe('swapped');
    } finally {
      warn.mockRestore();
    }
    const second = untilData();
    await vi.waitFor(() => expect(source.subscribers).toBe(1));
    source.push(2);
    expect(await second).toContain('{"data":{"ticks":2}}');
    await reader.cancel();
  });
});

describe('the channel app', () => {
  it('offers no schema reload in production', async () => {
    const started = await startGraphApp({ development: false });
    try {
      expect(started.app.reloadSchema).toBeUndefined();
    } finally {
      await started.close();
    }
  });

  describe('in development', () => {
    let started: Awaited<ReturnType<typeof startGraphApp>>;
    beforeAll(async () => {
      started = await startGraphApp({ development: true, responseCache: true });
    });
    afterAll(() => started.close());

    /** The response cache's hits so far, as GET /metrics counts them. */
    const hits = async (): Promise<number> => Number(/^graphql_response_cache_lookups_total\{result="hit"\} (\d+)$/m.exec(await started.app.metrics())?.[1] ?? 0);

    it('serves schema/ as it is: unchanged, with its answers still cached', async () => {
      const text = '{ stats { subscribers } }';
      const first = await query(started.app.url, text);
      expect(first.data?.stats).toBeDefined();
      expect(await query(started.app.url, text)).toEqual(first); // kept: its second occurrence
      const before = await hits();
      expect(started.app.reloadSchema?.()).toBe('unchanged');
      expect(await query(started.app.url, text)).toEqual(first);
      expect(await hits()).toBe(before + 1);
    });
  });
});
