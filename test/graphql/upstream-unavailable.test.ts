import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { request, sandboxControl } from '../http/harness.js';
import { listOf, postGraph, startLiveApp } from './graph-harness.js';

/**
 * A source that has never been fetched and whose upstream is down: its fields are null (or, for a
 * non-null list, hold only the platforms that are up) with an UPSTREAM_UNAVAILABLE error, and the
 * rest of the response resolves. The outage is a sandbox fault set before the app's first fetch.
 */
let sandbox: RunningSandbox;
let started: Awaited<ReturnType<typeof startLiveApp>>;

const EVERYTHING = `{
  supporters { __typename id }
  tiers { id platform }
  topSupporter { id }
  patronTop: topSupporter(platform: MEMBERSHIP) { id }
  member(id: "any") { id }
  stats { subscribers }
}`;

beforeAll(async () => {
  sandbox = await startSandbox();
  await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', status: 503 });
  // With the response cache on: a partial response must not be cached.
  started = await startLiveApp(sandbox, { responseCache: true });
});
afterAll(async () => {
  await started.close();
  await sandbox.close();
});

describe('UPSTREAM_UNAVAILABLE', () => {
  it('nulls the fields of the down source, keeps the rest, and says why', async () => {
    const patrons = (await request(started.app.url, 'GET', '/membership/pledges')).json<{ users: Array<{ id: string }> }>();
    const { status, body } = await postGraph(started.app.url, { query: EVERYTHING });
    expect(status).toBe(200);
    const data = body.data!;
    // Non-null lists: the membership platform only.
    expect(listOf<{ id: string }>(data.supporters).map((s) => s.id)).toEqual(patrons.users.map((u) => u.id));
    expect(listOf<{ __typename: string }>(data.supporters).every((s) => s.__typename === 'Patron')).toBe(true);
    expect(data.tiers.length).toBeGreaterThan(0);
    expect(listOf<{ platform: string }>(data.tiers).every((t) => t.platform === 'MEMBERSHIP')).toBe(true);
    // Nullable fields that need the video platform: null.
    expect(data.topSupporter).toBeNull();
    expect(data.member).toBeNull();
    expect(data.stats).toBeNull();
    // Fields that need only the membership platform: resolved.
    expect(data.patronTop).toEqual({ id: expect.any(String) });

    const errors = body.errors!;
    expect(errors.map((error) => error.path?.join('.')).sort()).toEqual(['member', 'stats', 'supporters', 'tiers', 'topSupporter']);
    for (const error of errors) {
      expect(error.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryAfterSeconds: expect.any(Number) });
      expect(['video', 'stats']).toContain(error.extensions!.source);
      expect(error.message).toMatch(/unavailable/);
      // No upstream detail (URLs, keys, tokens) reaches the client.
      expect(error.message).not.toContain(sandbox.url);
      expect(JSON.stringify(error)).not.toContain(sandbox.credentials.members.key);
    }
  });

  it('recovers on the next request once the upstream is back (the partial response was not cached)', async () => {
    await sandboxControl(sandbox, 'DELETE', 'faults');
    const { body } = await postGraph(started.app.url, { query: EVERYTHING });
    expect(body.errors).toBeUndefined();
    expect(listOf<{ __typename: string }>(body.data!.supporters).some((s) => s.__typename === 'ChannelMember')).toBe(true);
    expect(body.data!.stats).toEqual({ subscribers: expect.any(Number) });
    expect(body.data!.topSupporter).toEqual({ id: expect.any(String) });
  });

  it('once a snapshot exists, an outage serves it marked stale, without an error (and the cache learns of it)', async () => {
    const before = await postGraph(started.app.url, { query: '{ stats { subscribers fetchedAt stale } }' });
    expect(before.body.data!.stats.stale).toBe(false);
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', status: 503 });
    await expect(started.app.store.refresh('stats')).rejects.toThrow();
    const after = await postGraph(started.app.url, { query: '{ stats { subscribers fetchedAt stale } }' });
    expect(after.body).toEqual({ data: { stats: { ...before.body.data!.stats, stale: true } } });
    await sandboxControl(sandbox, 'DELETE', 'faults');
  });
});
