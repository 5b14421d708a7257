import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../http/harness.js';
import { listOf, query, startGraphApp } from './graph-harness.js';

/**
 * The graph's semantics over HTTP against the whole app in sandbox mode, with the expected values
 * read from the REST endpoints of the same app (REST and GraphQL must agree).
 */
type RestUser = { id: string; name: string | null; level: { level_id: string | null; amount_cents: number; created_at: string } };
type RestList = { users: RestUser[]; levels: Record<string, string>; fetched_at: string; stale: boolean };

const REST_PATH = { MEMBERSHIP: '/membership/pledges', VIDEO: '/video/members' } as const;
type GraphPlatform = keyof typeof REST_PATH;

let started: Awaited<ReturnType<typeof startGraphApp>>;
let url: string;

async function rest(platform: GraphPlatform, sort: 'since' | 'amount'): Promise<RestList> {
  const response = await request(url, 'GET', `${REST_PATH[platform]}?sort=${sort}`);
  expect(response.status).toBe(200);
  return response.json<RestList>();
}

const ms = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  started = await startGraphApp({ responseCache: false });
  url = started.app.url;
});
afterAll(() => started.close());

describe('supporters', () => {
  for (const platform of ['MEMBERSHIP', 'VIDEO'] as const) {
    for (const [order, sort] of [['SINCE', 'since'], ['AMOUNT', 'amount']] as const) {
      it(`${platform} ordered by ${order}: the same ids, order, names and amounts as GET ${REST_PATH[platform]}?sort=${sort}`, async () => {
        const expected = await rest(platform, sort);
        expect(expected.users.length).toBeGreaterThan(0);
        const { data, errors } = await query(url, `query($p: Platform, $o: SupporterOrder) { supporters(platform: $p, orderBy: $o) { id name amountCents since platform tier { id title } } }`, { p: platform, o: order });
        expect(errors).toBeUndefined();
        expect(data!.supporters).toEqual(
          expected.users.map((user) => ({
            id: user.id,
            name: user.name,
            amountCents: user.level.amount_cents,
            since: new Date(user.level.created_at).toISOString(),
            platform,
            tier: user.level.level_id === null ? null : { id: user.level.level_id, title: expected.levels[user.level.level_id] ?? null },
          })),
        );
      });
    }
  }

  it('without a platform merges both platforms, oldest first by default (ties by id)', async () => {
    const [membership, video] = await Promise.all([rest('MEMBERSHIP', 'since'), rest('VIDEO', 'since')]);
    const { data, errors } = await query(url, '{ supporters { __typename id since } }');
    expect(errors).toBeUndefined();
    const merged: Array<{ __typename: string; id: string; since: string }> = data!.supporters;
    expect(merged.map((s) => s.id).sort()).toEqual([...membership.users, ...video.users].map((u) => u.id).sort());
    expect(merged.filter((s) => s.__typename === 'Patron').map((s) => s.id)).toEqual(membership.users.map((u) => u.id));
    expect(merged.filter((s) => s.__typename === 'ChannelMember').map((s) => s.id)).toEqual(video.users.map((u) => u.id));
    for (let i = 1; i < merged.length; i++) {
      const [previous, current] = [merged[i - 1]!, merged[i]!];
      expect(ms(previous.since) < ms(current.since) || (ms(previous.since) === ms(current.since) && previous.id < current.id)).toBe(true);
    }
  });

  it('AMOUNT without a platform: highest amount first across both platforms, ties oldest first', async () => {
    const { data } = await query(url, '{ supporters(orderBy: AMOUNT) { id amountCents since } }');
    const merged: Array<{ id: string; amountCents: number; since: string }> = data!.supporters;
    for (let i = 1; i < merged.length; i++) {
      const [previous, current] = [merged[i - 1]!, merged[i]!];
      const ordered = previous.amountCents > current.amountCents || (previous.amountCents === current.amountCents && ms(previous.since) <= ms(current.since));
      expect(ordered, `${previous.id} before ${current.id}`).toBe(true);
    }
  });

  it('resolves Patron and ChannelMember with their own fields', async () => {
    const { data } = await query(url, '{ supporters { __typename platform ... on Patron { lifetimeCents } ... on ChannelMember { daysAtTier } } }');
    const supporters = data!.supporters as Array<Record<string, unknown>>;
    const patrons = supporters.filter((s) => s.__typename === 'Patron');
    const members = supporters.filter((s) => s.__typename === 'ChannelMember');
    expect(patrons.length + members.length).toBe(supporters.length);
    expect(patrons.length).toBeGreaterThan(0);
    expect(members.length).toBeGreaterThan(0);
    expect(patrons.every((s) => s.platform === 'MEMBERSHIP' && typeof s.lifetimeCents === 'number')).toBe(true);
    expect(members.every((s) => s.platform === 'VIDEO' && typeof s.daysAtTier === 'number')).toBe(true);
  });
});

describe('topSupporter', () => {
  it('is the highest amount (ties: the oldest) of both platforms, and of each one', async () => {
    const [membership, video] = await Promise.all([rest('MEMBERSHIP', 'amount'), rest('VIDEO', 'amount')]);
    const all = [...membership.users, ...video.users].sort(
      (a, b) => b.level.amount_cents - a.level.amount_cents || ms(a.level.created_at) - ms(b.level.created_at) || (a.id < b.id ? -1 : 1),
    );
    const { data, errors } = await query(url, '{ both: topSupporter { id amountCents } m: topSupporter(platform: MEMBERSHIP) { id } v: topSupporter(platform: VIDEO) { id } }');
    expect(errors).toBeUndefined();
    expect(data!.both).toEqual({ id: all[0]!.id, amountCents: all[0]!.level.amount_cents });
    expect(data!.m.id).toBe(membership.users[0]!.id);
    expect(data!.v.id).toBe(video.users[0]!.id);
  });
});

describe('patron and member by id', () => {
  it('returns the supporter the REST list shows', async () => {
    const [membership, video] = await Promise.all([rest('MEMBERSHIP', 'since'), rest('VIDEO', 'since')]);
    const patron = membership.users.at(-1)!;
    const member = video.users.at(-1)!;
    const { data, errors } = await query(url, 'query($p: String!, $m: String!) { patron(id: $p) { id name amountCents } member(id: $m) { id name amountCents } }', { p: patron.id, m: member.id });
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      patron: { id: patron.id, name: patron.name, amountCents: patron.level.amount_cents },
      member: { id: member.id, name: member.name, amountCents: member.level.amount_cents },
    });
  });

  it('an unknown id is null without an error (also an id of the other platform)', async () => {
    const video = await rest('VIDEO', 'since');
    const response = await query(url, 'query($v: String!) { patron(id: "no-such-patron") { id } member(id: "no-such-member") { id } other: patron(id: $v) { id } }', { v: video.users[0]!.id });
    expect(response).toEqual({ data: { patron: null, member: null, other: null } });
  });
});

describe('tiers', () => {
  it('lists each platform’s tiers with their supporters, oldest first, as REST levels and users', async () => {
    for (const platform of ['MEMBERSHIP', 'VIDEO'] as const) {
      const expected = await rest(platform, 'since');
      const { data, errors } = await query(url, 'query($p: Platform) { tiers(platform: $p) { id title platform supporters { id tier { id } } } }', { p: platform });
      expect(errors).toBeUndefined();
      const tiers: Array<{ id: string; title: string | null; platform: string; supporters: Array<{ id: string; tier: { id: string } }> }> = data!.tiers;
      expect(Object.fromEntries(tiers.map((tier) => [tier.id, tier.title]))).toEqual(expected.levels);
      for (const tier of tiers) {
        expect(tier.platform).toBe(platform);
        expect(tier.supporters.map((s) => s.id)).toEqual(expected.users.filter((u) => u.level.level_id === tier.id).map((u) => u.id));
        expect(tier.supporters.every((s) => s.tier.id === tier.id)).toBe(true);
      }
    }
    const both = await query(url, '{ tiers { platform } }');
    expect(new Set(listOf<{ platform: string }>(both.data!.tiers).map((t) => t.platform))).toEqual(new Set(['MEMBERSHIP', 'VIDEO']));
  });
});

describe('stats', () => {
  it('matches GET /video/stats, with DateTime as an ISO-8601 string', async () => {
    const expected = (await request(url, 'GET', '/video/stats')).json<{ subscribers: number; fetched_at: string; stale: boolean }>();
    const { data, errors } = await query(url, '{ stats { subscribers fetchedAt stale } }');
    expect(errors).toBeUndefined();
    expect(data!.stats).toEqual({ subscribers: expected.subscribers, fetchedAt: new Date(expected.fetched_at).toISOString(), stale: expected.stale });
    expect(data!.stats.fetchedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
