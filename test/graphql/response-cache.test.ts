import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxControl } from '../http/harness.js';
import { eventually } from '../support/eventually.js';
import { listOf, postGraph, startGraphApp } from './graph-harness.js';

/**
 * The response cache serves repeated queries (observable as ETag / 304: an answer is kept from its
 * second request on) and forgets everything when a snapshot changes: a membership webhook or a refresh.
 */
const PATRONS = '{ supporters(platform: MEMBERSHIP) { id } }';
const STATS = '{ stats { subscribers fetchedAt } }';

let started: Awaited<ReturnType<typeof startGraphApp>>;
beforeAll(async () => {
  started = await startGraphApp({ responseCache: true });
});
afterAll(() => started.close());

/** The answer to a query asked twice: the second is kept, and tagged. */
async function kept(queryText: string): ReturnType<typeof postGraph> {
  await postGraph(started.app.url, { query: queryText });
  return postGraph(started.app.url, { query: queryText });
}

async function revalidate(queryText: string, etag: string): Promise<number> {
  return (await postGraph(started.app.url, { query: queryText }, { 'if-none-match': etag })).status;
}

describe('response cache', () => {
  it('is invalidated by a membership webhook: the removed patron disappears at once', async () => {
    const first = await kept(PATRONS);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(await revalidate(PATRONS, etag!)).toBe(304);

    const removed: string = first.body.data!.supporters[0].id;
    await sandboxControl(started.app.sandbox, 'POST', 'webhook', { url: `${started.app.url}/membership/webhook`, event: 'members:pledge:delete', memberId: removed });

    expect(await revalidate(PATRONS, etag!)).toBe(200);
    const after = await postGraph(started.app.url, { query: PATRONS });
    const ids = listOf<{ id: string }>(after.body.data!.supporters).map((s) => s.id);
    expect(ids).not.toContain(removed);
    expect(ids).toEqual(listOf<{ id: string }>(first.body.data!.supporters).map((s) => s.id).filter((id: string) => id !== removed));
  });

  it('is invalidated by a refresh', async () => {
    const first = await kept(STATS);
    const etag = first.headers.get('etag')!;
    expect(await revalidate(STATS, etag)).toBe(304);
    // A later fetchedAt (milliseconds): the refresh starts once the clock has passed the first one.
    await eventually('the clock past the first fetchedAt', () => Date.now() > Date.parse(first.body.data!.stats.fetchedAt), { intervalMs: 1 });
    await started.app.store.refresh('stats');
    const after = await postGraph(started.app.url, { query: STATS });
    expect(after.status).toBe(200);
    expect(Date.parse(after.body.data!.stats.fetchedAt)).toBeGreaterThan(Date.parse(first.body.data!.stats.fetchedAt));
  });
});
