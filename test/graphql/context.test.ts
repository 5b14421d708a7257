/**
 * The per-request context over a real SnapshotStore: a snapshot in memory is read without waiting
 * and stays the request's one snapshot of that source; a cold store is read (and waited for) once.
 * On a warm store the channel graph's compiled queries answer synchronously.
 */
import { createRequire } from 'node:module';
import type * as GraphQL from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import type { StatsSnapshot, Supporter, SupportersSnapshot } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { createChannelGraphContext, createSnapshotIndexes } from '../../src/graphql/schema/context.js';
import { createChannelResolvers } from '../../src/graphql/schema/resolvers.js';
import { createExecutableSchema } from '../../src/graphql/schema/executable-schema.js';
import { silentLogger } from '../http/harness.js';

// The CommonJS copy of graphql, which @graphql-tools and graphql-jit load (see property-resolvers.test.ts).
const { parse } = createRequire(import.meta.url)('graphql') as typeof GraphQL;

function supporter(id: string, amountCents: number): Supporter {
  return { id, platform: 'membership', name: id, tierId: null, amountCents, since: '2024-01-01T00:00:00.000Z' };
}

/** A store whose membership upstream answers `supporters` as they are when it is asked, once `release` is called. */
function storeWith() {
  const upstream = { supporters: [supporter('a', 300)], release: (): void => undefined };
  const membership: UpstreamSource<SupportersSnapshot> = {
    name: 'membership',
    fetch: () =>
      new Promise((resolve) => {
        upstream.release = () => resolve({ platform: 'membership', supporters: [...upstream.supporters], tiers: [], fetchedAt: new Date().toISOString() });
      }),
  };
  const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: () => Promise.resolve({ platform: 'video', supporters: [], tiers: [], fetchedAt: new Date().toISOString() }) };
  const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: () => Promise.resolve({ subscribers: 1, fetchedAt: new Date().toISOString() }) };
  const store = new SnapshotStore({ sources: { membership, video, stats }, refreshIntervalMs: 0, logger: silentLogger });
  return { store, upstream };
}

async function refreshed(store: SnapshotStore, upstream: { release(): void }): Promise<void> {
  const refresh = store.refresh('membership');
  await Promise.resolve();
  upstream.release();
  await refresh;
}

describe('the channel graph context', () => {
  it('reads a snapshot in memory without waiting, and keeps it for the whole request', async () => {
    const { store, upstream } = storeWith();
    await refreshed(store, upstream);
    const indexes = createSnapshotIndexes(store);
    const ctx = createChannelGraphContext(store, indexes);
    const first = ctx.platformRead('membership');
    expect(first?.snapshot).toBe(store.current('membership')?.data);
    expect(first?.snapshot.supporters.map((s) => s.id)).toEqual(['a']);

    upstream.supporters = [supporter('a', 300), supporter('b', 500)];
    await refreshed(store, upstream);
    expect(store.current('membership')?.data.supporters).toHaveLength(2);
    // The request's snapshot is still the one it read first, by either way of asking.
    expect(ctx.platformRead('membership')).toBe(first);
    expect(await ctx.platform('membership')).toBe(first);
    // A new request sees the new one.
    expect(createChannelGraphContext(store, indexes).platformRead('membership')?.snapshot.supporters).toHaveLength(2);
  });

  it('reads a cold store once, and answers without waiting only once that read is done', async () => {
    const { store, upstream } = storeWith();
    const ctx = createChannelGraphContext(store, createSnapshotIndexes(store));
    expect(ctx.platformRead('membership')).toBeUndefined();
    const reading = ctx.platform('membership');
    expect(ctx.platform('membership')).toBe(reading);
    await Promise.resolve();
    upstream.release();
    const index = await reading;
    expect(index.snapshot.supporters.map((s) => s.id)).toEqual(['a']);
    expect(ctx.platformRead('membership')).toBe(index);
  });

  it('answers a compiled query synchronously on a warm store, and with a promise on a cold one', async () => {
    const { store, upstream } = storeWith();
    const indexes = createSnapshotIndexes(store);
    const schema = createExecutableSchema({ schemaDir: 'schema' }, createChannelResolvers(indexes, { subscribe: () => () => undefined }));
    const compiled = compileQuery(schema, parse('{ supporters(platform: MEMBERSHIP) { __typename id name amountCents tier { title } } topSupporter { id } patron(id: "a") { name } tiers { title } }'));
    if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled));

    const cold = compiled.query(undefined, createChannelGraphContext(store, indexes), {});
    expect(cold).toBeInstanceOf(Promise);
    await Promise.resolve();
    upstream.release();
    const expected = { data: { supporters: [{ __typename: 'Patron', id: 'a', name: 'a', amountCents: 300, tier: null }], topSupporter: { id: 'a' }, patron: { name: 'a' }, tiers: [] } };
    expect(JSON.parse(JSON.stringify(await cold))).toEqual(expected);

    const warm = compiled.query(undefined, createChannelGraphContext(store, indexes), {});
    expect(warm).not.toBeInstanceOf(Promise);
    expect(JSON.parse(JSON.stringify(warm))).toEqual(expected);
  });
});
