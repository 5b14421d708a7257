import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelApiResponseError, createChannelApiClient } from '@channel-graph/client/rest';
import type { SupportersResponse } from '@channel-graph/client/rest';
import { stripDecorativeEmoji } from '../../src/channel/emoji.js';
import type { MemberRecord } from '../../src/sandbox/index.js';
import { request, startSandboxApp } from './harness.js';

/**
 * The three read endpoints and /healthz over real HTTP, app in sandbox mode. Expected values come
 * from the sandbox's own dataset generator.
 */
let harness: Awaited<ReturnType<typeof startSandboxApp>>;
let url: string;

beforeAll(async () => {
  harness = await startSandboxApp();
  url = harness.app.url;
});
afterAll(() => harness.close());

function activeMembers(): MemberRecord[] {
  const dataset = harness.app.sandbox.datasets.membership;
  return dataset.slice(0, dataset.size).filter((member) => member.patronStatus === 'active_patron');
}

function firstWord(text: string | undefined): string | undefined {
  return text?.trim().split(/\s+/)[0] || undefined;
}

type User = SupportersResponse['users'][number];

/** Adjacent pairs obey the order's rule (independent of the implementation's comparator). */
function expectOrdered(users: User[], order: 'since' | 'amount'): void {
  for (let i = 1; i < users.length; i += 1) {
    const [a, b] = [users[i - 1]!, users[i]!];
    if (order === 'amount' && a.level.amount_cents !== b.level.amount_cents) {
      expect(a.level.amount_cents, `${a.id} before ${b.id}`).toBeGreaterThan(b.level.amount_cents);
      continue;
    }
    const [sinceA, sinceB] = [Date.parse(a.level.created_at), Date.parse(b.level.created_at)];
    if (sinceA !== sinceB) expect(sinceA, `${a.id} before ${b.id}`).toBeLessThan(sinceB);
    else expect(a.id < b.id, `${a.id} before ${b.id} (same date: by id)`).toBe(true);
  }
}

describe('GET /membership/pledges', () => {
  it('lists exactly the active patrons with first names, amounts, levels and start dates', async () => {
    const response = await request(url, 'GET', '/membership/pledges');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = response.json<SupportersResponse>();
    const dataset = harness.app.sandbox.datasets.membership;
    const expected = activeMembers();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(dataset.size); // the dataset has declined/former members too
    expect(body.users.map((user) => user.id).sort()).toEqual(expected.map((member) => member.id).sort());
    for (const member of expected) {
      const user = body.users.find((candidate) => candidate.id === member.id)!;
      expect(user.name).toBe(firstWord(member.user?.firstName) ?? firstWord(member.fullName) ?? null);
      expect(user.name ?? '').not.toMatch(/\s/);
      expect(user.level.amount_cents).toBe(member.currentlyEntitledAmountCents);
      expect(Date.parse(user.level.created_at)).toBe(Date.parse(member.pledgeRelationshipStart!));
      const entitled = member.entitledTierIds.map((id) => dataset.tier(id)!).sort((a, b) => b.amountCents - a.amountCents);
      const level = entitled[0] ?? dataset.tiers.find((tier) => tier.amountCents === member.currentlyEntitledAmountCents);
      expect(user.level.level_id).toBe(level?.id ?? null);
    }
    // Titles as typed on the platform, without their decorative emoji.
    expect(body.levels).toEqual(Object.fromEntries(dataset.tiers.map((tier) => [tier.id, stripDecorativeEmoji(tier.title)])));
    expect(body.stale).toBe(false);
    expect(Date.now() - Date.parse(body.fetched_at)).toBeLessThan(60_000);
  });

  it('sorts oldest first by default and with sort=since', async () => {
    const byDefault = (await request(url, 'GET', '/membership/pledges')).json<SupportersResponse>();
    const since = (await request(url, 'GET', '/membership/pledges?sort=since')).json<SupportersResponse>();
    expect(since).toEqual(byDefault);
    expectOrdered(since.users, 'since');
  });

  it('sorts highest amount first (ties oldest first) with sort=amount', async () => {
    const body = (await request(url, 'GET', '/membership/pledges?sort=amount')).json<SupportersResponse>();
    expectOrdered(body.users, 'amount');
    expect(new Set(body.users.map((user) => user.level.amount_cents)).size).toBeGreaterThan(1);
  });

  it('answers 400 problem+json for an unknown or repeated sort, naming the parameter', async () => {
    const unknown = await request(url, 'GET', '/membership/pledges?sort=name');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
    expect(unknown.json()).toMatchObject({ status: 400, title: 'Bad Request', detail: 'query parameter "sort" must be one of "since", "amount", got "name"' });
    const repeated = await request(url, 'GET', '/video/members?sort=since&sort=amount');
    expect(repeated.status).toBe(400);
    expect(repeated.json<{ detail: string }>().detail).toContain('"sort" must be given at most once');
    const empty = await request(url, 'GET', '/membership/pledges?sort=');
    expect(empty.status).toBe(400);
  });

  it('ignores unknown query parameters such as cache busters', async () => {
    const response = await request(url, 'GET', '/membership/pledges?t=1732170000&sort=amount');
    expect(response.status).toBe(200);
    expect(response.text).toBe((await request(url, 'GET', '/membership/pledges?sort=amount')).text);
  });
});

describe('GET /video/members', () => {
  it('lists every channel member with a first name, the tier price in cents and emoji-free level titles', async () => {
    const body = (await request(url, 'GET', '/video/members')).json<SupportersResponse>();
    const dataset = harness.app.sandbox.datasets.video;
    expect(body.users.map((user) => user.id).sort()).toEqual(dataset.members.map((member) => member.channelId).sort());
    for (const member of dataset.members) {
      const user = body.users.find((candidate) => candidate.id === member.channelId)!;
      const tier = dataset.tiers.find((candidate) => candidate.id === member.tierId)!;
      expect(user.level.level_id).toBe(member.tierId);
      expect(user.level.amount_cents).toBe(tier.priceMicros / 10_000);
      // durationAtCurrentTier is in days or months: created_at is that long ago (to the day).
      const since = new Date();
      if (member.atTier.unit === 'month') since.setUTCMonth(since.getUTCMonth() - member.atTier.amount);
      else since.setTime(since.getTime() - member.atTier.amount * 86_400_000);
      expect(Math.abs(Date.parse(user.level.created_at) - since.getTime()) / 86_400_000).toBeLessThan(3.01);
      // Every sandbox title starts with a first name, after any decoration: the name is that word.
      const decorations = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\u200D|\uFE0F/gu;
      expect(user.name, member.title).toBe(firstWord(member.title.replace(decorations, ' ')));
      expect(user.name).toMatch(/^[\p{L}\p{N}'’._-]+$/u);
    }
    expect(Object.keys(body.levels).sort()).toEqual(dataset.tiers.map((tier) => tier.id).sort());
    for (const title of Object.values(body.levels)) {
      expect(title).toMatch(/\p{L}/u);
      expect(title).not.toMatch(/\p{Extended_Pictographic}|\p{Regional_Indicator}/u);
    }
    expectOrdered(body.users, 'since');
  });

  it('sorts by amount', async () => {
    const body = (await request(url, 'GET', '/video/members?sort=amount')).json<SupportersResponse>();
    expectOrdered(body.users, 'amount');
    // Amounts that differ, so that the order is the amounts' and not only the dates' tie-break.
    expect(new Set(body.users.map((user) => user.level.amount_cents)).size).toBeGreaterThan(1);
  });
});

describe('GET /video/stats', () => {
  it('gives the lifetime subscriber count', async () => {
    const response = await request(url, 'GET', '/video/stats');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ subscribers: harness.app.sandbox.datasets.video.subscribers, fetched_at: expect.any(String), stale: false });
  });
});

describe('GET /healthz', () => {
  it('reports every source with its age, stale flag and last error', async () => {
    await harness.app.store.read('video');
    await harness.app.store.read('stats');
    const body = (await request(url, 'GET', '/healthz')).json<{ status: string; sources: Record<string, unknown> }>();
    expect(body.status).toBe('ok');
    for (const source of ['membership', 'video', 'stats']) {
      expect(body.sources[source]).toMatchObject({ stale: false, last_error: null, fetched_at: expect.any(String), age_seconds: expect.any(Number) });
    }
  });
});

describe('sandbox mode is visible where an operator looks', () => {
  it('/healthz and /readyz say "mode": "sandbox", and /metrics has channel_graph_mode{mode="sandbox"} 1', async () => {
    await Promise.all((['membership', 'video', 'stats'] as const).map((source) => harness.app.store.read(source)));
    const health = await request(url, 'GET', '/healthz');
    expect(health.json()).toMatchObject({ status: 'ok', mode: 'sandbox' });
    const ready = await request(url, 'GET', '/readyz');
    expect(ready.json()).toEqual({ status: 'ready', mode: 'sandbox' });
    const metrics = await request(url, 'GET', '/metrics');
    const modes = metrics.text.split('\n').filter((line) => line.startsWith('channel_graph_mode{'));
    expect(modes).toEqual(['channel_graph_mode{mode="sandbox"} 1']);
  });
});

describe('HTTP semantics', () => {
  it('answers 404 problem+json for an unknown path', async () => {
    const response = await request(url, 'GET', '/membership/pledge');
    expect(response.status).toBe(404);
    expect(response.json()).toMatchObject({ status: 404, detail: 'no resource at /membership/pledge' });
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const del = await request(url, 'DELETE', '/video/stats');
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    const get = await request(url, 'GET', '/membership/webhook');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('answers HEAD like GET without a body, and lets browsers read the data (CORS)', async () => {
    const head = await request(url, 'HEAD', '/video/stats');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(head.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('gives an ETag and answers 304 to If-None-Match while the data is unchanged', async () => {
    const first = await request(url, 'GET', '/membership/pledges?sort=amount');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await request(url, 'GET', '/membership/pledges?sort=amount', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await request(url, 'GET', '/membership/pledges?sort=amount', { headers: { 'if-none-match': `W/${etag!}` } })).status).toBe(304);
    // Another order is another body, another tag.
    const since = await request(url, 'GET', '/membership/pledges', { headers: { 'if-none-match': etag! } });
    expect(since.status).toBe(200);
    expect(since.headers.get('etag')).not.toBe(etag);
  });

  it('serves /graphql from the same server and snapshot store', async () => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ stats { subscribers } supporters(platform: MEMBERSHIP, orderBy: AMOUNT) { id } }' }),
    });
    const body = (await response.json()) as { data: { stats: { subscribers: number }; supporters: Array<{ id: string }> } };
    const rest = (await request(url, 'GET', '/membership/pledges?sort=amount')).json<SupportersResponse>();
    expect(body.data.stats.subscribers).toBe(harness.app.sandbox.datasets.video.subscribers);
    expect(body.data.supporters.map((supporter) => supporter.id)).toEqual(rest.users.map((user) => user.id));
  });
});

describe('createChannelApiClient (@channel-graph/client/rest)', () => {
  it('reads the endpoints with typed results and typed problem errors', async () => {
    const api = createChannelApiClient(url);
    const pledges = await api.GET('/membership/pledges', { params: { query: { sort: 'amount' } } });
    expect(pledges.response.status).toBe(200);
    expect(pledges.data?.users.map((user) => user.id)).toEqual((await request(url, 'GET', '/membership/pledges?sort=amount')).json<SupportersResponse>().users.map((user) => user.id));
    const stats = await api.GET('/video/stats');
    expect(stats.data?.subscribers).toBe(harness.app.sandbox.datasets.video.subscribers);
    const bad = await api.GET('/video/members', { params: { query: { sort: 'oldest' as 'since' } } });
    expect(bad.data).toBeUndefined();
    expect(bad.error).toMatchObject({ status: 400, detail: expect.stringContaining('"oldest"') });
  });

  it('rejects a successful answer that is not JSON with ChannelApiResponseError; reads text when asked to', async () => {
    // What a proxy's page or a development server's fallback answers in place of the API.
    const html = '<!doctype html><title>Sign in</title>{"users":[]}';
    const impostor = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const api = createChannelApiClient(`http://127.0.0.1:${(impostor.address() as AddressInfo).port}`);
      const error = await api.GET('/membership/pledges').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ChannelApiResponseError);
      expect(error).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8', message: 'GET /membership/pledges answered 200 with text/html; charset=utf-8, not JSON' });
      expect((await api.GET('/membership/pledges', { parseAs: 'text' })).data).toBe(html);
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });
});
