import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMembershipSource } from '../../src/channel/membership.js';
import { UpstreamError, type UpstreamSource } from '../../src/channel/upstream.js';
import { createVideoMembersSource, createVideoStatsSource } from '../../src/channel/video.js';
import { OAuth2Client, TokenKeeper } from '@channel-graph/oauth2';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { eventually } from '../support/eventually.js';
import { collectGarbageContinuously, startHungUpstream, type HungUpstream } from '../support/hung-upstream.js';

/**
 * Every request of the platform adapters has a deadline that fires on Node 20, 22 and 24 — the
 * video adapter's own (fetch + body under one timer), the membership adapter's and the token
 * endpoint's through the OAuth2 client's `connection.timeout` — against an upstream that never
 * answers and one that stalls its body, with the caller's signal given (as the snapshot store
 * gives it) and the garbage collector running every 5 ms: the conditions under which Node 20
 * loses an `AbortSignal.any([signal, AbortSignal.timeout(ms)])` timeout.
 */
const DEADLINE_MS = 1_000;

let sandbox: RunningSandbox;
let silent: HungUpstream;
let stalledBody: HungUpstream;
const clients: OAuth2Client[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 3 });
  silent = await startHungUpstream('silent');
  stalledBody = await startHungUpstream('stalledBody');
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([silent.close(), stalledBody.close(), sandbox.close()]);
});

/**
 * Fetches with a live caller signal under continuous GC; resolves with the error and the time it
 * took. The collection stops with the fetch: left running (this file shares its worker with others)
 * it would slow every later file in the worker down several times over.
 */
async function fetchFailure<T>(source: UpstreamSource<T>): Promise<{ error: unknown; ms: number }> {
  const stopCollecting = collectGarbageContinuously();
  const caller = new AbortController();
  const started = performance.now();
  try {
    const error = await source.fetch(caller.signal).then(
      () => new Error('the fetch succeeded'),
      (failure: unknown) => failure,
    );
    return { error, ms: performance.now() - started };
  } finally {
    stopCollecting();
  }
}

function membershipSource(site: string, token: { expired: boolean }) {
  const client = new OAuth2Client('id', 'secret', { site, tokenUrl: '/api/oauth2/token', connection: { timeout: DEADLINE_MS } });
  clients.push(client);
  const expiresAt = Math.floor(Date.now() / 1000) + (token.expired ? -10 : 3600);
  const keeper = new TokenKeeper(client, { initial: { access_token: 'access', refresh_token: 'refresh', expires_at: expiresAt } });
  return createMembershipSource({ apiBase: site, campaignId: '42', keeper });
}

describe('video adapter: fetch and body under one deadline', () => {
  for (const [label, upstream] of [
    ['accepts the connection and never answers', () => silent],
    ['sends the headers and then stalls the body', () => stalledBody],
  ] as const) {
    it(`an upstream that ${label}: UpstreamError at the deadline, connection closed`, async () => {
      const members = createVideoMembersSource({ apiBase: upstream().url, members: sandbox.credentials.members, requestTimeoutMs: DEADLINE_MS });
      const { error, ms } = await fetchFailure(members);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as Error).message).toBe(`video: sponsorships page 1: the request was aborted or timed out (no answer within ${DEADLINE_MS} ms)`);
      expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
      expect(ms).toBeLessThan(10_000); // the deadline, not undici's 300 s headers timeout or no end at all
      await eventually('the connection closed', () => upstream().open.size === 0);

      const stats = createVideoStatsSource({ apiBase: upstream().url, members: sandbox.credentials.members, requestTimeoutMs: DEADLINE_MS });
      expect((await fetchFailure(stats)).error).toMatchObject({ source: 'stats', message: `stats: channel dashboard: the request was aborted or timed out (no answer within ${DEADLINE_MS} ms)` });
    });
  }

  it("the caller's signal still cuts a request short before its deadline", async () => {
    const members = createVideoMembersSource({ apiBase: silent.url, members: sandbox.credentials.members, requestTimeoutMs: 60_000 });
    const caller = new AbortController();
    const before = silent.requests;
    const fetching = members.fetch(caller.signal).catch((failure: unknown) => failure);
    await eventually('the request at the upstream', () => silent.requests > before);
    caller.abort(new Error('store closed'));
    const error = await fetching;
    expect(error).toMatchObject({ name: 'UpstreamError', message: 'video: sponsorships page 1: the request was aborted or timed out (cancelled by the caller)' });
    expect(((error as Error).cause as Error).message).toBe('store closed');
  });
});

describe('membership adapter: the OAuth2 client deadline covers the API and the token endpoint', () => {
  for (const [label, upstream, kind] of [
    ['accepts the connection and never answers', () => silent, 'silent'],
    ['sends the headers and then stalls the body', () => stalledBody, 'stalledBody'],
  ] as const) {
    it(`a membership API that ${label}: UpstreamError at the deadline`, async () => {
      const { error, ms } = await fetchFailure(membershipSource(upstream().url, { expired: false }));
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as Error).message).toMatch(new RegExp(`^membership: campaign: the request was aborted or timed out \\(request to http://127\\.0\\.0\\.1:\\d+/api/oauth2/v2/campaigns/42 timed out after ${DEADLINE_MS} ms\\)$`));
      expect(ms).toBeLessThan(10_000);
    });

    it(`a token endpoint that ${label}: the refresh fails at the deadline`, async () => {
      const own = await startHungUpstream(kind); // its own, so that it counts this test's requests only
      try {
        const { error, ms } = await fetchFailure(membershipSource(own.url, { expired: true }));
        expect((error as Error).message).toMatch(new RegExp(`^membership: campaign: the request was aborted or timed out \\(request to http://127\\.0\\.0\\.1:\\d+/api/oauth2/token timed out after ${DEADLINE_MS} ms\\)$`));
        // The token request at most (on a loaded machine the deadline can fire before it arrives): the API was never called.
        expect(own.requests).toBeLessThanOrEqual(1);
        expect(ms).toBeLessThan(10_000);
      } finally {
        await own.close();
      }
    });
  }
});
