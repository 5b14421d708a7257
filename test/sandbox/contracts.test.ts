import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMembershipSource } from '../../src/channel/membership.js';
import { createVideoMembersSource, createVideoStatsSource } from '../../src/channel/video.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxKeeper, setFault } from '../channel/sandbox-keeper.js';
import { startFixturePlatform } from '../support/fixture-platform.js';
import { UpstreamContract } from '../support/upstream-contract.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The sandbox answers from the upstream contracts: every kind of answer it gives — token responses
 * and errors, campaign, members pages in both pagination styles, JSON:API and Google errors,
 * memberships data pages, channel titles, the dashboard, and each webhook trigger — validates
 * against openapi/upstreams/*.yaml. And the adapters send what those contracts describe.
 */
const membership = new UpstreamContract('openapi/upstreams/membership-v2.yaml');
const video = new UpstreamContract('openapi/upstreams/video-dashboard.yaml');

interface Exchange {
  status: number;
  contentType: string | null;
  body: unknown;
}

async function exchange(url: string, init: RequestInit = {}): Promise<Exchange> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(text) as unknown };
}

function expectConforms(contract: UpstreamContract, method: string, url: string, answer: Exchange): void {
  const path = new URL(url).pathname;
  expect(contract.answer(method, path, answer.status, answer.contentType, answer.body), `${method} ${path} → ${answer.status}`).toEqual([]);
}

describe('the sandbox answers as the upstream contracts say', () => {
  let sandbox: RunningSandbox;
  let linked: RunningSandbox;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    sandbox = await startSandbox({ patrons: 60, videoMembers: 23, membersPageLimit: 25 });
    linked = await startSandbox({ patrons: 30, membershipPagination: 'link', membersPageLimit: 20 });
    receiver = await startWebhookReceiver(204);
  });
  afterAll(async () => {
    await sandbox.close();
    await linked.close();
    await receiver.close();
  });

  it('membership: token endpoint answers and errors', async () => {
    const { clientId, clientSecret, refreshToken } = sandbox.credentials;
    const token = `${sandbox.url}/api/oauth2/token`;
    const form = (fields: Record<string, string>): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const refreshed = await exchange(token, form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret }));
    expect(refreshed.status).toBe(200);
    expectConforms(membership, 'POST', token, refreshed);
    const reused = await exchange(token, form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret }));
    expect(reused.status).toBe(400);
    expectConforms(membership, 'POST', token, reused);
    const wrongClient = await exchange(token, form({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId, client_secret: 'wrong' }));
    expect(wrongClient.status).toBe(401);
    expectConforms(membership, 'POST', token, wrongClient);
  });

  it('membership: campaign and members pages (cursor and link styles, every dataset case), and its errors', async () => {
    for (const [platform, expectedPages] of [[sandbox, 3], [linked, 2]] as const) {
      const auth = { headers: { authorization: `Bearer ${platform.credentials.accessToken}` } };
      const campaign = `${platform.url}/api/oauth2/v2/campaigns/${platform.credentials.campaignId}`;
      expectConforms(membership, 'GET', campaign, await exchange(`${campaign}?include=tiers&fields%5Btier%5D=title,amount_cents`, auth));
      // Every attribute the platform has, so the nulls of members who never pledged are in the answers.
      const fields = 'include=currently_entitled_tiers,user,campaign&fields%5Bmember%5D=full_name,patron_status,currently_entitled_amount_cents,pledge_relationship_start,campaign_lifetime_support_cents,lifetime_support_cents,is_follower,last_charge_date,last_charge_status,will_pay_amount_cents,note,pledge_cadence&fields%5Btier%5D=title,amount_cents,description,published,url,user_limit,requires_shipping&fields%5Buser%5D=first_name,full_name,vanity,url,is_creator';
      let next: string | undefined = `${campaign}/members?${fields}&page%5Bcount%5D=1000`;
      let pages = 0;
      while (next !== undefined) {
        const page = await exchange(next, auth);
        expectConforms(membership, 'GET', next, page);
        pages += 1;
        const body = page.body as { links?: { next?: string }; meta?: { pagination: { cursors: { next: string | null } } } };
        const cursor = body.meta?.pagination.cursors.next ?? new URL(body.links?.next ?? 'http://x').searchParams.get('page[cursor]');
        next = cursor ? `${campaign}/members?${fields}&page%5Bcursor%5D=${encodeURIComponent(cursor)}` : undefined;
      }
      expect(pages).toBe(expectedPages);
    }
    const members = `${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}/members`;
    const auth = { headers: { authorization: `Bearer ${sandbox.credentials.accessToken}` } };
    expectConforms(membership, 'GET', members, await exchange(`${members}?page%5Bcount%5D=nope`, auth));
    expectConforms(membership, 'GET', members, await exchange(members));
    const campaign = `${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}`;
    expectConforms(membership, 'GET', campaign, await exchange(campaign));
    for (const other of [`${sandbox.url}/api/oauth2/v2/campaigns/999/members`, `${sandbox.url}/api/oauth2/v2/campaigns/999`]) {
      expectConforms(membership, 'GET', other, await exchange(other, auth));
    }
    try {
      for (const status of [429, 500, 503]) {
        await setFault(sandbox, { target: 'membership', status });
        expectConforms(membership, 'GET', members, await exchange(members, auth));
        expectConforms(membership, 'GET', campaign, await exchange(campaign, auth));
      }
    } finally {
      await setFault(sandbox, null);
    }
  });

  it('membership: every webhook trigger, signed, with the member document', async () => {
    const dataset = sandbox.datasets.membership;
    const all = dataset.slice(0, dataset.size);
    const without = all.find((member) => member.user === null)!;
    const never = all.find((member) => member.patronStatus === null)!;
    const triggers = ['members:pledge:create', 'members:pledge:update', 'members:pledge:delete', 'members:create', 'members:update', 'members:delete'];
    for (const [index, event] of triggers.entries()) {
      const memberId = (index % 2 === 0 ? without : never).id;
      const response = await fetch(`${sandbox.url}/__sandbox/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: receiver.url, event, memberId }) });
      expect(response.status).toBe(200);
      const delivery = receiver.deliveries.at(-1)!;
      expect(delivery.headers['x-patreon-event']).toBe(event);
      expect(delivery.headers['x-patreon-signature']).toMatch(/^[0-9a-f]{32}$/);
      expect(membership.webhook(event, JSON.parse(delivery.raw.toString('utf8'))), event).toEqual([]);
    }
  });

  it('video: memberships data pages, channel titles, the dashboard, and Google errors', async () => {
    const { members } = sandbox.credentials;
    const call = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Exchange> =>
      exchange(`${sandbox.url}${path}?alt=json&key=${members.key}`, {
        method: 'POST',
        headers: { ...members.headers, 'content-type': 'application/json', referer: members.referrer, ...headers },
        body: JSON.stringify({ context: members.context, ...(body as object) }),
      });
    const sponsorships = '/youtubei/v1/sponsors/creator_sponsorships_data';
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await call(sponsorships, { externalChannelId: members.externalChannelId, mask: { sponsorshipsTierData: { all: true }, sponsorsData: { all: true } }, sponsorsOptions: { pageSize: 10, filter: {}, ...(token && { continuationToken: token }) } });
      expectConforms(video, 'POST', `${sandbox.url}${sponsorships}`, page);
      token = (page.body as { sponsorshipsData: { sponsorsData: { continuationToken?: string } } }).sponsorshipsData.sponsorsData.continuationToken;
      pages += 1;
    } while (token !== undefined);
    expect(pages).toBe(3);
    const channels = '/youtubei/v1/creator/get_creator_channels';
    expectConforms(video, 'POST', `${sandbox.url}${channels}`, await call(channels, { channelIds: sandbox.datasets.video.members.slice(0, 5).map((member) => member.channelId), mask: { channelId: true, title: true } }));
    expectConforms(video, 'POST', `${sandbox.url}${channels}`, await call(channels, { channelIds: 'all', mask: {} }));
    const dashboard = '/youtubei/v1/creator/get_channel_dashboard';
    const restricts = (type: string) => [{ dimension: { type }, inValues: [members.externalChannelId] }];
    const facts = (type: string) => ({ dashboardParams: { channelId: members.externalChannelId, factsAnalyticsParams: { nodes: [{ key: 'DASHBOARD_FACT_ANALYTICS_LIFETIME_SUBSCRIBERS', value: { query: { metrics: [], restricts: restricts(type) } } }] } } });
    expectConforms(video, 'POST', `${sandbox.url}${dashboard}`, await call(dashboard, facts('USER')));
    expectConforms(video, 'POST', `${sandbox.url}${dashboard}`, await call(dashboard, facts('CHANNEL')));
    expectConforms(video, 'POST', `${sandbox.url}${sponsorships}`, await call(sponsorships, {}, { cookie: 'SAPISID=stale' }));
    expectConforms(video, 'POST', `${sandbox.url}${sponsorships}`, await call(sponsorships, {}, { referer: 'https://elsewhere.example/' }));
    try {
      await setFault(sandbox, { target: 'video', status: 503 });
      for (const path of [sponsorships, channels, dashboard]) expectConforms(video, 'POST', `${sandbox.url}${path}`, await call(path, facts('USER')));
    } finally {
      await setFault(sandbox, null);
    }
  });

  it('judged every answer the contracts declare, and every webhook trigger', () => {
    const declared = (contract: UpstreamContract) =>
      Object.entries(contract.document.paths).flatMap(([template, item]) =>
        Object.entries(item).flatMap(([method, operation]) => Object.keys(operation.responses).map((code) => `${method.toUpperCase()} ${template} ${code}`)));
    // 403 is the platform's answer to a token without the scope, which the sandbox never issues.
    const unjudgeable = new Set(['GET /api/oauth2/v2/campaigns/{campaign_id} 403', 'GET /api/oauth2/v2/campaigns/{campaign_id}/members 403']);
    for (const contract of [membership, video]) {
      for (const answer of declared(contract)) if (!unjudgeable.has(answer)) expect(contract.judged, answer).toContain(answer);
    }
    for (const trigger of Object.keys(membership.document.webhooks ?? {})) expect(membership.judged).toContain(`WEBHOOK ${trigger}`);
  });
});

describe('the adapters ask what the upstream contracts describe', () => {
  it('sends request bodies of the contracts\' schemas to every dashboard call, and the members query they declare', async () => {
    const platform = await startFixturePlatform();
    try {
      platform.handlers.sponsorships = ({ body }) => ({
        body: {
          sponsorshipsData: {
            sponsorshipsTierData: { tiers: [{ id: 'T1', pricingLevelId: '1990000', liveVersion: { name: 'One' } }] },
            sponsorsData: { sponsors: [{ externalChannelId: 'UC1', tierId: 'T1', durationAtCurrentTier: { amount: 1 } }], ...((body.sponsorsOptions as { continuationToken?: string }).continuationToken === undefined && { continuationToken: 'p2' }) },
          },
        },
      });
      const { video: settings, membership: account } = platform.upstream();
      await createVideoMembersSource(settings).fetch();
      await createVideoStatsSource(settings).fetch();
      const sandbox = { url: platform.url, credentials: { ...account } } as unknown as RunningSandbox;
      await createMembershipSource({ apiBase: platform.url, campaignId: account.campaignId, keeper: sandboxKeeper(sandbox) }).fetch();
      const posts = platform.requests.filter((seen) => seen.url.pathname.startsWith('/youtubei/'));
      expect(posts.map((seen) => seen.url.pathname)).toEqual([
        '/youtubei/v1/sponsors/creator_sponsorships_data', '/youtubei/v1/sponsors/creator_sponsorships_data', '/youtubei/v1/creator/get_creator_channels', '/youtubei/v1/creator/get_channel_dashboard',
      ]);
      for (const seen of posts) expect(video.request('POST', seen.url.pathname, 'application/json', seen.body), seen.url.pathname).toEqual([]);
      const members = platform.requests.find((seen) => seen.url.pathname.endsWith('/members'))!;
      const count = Number(members.url.searchParams.get('page[count]'));
      expect(count).toBeGreaterThanOrEqual(1);
      expect(count).toBeLessThanOrEqual(1000);
    } finally {
      await platform.close();
    }
  });
});
