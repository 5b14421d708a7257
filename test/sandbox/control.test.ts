import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** The fields of control-endpoint answers these tests read. */
interface ControlAnswer {
  faults: Record<string, { status?: number; rate: number }>;
  detail: string;
  delivered: boolean;
  status: number;
  patronStatus: string;
  requests: Record<string, number>;
}

async function control(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<{ status: number; body: ControlAnswer }> {
  const response = await fetch(`${sandbox.url}/__sandbox/${path}`, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as ControlAnswer };
}

function membersRequest(sandbox: RunningSandbox): Promise<Response> {
  return fetch(`${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}/members`, {
    headers: { authorization: `Bearer ${sandbox.credentials.accessToken}` },
  });
}

function videoRequest(sandbox: RunningSandbox): Promise<Response> {
  const { members } = sandbox.credentials;
  return fetch(`${sandbox.url}/youtubei/v1/creator/get_channel_dashboard?alt=json&key=${members.key}`, {
    method: 'POST',
    headers: { ...members.headers, referer: members.referrer },
    body: JSON.stringify({ context: members.context, dashboardParams: { channelId: members.externalChannelId } }),
  });
}

describe('sandbox fault injection', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it('fails the target platform with the status in its own error format, leaves the other alone, and clears', async () => {
    expect((await control(sandbox, 'POST', 'faults', { target: 'membership', status: 503 })).status).toBe(200);
    const failed = await membersRequest(sandbox);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    expect((await failed.json()).errors[0].status).toBe('503');
    expect((await videoRequest(sandbox)).status).toBe(200);
    expect((await control(sandbox, 'GET', 'faults')).body.faults.membership).toMatchObject({ status: 503, rate: 1 });
    await control(sandbox, 'DELETE', 'faults');
    expect((await membersRequest(sandbox)).status).toBe(200);

    await control(sandbox, 'POST', 'faults', { target: 'all', status: 500 });
    const video = await videoRequest(sandbox);
    expect(video.status).toBe(500);
    expect((await video.json()).error.status).toBe('INTERNAL');
    expect((await membersRequest(sandbox)).status).toBe(500);
    await control(sandbox, 'DELETE', 'faults');
  });

  it('serves malformed bodies: valid JSON of the wrong shape, or truncated JSON', async () => {
    await control(sandbox, 'POST', 'faults', { target: 'video', malformed: true });
    const shape = await videoRequest(sandbox);
    expect(shape.status).toBe(200);
    expect((await shape.json()).cards).toBe(7);
    await control(sandbox, 'POST', 'faults', { target: 'membership', malformed: 'json' });
    const truncated = await membersRequest(sandbox);
    await expect(truncated.json()).rejects.toThrow(SyntaxError);
    await control(sandbox, 'DELETE', 'faults');
  });

  it('delays responses by latencyMs', async () => {
    await control(sandbox, 'POST', 'faults', { target: 'video', latencyMs: 300 });
    const started = performance.now();
    expect((await videoRequest(sandbox)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await control(sandbox, 'DELETE', 'faults');
  });

  it('fails a seeded, reproducible subset of requests at a rate', async () => {
    const pattern = async (target: RunningSandbox) => {
      await control(target, 'POST', 'faults', { target: 'membership', status: 502, rate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i += 1) statuses.push((await membersRequest(target)).status);
      await control(target, 'DELETE', 'faults');
      return statuses;
    };
    const first = await pattern(sandbox);
    const twin = await startSandbox();
    const otherSeed = await startSandbox({ seed: 99 });
    try {
      expect(await pattern(twin)).toEqual(first);
      expect(await pattern(otherSeed)).not.toEqual(first);
    } finally {
      await twin.close();
      await otherSeed.close();
    }
    const failures = first.filter((status) => status === 502).length;
    expect(failures).toBeGreaterThan(8);
    expect(failures).toBeLessThan(32);
    expect(new Set(first)).toEqual(new Set([200, 502]));
  });

  it('rejects invalid fault requests with a problem+json detail', async () => {
    for (const body of [{ target: 'mail', status: 500 }, { target: 'video' }, { target: 'video', status: 200 }, { target: 'video', status: 500, rate: 2 }]) {
      const result = await control(sandbox, 'POST', 'faults', body);
      expect(result.status).toBe(400);
      expect(result.body.detail).toEqual(expect.any(String));
    }
  });
});

describe('sandbox webhook sender', () => {
  let sandbox: RunningSandbox;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    sandbox = await startSandbox();
    receiver = await startWebhookReceiver(204);
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it('POSTs the member document signed with hex HMAC-MD5 of the raw body, and the listing reflects the change', async () => {
    const former = sandbox.datasets.membership.slice(0, 40).find((member) => member.patronStatus === 'former_patron');
    expect(former).toBeDefined();
    const tier = sandbox.datasets.membership.tiers[2]!;
    const result = await control(sandbox, 'POST', 'webhook', { url: receiver.url, event: 'members:pledge:create', memberId: former!.id, tierId: tier.id });
    expect(result).toMatchObject({ status: 200, body: { delivered: true, status: 204, patronStatus: 'active_patron' } });
    const delivery = receiver.deliveries.at(-1)!;
    expect(delivery.headers['x-patreon-event']).toBe('members:pledge:create');
    const expected = createHmac('md5', sandbox.credentials.webhookSecret).update(delivery.raw).digest('hex');
    expect(delivery.headers['x-patreon-signature']).toBe(expected);
    const document = JSON.parse(delivery.raw.toString('utf8')) as {
      data: { relationships: { currently_entitled_tiers: { data: unknown[] } } };
      included: { type: string }[];
    };
    expect(document.data).toMatchObject({ type: 'member', id: former!.id, attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: tier.amountCents } });
    expect(document.data.relationships.currently_entitled_tiers.data).toEqual([{ type: 'tier', id: tier.id }]);
    const types = document.included.map((resource) => resource.type).sort();
    expect(types).toEqual(['campaign', 'tier', 'user']);

    const listing = (await (await fetch(`${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}/members?fields%5Bmember%5D=patron_status&page%5Bcount%5D=100`, {
      headers: { authorization: `Bearer ${sandbox.credentials.accessToken}` },
    })).json()) as { data: { id: string; attributes: { patron_status: string } }[] };
    expect(listing.data.find((member) => member.id === former!.id)?.attributes.patron_status).toBe('active_patron');

    const deleted = await control(sandbox, 'POST', 'webhook', { url: receiver.url, event: 'members:pledge:delete', memberId: former!.id });
    expect(deleted.body.patronStatus).toBe('former_patron');
  });

  it('refuses unknown members, unknown tiers and non-loopback receivers', async () => {
    const member = sandbox.datasets.membership.member(0);
    expect((await control(sandbox, 'POST', 'webhook', { url: receiver.url, event: 'members:pledge:update', memberId: 'nope' })).status).toBe(404);
    expect((await control(sandbox, 'POST', 'webhook', { url: receiver.url, event: 'members:pledge:update', memberId: member.id, tierId: '1' })).status).toBe(400);
    const remote = await control(sandbox, 'POST', 'webhook', { url: 'http://example.com/hook', event: 'members:pledge:update', memberId: member.id });
    expect(remote.status).toBe(400);
    expect(remote.body.detail).toMatch(/loopback/);
    const bad = await control(sandbox, 'POST', 'webhook', { url: receiver.url, event: 'members:pledge:explode', memberId: member.id });
    expect(bad.status).toBe(400);
  });

  it('reports request counts per endpoint', async () => {
    const before = (await control(sandbox, 'GET', 'stats')).body.requests.members;
    await membersRequest(sandbox);
    expect((await control(sandbox, 'GET', 'stats')).body.requests.members).toBe(before! + 1);
  });
});
