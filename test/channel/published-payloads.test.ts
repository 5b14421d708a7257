import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupportersResponse } from '@channel-graph/client/rest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import { signWebhookBody } from '../../src/sandbox/index.js';
import { captureLogger, makeDataDir, request, testConfig } from '../http/harness.js';
import { fixture, startFixturePlatform, type FixturePlatform, type PlatformRequest } from '../support/fixture-platform.js';

/**
 * The platforms' published examples (test/fixtures/upstreams/: the docs' samples and a captured
 * webhook) run through the adapters of a live-mode service, and the REST and GraphQL answers they
 * give. The examples are served as published; where a test changes one (to make a page out of a
 * record, to point a link elsewhere) it says so.
 */

const DAY_MS = 86_400_000;
const membersPage = (data: unknown[], included: unknown[], next: string | null) => ({ data, included, meta: { pagination: { cursors: { next }, total: 100 } } });

interface JsonApiMember {
  id: string;
  attributes: Record<string, unknown>;
}
interface MemberDocument {
  data: JsonApiMember;
  included: unknown[];
}

const captured = fixture<MemberDocument>('membership/webhook-captured-pledge-update');
const memberSample = fixture<MemberDocument>('membership/member-endpoints-v2');
/** Page 2 of every listing here: the captured member, in a page as today's docs give one (no next cursor). */
const capturedPage = membersPage([captured.body.data], captured.body.included, null);

let platform: FixturePlatform;
let app: ChannelApp;
let dataDir: Awaited<ReturnType<typeof makeDataDir>>;
const logs = captureLogger();

beforeAll(async () => {
  platform = await startFixturePlatform();
  platform.handlers.members = ({ url }) =>
    url.searchParams.get('page[cursor]') === '12345678ab1231cdefg' ? { body: capturedPage } : { body: fixture('membership/members-page-today').body };
  platform.handlers.sponsorships = () => ({ body: fixture('video/sponsorships-data').body });
  platform.handlers.channels = () => ({ body: fixture('video/creator-channels').body });
  dataDir = await makeDataDir();
  app = await createChannelApp(testConfig(dataDir.path, platform.upstream()), { logger: logs.logger });
});
afterAll(async () => {
  await app.close();
  await platform.close();
  await dataDir.remove();
});

async function graph<T>(query: string): Promise<T> {
  const response = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data as T;
}

async function pledges(): Promise<SupportersResponse> {
  const response = await request(app.url, 'GET', '/membership/pledges');
  expect(response.status, response.text).toBe(200);
  return response.json<SupportersResponse>();
}

async function refresh(source: 'membership' | 'video', members?: (request: PlatformRequest) => { body: unknown }): Promise<void> {
  if (members !== undefined) platform.handlers.members = members;
  await app.store.refresh(source);
}

async function deliver(event: string, body: unknown): Promise<number> {
  const raw = JSON.stringify(body);
  const response = await fetch(`${app.url}/membership/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-patreon-event': event, 'x-patreon-signature': signWebhookBody(raw, 'sandbox-webhook-secret') },
    body: raw,
  });
  const text = await response.text();
  expect(response.status, text).toBe(204);
  return response.status;
}

const MATT = {
  id: '6e8d5b84-dfc9-457b-bb88-89df59777251',
  name: 'Matt',
  level: { level_id: '9512023', amount_cents: 100, created_at: '2023-02-08T16:36:58.615Z' },
};

describe('membership: the docs\' members pages', () => {
  it('pages by meta.pagination.cursors.next with no links.next (the docs today), asking each page with the service\'s own query', async () => {
    const body = await pledges();
    // Page 1's member has no pledge_relationship_start (the docs' query does not ask it): skipped, counted.
    expect(body.users).toEqual([MATT]);
    expect(body.levels).toEqual({ 54321: 'Patron', 9512023: 'Not Even a Bit', 9512103: 'Bib' });
    expect(body.stale).toBe(false);
    const pages = platform.requests.filter((seen) => seen.url.pathname.endsWith('/members'));
    const second = pages.find((seen) => seen.url.searchParams.get('page[cursor]') === '12345678ab1231cdefg');
    expect(second, 'the second page is asked with the cursor').toBeDefined();
    for (const name of ['include', 'fields[member]', 'fields[tier]', 'fields[user]', 'page[count]']) {
      expect(second!.url.searchParams.get(name), name).toBe(pages[0]!.url.searchParams.get(name));
    }

    const data = await graph<{ supporters: unknown[] }>('{ supporters(platform: MEMBERSHIP) { id name amountCents since ... on Patron { lifetimeCents tier { id title amountCents } } } }');
    expect(data.supporters).toEqual([
      { id: MATT.id, name: 'Matt', amountCents: 100, since: MATT.level.created_at, lifetimeCents: 240, tier: { id: '9512023', title: 'Not Even a Bit', amountCents: 100 } },
    ]);
    // The skipped record is counted by reason and logged once for the refresh, with its id.
    expect(await app.metrics()).toMatch(/channel_upstream_records_skipped_total\{source="membership",reason="incomplete"\} 1\n/);
    const line = logs.lines.find((entry) => entry.msg === 'upstream records skipped');
    expect(line).toMatchObject({ source: 'membership', skipped: 1, records: [{ id: 'member 03ca69c3-ebea-4b9a-8fac-e4a837873254', reason: 'incomplete' }] });
  });

  it('reads the 2018 first cut: rewards for tiers, and the cursor of a links.next that carries nothing else, applied to the service\'s own query', async () => {
    const first = fixture<{ links: { next: string }; meta?: unknown }>('membership/members-page-2018').body;
    // A platform following that text to the letter: the link alone, without meta.
    delete first.meta;
    const before = platform.requests.length;
    await refresh('membership', ({ url }) => (url.searchParams.get('page[cursor]') === '12345678abcdefg' ? { body: capturedPage } : { body: first }));
    const body = await pledges();
    expect(body.users).toEqual([MATT]);
    expect(body.levels['54321']).toBe('Patron');
    const second = platform.requests.slice(before).find((seen) => seen.url.searchParams.get('page[cursor]') === '12345678abcdefg');
    // Asked of MEMBERSHIP_API_BASE with the whole query, never of the link's host or path as written.
    expect(second?.url.pathname).toMatch(/^\/api\/oauth2\/v2\/campaigns\/[^/]+\/members$/);
    expect(second?.url.searchParams.get('fields[member]')).toContain('patron_status');
  });

  it('filters a member who never pledged (null amount, as in the docs\' webhook sample) before validating its amount, and skips an unreadable record, serving the rest', async () => {
    const neverPledged = fixture<MemberDocument>('membership/webhook-today').body.data;
    // The docs' member sample, and a copy of it whose amount is not a number (made here).
    const unreadable = { ...memberSample.body.data, id: 'copy-with-a-text-amount', attributes: { ...memberSample.body.data.attributes, currently_entitled_amount_cents: 'one hundred' } };
    await refresh('membership', () => ({ body: membersPage([neverPledged, memberSample.body.data, unreadable], memberSample.body.included, null) }));
    const body = await pledges();
    expect(body.users).toEqual([{ id: '03ca69c3-ebea-4b9a-8fac-e4a837873254', name: 'Platform', level: { level_id: '99001122', amount_cents: 100, created_at: '2018-04-01T16:33:27.861Z' } }]);
    expect(body.levels['99001122']).toBe('Tshirt Tier');
    expect(await app.metrics()).toMatch(/channel_upstream_records_skipped_total\{source="membership",reason="malformed"\} 1\n/);
    // Only lifetime_support_cents (the field's older name) in the sample: still the lifetime.
    const data = await graph<{ patron: { lifetimeCents: number } }>('{ patron(id: "03ca69c3-ebea-4b9a-8fac-e4a837873254") { lifetimeCents } }');
    expect(data.patron.lifetimeCents).toBe(400);
  });

  it('never serves a read that stopped early as complete: a repeated cursor keeps the last complete list, stale, with the reason', async () => {
    await refresh('membership', ({ url }) => (url.searchParams.get('page[cursor]') === '12345678ab1231cdefg' ? { body: capturedPage } : { body: fixture('membership/members-page-today').body }));
    expect((await pledges()).users).toEqual([MATT]);
    const looping = membersPage([], [], 'same-cursor');
    await expect(refresh('membership', () => ({ body: looping }))).rejects.toThrow(/already read; stopped after 0 members, not served as the whole list/);
    const body = await pledges();
    expect(body).toMatchObject({ users: [MATT], stale: true });
    const health = (await request(app.url, 'GET', '/healthz')).json<{ sources: { membership: { stale: boolean; last_error: string } } }>();
    expect(health.sources.membership).toMatchObject({ stale: true, last_error: expect.stringMatching(/a page already read/) });
  });
});

describe('membership: the docs\' and captured webhooks', () => {
  beforeAll(async () => {
    // The listing: the captured member alone.
    await refresh('membership', () => ({ body: capturedPage }));
  });

  it('accepts the docs\' samples (today\'s and the 2018 one: status, amount and pledge start null) as "not a patron now", without a 400', async () => {
    await deliver('members:pledge:update', fixture('membership/webhook-today').body);
    await deliver('members:update', fixture('membership/webhook-2018').body);
    expect((await pledges()).users.map((user) => user.id)).toEqual([MATT.id]);
  });

  it('upserts the docs\' member sample, reading its lifetime from lifetime_support_cents, and the captured delivery as the listing reads it', async () => {
    await deliver('members:pledge:create', memberSample.body);
    await deliver('members:pledge:update', captured.body);
    const data = await graph<{ supporters: unknown[] }>('{ supporters(platform: MEMBERSHIP) { id name amountCents ... on Patron { lifetimeCents tier { title } } } }');
    expect(data.supporters).toEqual([
      { id: '03ca69c3-ebea-4b9a-8fac-e4a837873254', name: 'Platform', amountCents: 100, lifetimeCents: 400, tier: { title: 'Tshirt Tier' } },
      { id: MATT.id, name: 'Matt', amountCents: 100, lifetimeCents: 240, tier: { title: 'Not Even a Bit' } },
    ]);
  });

  it('removes a member whose amount turns null, or whose status is no longer active_patron', async () => {
    const attributes = captured.body.data.attributes;
    await deliver('members:pledge:update', { ...captured.body, data: { ...captured.body.data, attributes: { ...attributes, currently_entitled_amount_cents: null } } });
    expect((await pledges()).users.map((user) => user.id)).not.toContain(MATT.id);
    await deliver('members:pledge:update', captured.body);
    expect((await pledges()).users.map((user) => user.id)).toContain(MATT.id);
    await deliver('members:update', { ...captured.body, data: { ...captured.body.data, attributes: { ...attributes, patron_status: 'declined_patron' } } });
    expect((await pledges()).users.map((user) => user.id)).not.toContain(MATT.id);
  });
});

describe('video: answers with what the reference reads', () => {
  it('reads the memberships data nested under sponsorshipsData, durations in days and in months, names and titles without emoji', async () => {
    const response = await request(app.url, 'GET', '/video/members');
    expect(response.status, response.text).toBe(200);
    const body = response.json<SupportersResponse>();
    expect(body.levels).toEqual({ EgsIABCDEFGHIJ: 'Droplet', EgsIKLMNOPQRST: 'Sunflower', EgsIUVWXYZabcd: 'Avocado Farmer' });
    const today = Math.floor(Date.parse(body.fetched_at) / DAY_MS) * DAY_MS;
    const threeMonthsAgo = new Date(today);
    threeMonthsAgo.setUTCMonth(threeMonthsAgo.getUTCMonth() - 3);
    const expected = [
      { id: 'UCfixtureMember00000000001', name: 'Ada', level: { level_id: 'EgsIABCDEFGHIJ', amount_cents: 199, created_at: new Date(today - 12 * DAY_MS).toISOString() } },
      { id: 'UCfixtureMember00000000002', name: 'Grace', level: { level_id: 'EgsIKLMNOPQRST', amount_cents: 499, created_at: threeMonthsAgo.toISOString() } },
      { id: 'UCfixtureMember00000000003', name: 'Linus', level: { level_id: 'EgsIUVWXYZabcd', amount_cents: 999, created_at: new Date(today - 40 * DAY_MS).toISOString() } },
    ];
    expect([...body.users].sort((a, b) => a.id.localeCompare(b.id))).toEqual(expected);
    // Three months are some 89 to 92 days, never 3.
    const data = await graph<{ member: { daysAtTier: number; since: string } }>('{ member(id: "UCfixtureMember00000000002") { daysAtTier since } }');
    expect(data.member).toEqual({ daysAtTier: Math.round((today - threeMonthsAgo.getTime()) / DAY_MS), since: threeMonthsAgo.toISOString() });
    expect(data.member.daysAtTier).toBeGreaterThanOrEqual(89);
  });

  it('asks the next page with sponsorsOptions.continuationToken and the dashboard restricted on dimension USER', async () => {
    const page = fixture<{ sponsorshipsData: { sponsorsData: { sponsors: unknown[]; continuationToken?: string } } }>('video/sponsorships-data').body;
    const [first, ...rest] = page.sponsorshipsData.sponsorsData.sponsors;
    platform.handlers.sponsorships = ({ body }) => {
      const options = body.sponsorsOptions as { continuationToken?: string };
      const sponsors = options.continuationToken === 'page-2' ? rest : [first];
      return { body: { sponsorshipsData: { ...page.sponsorshipsData, sponsorsData: { sponsors, ...(options.continuationToken === undefined && { continuationToken: 'page-2' }) } } } };
    };
    const before = platform.requests.length;
    await refresh('video');
    const asked = platform.requests.slice(before).filter((seen) => seen.url.pathname.endsWith('/creator_sponsorships_data'));
    expect(asked.map((seen) => seen.body.sponsorsOptions)).toEqual([{ pageSize: 100, filter: {} }, { pageSize: 100, filter: {}, continuationToken: 'page-2' }]);
    expect((await request(app.url, 'GET', '/video/members')).json<SupportersResponse>().users).toHaveLength(3);

    const stats = (await request(app.url, 'GET', '/video/stats')).json<{ subscribers: number }>();
    expect(stats.subscribers).toBe(48213);
    const dashboard = platform.requests.find((seen) => seen.url.pathname.endsWith('/get_channel_dashboard'));
    expect(JSON.stringify(dashboard?.body)).toContain('"restricts":[{"dimension":{"type":"USER"}');
  });
});
