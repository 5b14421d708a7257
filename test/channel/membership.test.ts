import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MembershipWebhookError, createMembershipSource, parseMembershipWebhook, verifyWebhookSignature,
} from '../../src/channel/membership.js';
import type { Supporter } from '../../src/channel/models.js';
import { UpstreamError } from '../../src/channel/upstream.js';
import { MemoryTokenStore } from '@channel-graph/oauth2';
import { startSandbox, type MembershipDataset, type RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxKeeper, sandboxRequests, setFault } from './sandbox-keeper.js';
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
        name: member.user.firstName || member.fullName.split(' ')[0]!,
        tierId: level?.id ?? null,
        amountCents: member.currentlyEntitledAmountCents,
        since: new Date(member.pledgeRelationshipStart!).toISOString(),
        lifetimeCents: member.campaignLifetimeSupportCents,
      };
    });
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
    expect(snapshot.tiers).toEqual(dataset.tiers.map((tier) => ({ id: tier.id, platform: 'membership', title: tier.title, amountCents: tier.amountCents })));

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
    const noFirstName = all.find((member) => member.patronStatus === 'active_patron' && member.user.firstName === '')!;
    expect(byId.get(noFirstName.id)?.name).toBe(noFirstName.fullName.split(' ')[0]);
    for (const supporter of snapshot.supporters) expect(supporter.name).not.toContain(' ');
  });

  it('follows links.next until it is absent (2,500 patrons → 3 pages of 1,000)', async () => {
    const big = await startSandbox({ patrons: 2500, seed: 3 });
    try {
      const before = await sandboxRequests(big);
      const snapshot = await createMembershipSource({ apiBase: big.url, campaignId: big.credentials.campaignId, keeper: sandboxKeeper(big) }).fetch();
      expect((await sandboxRequests(big)).members! - before.members!).toBe(3);
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
      await expect(source.fetch()).rejects.toThrow(/^membership: malformed campaign document: data/);
      await setFault(sandbox, { target: 'membership', malformed: 'json' });
      await expect(source.fetch()).rejects.toThrow('membership: malformed campaign: the body is not valid JSON');
    } finally {
      await setFault(sandbox, null);
    }
    await expect(createMembershipSource({ apiBase: sandbox.url, campaignId: 'not-mine', keeper: sandboxKeeper(sandbox) }).fetch()).rejects.toMatchObject({ status: 404 });
  });

  it('never follows a links.next to another origin with the bearer token', async () => {
    const requests: IncomingHttpHeaders[] = [];
    const fake = createServer((req, res) => {
      requests.push(req.headers);
      const page = req.url?.includes('/members')
        ? { data: [], links: { next: 'http://127.0.0.2:9/api/oauth2/v2/campaigns/1/members?page%5Bcursor%5D=x' } }
        : { data: { type: 'campaign', id: '1' }, included: [] };
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end(JSON.stringify(page));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const source = createMembershipSource({ apiBase: base, campaignId: '1', keeper: sandboxKeeper({ ...sandbox, url: base }) });
      await expect(source.fetch()).rejects.toThrow('membership: members page 2: the link points to another origin than MEMBERSHIP_API_BASE');
      expect(requests).toHaveLength(2);
    } finally {
      await new Promise((resolve) => fake.close(resolve));
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
      tiers: [{ id: tier.id, platform: 'membership', title: tier.title, amountCents: tier.amountCents }],
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
    ).toThrow(/currently_entitled_amount_cents/);
  });
});
