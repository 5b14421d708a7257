import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripDecorativeEmoji } from '../../src/channel/emoji.js';
import {
  MembershipWebhookError, createMembershipSource, parseMembershipWebhook, verifyWebhookSignature,
} from '../../src/channel/membership.js';
import type { Supporter, Tier } from '../../src/channel/models.js';
import { IncompleteReadError, UpstreamError, type SkippedRecord } from '../../src/channel/upstream.js';
import { MemoryTokenStore } from '@channel-graph/oauth2';
import { startSandbox, type MembershipDataset, type RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxKeeper, sandboxRequests, setFault } from './sandbox-keeper.js';
import { fixture } from '../support/fixture-platform.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** The membership rules applied to the sandbox's own dataset: active patrons, highest entitled tier, else amount match. */
function expectedSupporters(dataset: MembershipDataset): Supporter[] {
  return dataset
    .slice(0, dataset.size)
    .filter((member) => member.patronStatus === 'active_patron')
    .map((member) => {
      const entitled = member.entitledTierIds.map((id) => dataset.tier(id)!);
      const highest = entitled.sort((a, b) => b.amountCents - a.amountCents)[0];
      const level = highest ?? dataset.tiers.find((tier) => tier.amountCents === member.currentlyEntitledAmountCents);
      return {
        id: member.id,
        platform: 'membership',
        // Without a user record, the first word of the member's full name.
        name: member.user?.firstName || member.fullName.split(' ')[0]!,
        tierId: level?.id ?? null,
        amountCents: member.currentlyEntitledAmountCents!,
        since: new Date(member.pledgeRelationshipStart!).toISOString(),
        lifetimeCents: member.campaignLifetimeSupportCents,
      };
    });
}

/** The dataset's tiers as the service serves them: titles without decorative emoji. */
function expectedTiers(dataset: MembershipDataset): Tier[] {
  return dataset.tiers.map((tier) => ({ id: tier.id, platform: 'membership', title: stripDecorativeEmoji(tier.title), amountCents: tier.amountCents }));
}

describe('membership adapter against the sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it('keeps active patrons only, with first names, lifetime cents and the level rules', async () => {
    const source = createMembershipSource({ apiBase: sandbox.url, campaignId: sandbox.credentials.campaignId, keeper: sandboxKeeper(sandbox) });
    const snapshot = await source.fetch();
    const dataset = sandbox.datasets.membership;
    expect(snapshot.platform).toBe('membership');
    expect(snapshot.supporters).toEqual(expectedSupporters(dataset));
    expect(snapshot.tiers).toEqual(expectedTiers(dataset));
    // The titles carry emoji on the platform, none once read.
    expect(dataset.tiers.every((tier) => /\p{Extended_Pictographic}/u.test(tier.title))).toBe(true);
    expect(snapshot.tiers.map((tier) => tier.title)).toEqual(['Supporter', 'Fan', 'Champion', 'Patron Saint']);

    // The dataset exercises every rule, so the equality above is not vacuous.
    const byId = new Map(snapshot.supporters.map((supporter) => [supporter.id, supporter]));
    const all = dataset.slice(0, dataset.size);
    const inactive = all.filter((member) => member.patronStatus !== 'active_patron');
    expect(inactive.some((member) => member.patronStatus === 'declined_patron')).toBe(true);
    expect(inactive.every((member) => !byId.has(member.id))).toBe(true);
    const multi = all.find((member) => member.patronStatus === 'active_patron' && member.entitledTierIds.length > 1)!;
    const multiHighest = multi.entitledTierIds.map((id) => dataset.tier(id)!).reduce((best, tier) => (tier.amountCents > best.amountCents ? tier : best));
    expect(byId.get(multi.id)?.tierId).toBe(multiHighest.id);
    expect(multi.entitledTierIds[0]).not.toBe(byId.get(multi.id)?.tierId); // the highest is not simply the first listed
    const fallback = all.find((member) => member.patronStatus === 'active_patron' && member.entitledTierIds.length === 0 && dataset.tiers.some((t) => t.amountCents === member.currentlyEntitledAmountCents))!;
    expect(byId.get(fallback.id)?.tierId).toBe(dataset.tiers.find((t) => t.amountCents === fallback.currentlyEntitledAmountCents)!.id);
    const noFirstName = all.find((member) => member.patronStatus === 'active_patron' && member.user?.firstName === '')!;
    expect(byId.get(noFirstName.id)?.name).toBe(noFirstName.fullName.split(' ')[0]);
    expect(inactive.some((member) => member.patronStatus === null)).toBe(true);
    for (const supporter of snapshot.supporters) expect(supporter.name).not.toContain(' ');
  });

  it.each([
    ['meta.pagination.cursors.next', 'cursor', 1000, 3],
    ['a links.next with only page[cursor]', 'link', 1000, 3],
    ['the next cursor on pages shorter than asked', 'cursor', 300, 9],
  ] as const)('follows %s until the last page (2,500 members)', async (_how, membershipPagination, membersPageLimit, pages) => {
    const big = await startSandbox({ patrons: 2500, seed: 3, membershipPagination, membersPageLimit });
    try {
      const before = await sandboxRequests(big);
      const snapshot = await createMembershipSource({ apiBase: big.url, campaignId: big.credentials.campaignId, keeper: sandboxKeeper(big) }).fetch();
      expect((await sandboxRequests(big)).members! - before.members!).toBe(pages);
      expect(snapshot.supporters).toEqual(expectedSupporters(big.datasets.membership));
    } finally {
      await big.close();
    }
  });

  it('on a 401 refreshes once through the token keeper, retries, and persists the rotated token', async () => {
    const fresh = await startSandbox();
    try {
      const store = new MemoryTokenStore();
      const source = createMembershipSource({ apiBase: fresh.url, campaignId: fresh.credentials.campaignId, keeper: sandboxKeeper(fresh, { store }) });
      const first = await source.fetch();
      expect((await sandboxRequests(fresh)).token).toBe(0);
      await fetch(`${fresh.url}/__sandbox/expire-tokens`, { method: 'POST' });
      const second = await source.fetch();
      expect(second.supporters).toEqual(first.supporters);
      expect((await sandboxRequests(fresh)).token).toBe(1);
      const saved = await store.load();
      expect(saved?.refresh_token).toEqual(expect.any(String));
      expect(saved?.refresh_token).not.toBe(fresh.credentials.refreshToken);
      // A second keeper seeded with the same .env values resumes from the store, not the dead seed.
      const resumed = createMembershipSource({ apiBase: fresh.url, campaignId: fresh.credentials.campaignId, keeper: sandboxKeeper(fresh, { store }) });
      expect((await resumed.fetch()).supporters).toHaveLength(first.supporters.length);
    } finally {
      await fresh.close();
    }
  });

  it('turns a dead refresh token into an UpstreamError that names the OAuth error, not the token', async () => {
    const fresh = await startSandbox();
    try {
      await fetch(`${fresh.url}/__sandbox/expire-tokens`, { method: 'POST' });
      const source = createMembershipSource({ apiBase: fresh.url, campaignId: fresh.credentials.campaignId, keeper: sandboxKeeper(fresh, { refreshToken: 'revoked-refresh-token' }) });
      const error = await source.fetch().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).source).toBe('membership');
      expect((error as Error).message).toMatch(/invalid_grant/);
      for (const secret of ['revoked-refresh-token', fresh.credentials.accessToken, fresh.credentials.clientSecret]) expect((error as Error).message).not.toContain(secret);
    } finally {
      await fresh.close();
    }
  });

  it('maps upstream faults to UpstreamError: status, wrong shape, invalid JSON', async () => {
    const source = createMembershipSource({ apiBase: sandbox.url, campaignId: sandbox.credentials.campaignId, keeper: sandboxKeeper(sandbox) });
    try {
      await setFault(sandbox, { target: 'membership', status: 503 });
      await expect(source.fetch()).rejects.toMatchObject({ name: 'UpstreamError', source: 'membership', status: 503, message: expect.stringMatching(/HTTP 503/) });
      await setFault(sandbox, { target: 'membership', malformed: 'shape' });
      await expect(source.fetch()).rejects.toThrow(/^membership: malformed campaign document: \/data: /);
      await setFault(sandbox, { target: 'membership', malformed: 'json' });
      await expect(source.fetch()).rejects.toThrow('membership: malformed campaign: the body is not valid JSON');
    } finally {
      await setFault(sandbox, null);
    }
    await expect(createMembershipSource({ apiBase: sandbox.url, campaignId: 'not-mine', keeper: sandboxKeeper(sandbox) }).fetch()).rejects.toMatchObject({ status: 404 });
  });

  /** A platform whose members pages the test writes; the campaign has `tiers` (default none). */
  async function scriptedPlatform(page: (url: URL) => unknown, tiers: unknown[] = []): Promise<{ base: string; requests: { url: URL; headers: IncomingHttpHeaders }[]; close(): Promise<void> }> {
    const requests: { url: URL; headers: IncomingHttpHeaders }[] = [];
    const fake = createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      requests.push({ url, headers: req.headers });
      const body = url.pathname.endsWith('/members') ? page(url) : { data: { type: 'campaign', id: '1' }, included: tiers };
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    return {
      base: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
      requests,
      close: () => new Promise<void>((resolve) => fake.close(() => resolve())),
    };
  }

  it('never sends the bearer token to the origin of a links.next: only its cursor is used, on MEMBERSHIP_API_BASE', async () => {
    const fake = await scriptedPlatform((url) =>
      url.searchParams.get('page[cursor]') === 'x' ? { data: [] } : { data: [], links: { next: 'http://127.0.0.2:9/api/oauth2/v2/campaigns/1/members?page%5Bcursor%5D=x' } });
    try {
      const source = createMembershipSource({ apiBase: fake.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: fake.base }) });
      await expect(source.fetch()).resolves.toMatchObject({ supporters: [] });
      expect(fake.requests).toHaveLength(3);
      expect(fake.requests[2]!.url.searchParams.get('include')).toBe('currently_entitled_tiers,user');
      // A link without a cursor is followed, on the same origin only.
      const elsewhere = await scriptedPlatform(() => ({ data: [], links: { next: 'http://127.0.0.2:9/api/oauth2/v2/campaigns/1/members?after=x' } }));
      try {
        const other = createMembershipSource({ apiBase: elsewhere.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: elsewhere.base }) });
        await expect(other.fetch()).rejects.toThrow('membership: members page 2: the link points to another origin than MEMBERSHIP_API_BASE');
        expect(elsewhere.requests).toHaveLength(2);
      } finally {
        await elsewhere.close();
      }
    } finally {
      await fake.close();
    }
  });

  /** Four readable active patrons on two pages of two, whatever page[count] asks; attributes only when fields[member] asks them, as API v2. */
  function twoPages(next: (cursor: string, url: URL) => Record<string, unknown>) {
    return (url: URL): unknown => {
      const second = url.searchParams.get('page[cursor]') === 'c2';
      const fields = url.searchParams.get('fields[member]') !== null;
      const data = (second ? ['m3', 'm4'] : ['m1', 'm2']).map((id) => ({
        type: 'member',
        id,
        attributes: fields ? { patron_status: 'active_patron', currently_entitled_amount_cents: 500, pledge_relationship_start: '2024-01-01T00:00:00+00:00', full_name: `Name ${id}` } : {},
      }));
      return second ? { data, meta: { pagination: { cursors: { next: null }, total: 4 } } } : { data, ...next('c2', url) };
    };
  }

  it('reads every page by meta.pagination.cursors.next when there is no links.next, the pages shorter than asked (the docs today)', async () => {
    const fake = await scriptedPlatform(twoPages((cursor) => ({ meta: { pagination: { cursors: { next: cursor }, total: 4 } } })));
    try {
      const source = createMembershipSource({ apiBase: fake.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: fake.base }) });
      expect((await source.fetch()).supporters.map((supporter) => supporter.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
    } finally {
      await fake.close();
    }
  });

  it('asks the page of a cursor-only links.next with the service\'s own query, so it comes back with its attributes (the 2018 docs)', async () => {
    const fake = await scriptedPlatform(twoPages((cursor, url) => ({ links: { next: `${url.origin}/api/oauth2/v2/campaigns/1/members?page%5Bcursor%5D=${cursor}` } })));
    try {
      const source = createMembershipSource({ apiBase: fake.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: fake.base }) });
      expect((await source.fetch()).supporters.map((supporter) => supporter.name)).toEqual(['Name', 'Name', 'Name', 'Name']);
      expect(fake.requests.filter((seen) => seen.url.pathname.endsWith('/members')).map((seen) => seen.url.searchParams.get('fields[member]'))).toEqual([
        expect.stringContaining('patron_status'), expect.stringContaining('patron_status'),
      ]);
    } finally {
      await fake.close();
    }
  });

  it('strips decorative emoji from membership tier titles, as from video ones', async () => {
    const tiers = [
      { type: 'tier', id: 't1', attributes: { title: '🌱 Seedling', amount_cents: 300 } },
      { type: 'tier', id: 't2', attributes: { title: '❤️‍🔥 Super Fan 🇧🇷', amount_cents: 1000 } },
    ];
    const fake = await scriptedPlatform(() => ({ data: [] }), tiers);
    try {
      const source = createMembershipSource({ apiBase: fake.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: fake.base }) });
      expect((await source.fetch()).tiers.map((tier) => tier.title)).toEqual(['Seedling', 'Super Fan']);
    } finally {
      await fake.close();
    }
  });

  it('stops on a repeated cursor with an IncompleteReadError, never a partial list', async () => {
    const member = { type: 'member', id: 'm1', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 500, pledge_relationship_start: '2024-01-01T00:00:00+00:00', full_name: 'Ann Lee' } };
    const fake = await scriptedPlatform((url) => ({ data: [member], meta: { pagination: { cursors: { next: url.searchParams.get('page[cursor]') === 'b' ? 'a' : url.searchParams.get('page[cursor]') === 'a' ? 'b' : 'a' } } } }));
    try {
      const source = createMembershipSource({ apiBase: fake.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: fake.base }) });
      const error = await source.fetch().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IncompleteReadError);
      expect((error as Error).message).toBe('membership: members page 4: the platform gave the cursor of a page already read; stopped after 3 members, not served as the whole list');
    } finally {
      await fake.close();
    }
  });

  it('skips and reports each record it cannot read, and lists the rest', async () => {
    const start = '2024-01-01T00:00:00+00:00';
    const good = { type: 'member', id: 'good', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 500, pledge_relationship_start: start, full_name: 'Ann Lee' }, relationships: { currently_entitled_tiers: { data: [{ type: 'tier', id: 't1' }, { type: 'tier', id: 'bad-tier' }] }, user: { data: { type: 'user', id: 'u1' } } } };
    const page = {
      data: [
        good,
        { type: 'member', id: 'former', attributes: { patron_status: 'former_patron', currently_entitled_amount_cents: 'not even checked' } },
        { type: 'member', id: 'no-amount', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: null, pledge_relationship_start: start } },
        { type: 'member', id: 'bad-date', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 100, pledge_relationship_start: 'yesterday' } },
        { type: 'member', id: 'huge', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 2 ** 31, pledge_relationship_start: start } },
        { type: 'member', id: 'typed-wrong', attributes: { patron_status: 'active_patron', full_name: 7 } },
      ],
      included: [
        { type: 'tier', id: 't1', attributes: { title: '🌟 Gold 🌟', amount_cents: 500 } },
        { type: 'tier', id: 'bad-tier', attributes: { amount_cents: -5 } },
        { type: 'user', id: 'u1', attributes: { first_name: 12 } },
      ],
    };
    const fake = await scriptedPlatform(() => page);
    try {
      const skipped: SkippedRecord[] = [];
      const source = createMembershipSource({ apiBase: fake.base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: fake.base }) });
      const snapshot = await source.fetch(undefined, { skipped: (record) => skipped.push(record) });
      expect(snapshot.supporters).toEqual([{ id: 'good', platform: 'membership', name: 'Ann', tierId: 't1', amountCents: 500, since: '2024-01-01T00:00:00.000Z', lifetimeCents: null }]);
      expect(snapshot.tiers).toEqual([{ id: 't1', platform: 'membership', title: 'Gold', amountCents: 500 }]);
      expect(skipped.map(({ id, reason }) => `${id} ${reason}`).sort()).toEqual([
        'member bad-date malformed', 'member huge malformed', 'member no-amount incomplete', 'member typed-wrong malformed', 'tier bad-tier malformed', 'user u1 malformed',
      ]);
      expect(skipped.find((record) => record.id === 'member typed-wrong')?.detail).toBe('/attributes/full_name: must be string');
    } finally {
      await fake.close();
    }
  });

  it('answers a rate-limited page (the docs\' 429 example) with an UpstreamError naming it', async () => {
    const { status, body } = fixture('membership/error-rate-limit');
    const limited = createServer((_req, res) => res.writeHead(status!, { 'content-type': 'application/vnd.api+json' }).end(JSON.stringify(body)));
    await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
      const source = createMembershipSource({ apiBase: base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: base }) });
      await expect(source.fetch()).rejects.toMatchObject({ status: 429, message: 'membership: campaign: the platform answered HTTP 429 (You have made too many attempts. Please try again later.)' });
    } finally {
      await new Promise((resolve) => limited.close(resolve));
    }
  });
});

describe('membership webhooks', () => {
  let sandbox: RunningSandbox;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    sandbox = await startSandbox();
    receiver = await startWebhookReceiver(200);
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  async function deliver(event: string, memberId: string, tierId?: string) {
    const response = await fetch(`${sandbox.url}/__sandbox/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, event, memberId, ...(tierId && { tierId }) }),
    });
    expect(response.status).toBe(200);
    return receiver.deliveries.at(-1)!;
  }

  it('verifies the platform signature in constant time and rejects tampering, a wrong secret or a missing header', async () => {
    const member = sandbox.datasets.membership.member(0);
    const { headers, raw } = await deliver('members:pledge:update', member.id);
    const signature = headers['x-patreon-signature'] as string;
    const secret = sandbox.credentials.webhookSecret;
    expect(verifyWebhookSignature(raw, signature, secret)).toBe(true);
    expect(verifyWebhookSignature(raw, signature.toUpperCase(), secret)).toBe(true);
    const tampered = Buffer.from(raw.toString('utf8').replace('"currently_entitled_amount_cents":', '"currently_entitled_amount_cents":9'));
    expect(verifyWebhookSignature(tampered, signature, secret)).toBe(false);
    expect(verifyWebhookSignature(raw, signature, 'another-secret')).toBe(false);
    expect(verifyWebhookSignature(raw, undefined, secret)).toBe(false);
    expect(verifyWebhookSignature(raw, 'not-hex', secret)).toBe(false);
  });

  it('parses create and update into upserts with the same rules as the listing, and delete into a removal', async () => {
    const dataset = sandbox.datasets.membership;
    const former = dataset.slice(0, dataset.size).find((member) => member.patronStatus === 'former_patron')!;
    const tier = dataset.tiers[3]!;
    const created = await deliver('members:pledge:create', former.id, tier.id);
    const change = parseMembershipWebhook('members:pledge:create', JSON.parse(created.raw.toString('utf8')));
    expect(change).toEqual({
      kind: 'upsert',
      supporter: expectedSupporters(dataset).find((supporter) => supporter.id === former.id),
      tiers: [{ id: tier.id, platform: 'membership', title: stripDecorativeEmoji(tier.title), amountCents: tier.amountCents }],
    });
    // The listing agrees with the webhook.
    const listed = await createMembershipSource({ apiBase: sandbox.url, campaignId: sandbox.credentials.campaignId, keeper: sandboxKeeper(sandbox) }).fetch();
    expect(listed.supporters.find((supporter) => supporter.id === former.id)).toEqual(change.kind === 'upsert' && change.supporter);

    const removed = await deliver('members:pledge:delete', former.id);
    expect(parseMembershipWebhook('members:pledge:delete', JSON.parse(removed.raw.toString('utf8')))).toEqual({ kind: 'remove', id: former.id });

    const declined = dataset.slice(0, dataset.size).find((member) => member.patronStatus === 'declined_patron')!;
    const update = await deliver('members:pledge:update', declined.id);
    expect(parseMembershipWebhook('members:pledge:update', JSON.parse(update.raw.toString('utf8')))).toEqual({ kind: 'remove', id: declined.id });
  });

  it('throws MembershipWebhookError on a body that is not a member document', () => {
    expect(() => parseMembershipWebhook('members:pledge:create', { data: { type: 'campaign', id: '1' } })).toThrow(MembershipWebhookError);
    expect(() => parseMembershipWebhook('members:pledge:update', 'nonsense')).toThrow(/not a JSON:API member document/);
    expect(() =>
      parseMembershipWebhook('members:pledge:create', { data: { type: 'member', id: 'm1', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 'five' } } }),
    ).toThrow('webhook members:pledge:create: member m1 cannot be read: /attributes/currently_entitled_amount_cents: must be integer,null');
  });

  it('removes on a delete trigger, a status other than active_patron, or a null status or amount (the docs\' sample)', () => {
    const docs = fixture('membership/webhook-today').body;
    for (const event of ['members:pledge:update', 'members:update', 'members:pledge:create'] as const) {
      expect(parseMembershipWebhook(event, docs)).toEqual({ kind: 'remove', id: 'd485d5ac-6c82-42c6-9c08-c50cf01b73d7' });
    }
    const active = { type: 'member', id: 'm2', attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: null, pledge_relationship_start: null } };
    expect(parseMembershipWebhook('members:pledge:update', { data: active })).toEqual({ kind: 'remove', id: 'm2' });
    expect(parseMembershipWebhook('members:delete', { data: { ...active, attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 500 } } })).toEqual({ kind: 'remove', id: 'm2' });
  });
});
