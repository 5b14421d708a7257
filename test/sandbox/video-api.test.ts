import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

describe('sandbox video platform (channel-dashboard internal API)', () => {
  let sandbox: RunningSandbox;
  let call: (path: string, body: unknown, init?: { key?: string; headers?: Record<string, string> }) => Promise<Response>;

  beforeAll(async () => {
    sandbox = await startSandbox({ videoMembers: 23 });
    const { members } = sandbox.credentials;
    call = (path, body, init = {}) =>
      fetch(`${sandbox.url}/youtubei/v1/${path}?alt=json&key=${init.key ?? members.key}`, {
        method: 'POST',
        headers: { ...members.headers, 'content-type': 'application/json', referer: members.referrer, ...init.headers },
        body: JSON.stringify(body),
      });
  });
  afterAll(() => sandbox.close());

  const sponsorshipsBody = (continuationToken?: string) => ({
    context: sandbox.credentials.members.context,
    externalChannelId: sandbox.credentials.members.externalChannelId,
    mask: { sponsorshipsTierData: { all: true }, sponsorsData: { all: true } },
    sponsorsOptions: { pageSize: 10, filter: {}, ...(continuationToken && { continuationToken }) },
  });

  it('serves tiers (price in micros, names with emoji) and sponsors under sponsorshipsData, page by page through continuationToken', async () => {
    const seen: string[] = [];
    const units = new Set<string>();
    let token: string | undefined;
    let pages = 0;
    do {
      const response = await call('sponsors/creator_sponsorships_data', sponsorshipsBody(token));
      expect(response.status).toBe(200);
      const { sponsorshipsData: data } = await response.json();
      pages += 1;
      expect(data.sponsorshipsTierData.tiers).toHaveLength(3);
      for (const tier of data.sponsorshipsTierData.tiers) {
        expect(tier.pricingLevelId).toMatch(/^\d+0000$/);
        expect(tier.liveVersion.name).toMatch(/\p{Extended_Pictographic}/u);
      }
      for (const sponsor of data.sponsorsData.sponsors) {
        expect(sponsor.durationAtCurrentTier.amount).toEqual(expect.any(Number));
        units.add(sponsor.durationAtCurrentTier.timeUnit);
        seen.push(sponsor.externalChannelId);
      }
      token = data.sponsorsData.continuationToken;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(sandbox.datasets.video.members.map((member) => member.channelId));
    // Durations come in days and in months.
    expect(units).toEqual(new Set(['SPONSORSHIPS_TIME_UNIT_DAY', 'SPONSORSHIPS_TIME_UNIT_MONTH']));
  });

  it('returns the titles of the requested channels, only the masked fields, at most 50 ids per request', async () => {
    const ids = sandbox.datasets.video.members.slice(0, 3).map((member) => member.channelId);
    const body = await (await call('creator/get_creator_channels', { context: sandbox.credentials.members.context, channelIds: [...ids, 'UCunknown'], mask: { channelId: true, title: true } })).json();
    expect(body.channels).toEqual(ids.map((channelId) => ({ channelId, title: sandbox.datasets.video.channelTitle(channelId) })));
    const tooMany = await call('creator/get_creator_channels', { context: sandbox.credentials.members.context, channelIds: Array(51).fill(ids[0]), mask: { title: true } });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.status).toBe('INVALID_ARGUMENT');
  });

  const dashboardBody = (dimension: string) => ({
    context: sandbox.credentials.members.context,
    dashboardParams: {
      channelId: sandbox.credentials.members.externalChannelId,
      factsAnalyticsParams: {
        nodes: [{ key: 'DASHBOARD_FACT_ANALYTICS_LIFETIME_SUBSCRIBERS', value: { query: { metrics: [{ type: 'SUBSCRIBERS_NET_CHANGE' }], restricts: [{ dimension: { type: dimension }, inValues: [sandbox.credentials.members.externalChannelId] }] } } }],
      },
    },
  });

  it('serves the subscriber count at the channel-dashboard path, for a query restricted on dimension USER', async () => {
    const response = await call('creator/get_channel_dashboard', dashboardBody('USER'));
    type Fact = { key: string; value: { resultTable: { metricColumns: { counts: { values: number[] } }[] } } };
    type Card = { body?: { basicCard?: { item?: { channelFactsItem?: { channelFactsData?: { results: Fact[] } } } } } };
    const body = (await response.json()) as { cards: Card[] };
    const results = body.cards.flatMap((card) => card.body?.basicCard?.item?.channelFactsItem?.channelFactsData?.results ?? []);
    const fact = results.find((result) => result.key === 'DASHBOARD_FACT_ANALYTICS_LIFETIME_SUBSCRIBERS');
    expect(fact?.value.resultTable.metricColumns[0]?.counts.values[0]).toBe(sandbox.datasets.video.subscribers);
  });

  it('rejects a wrong or missing key, a foreign referrer, missing credentials, another channel and a bad body like a Google front end', async () => {
    const body = sponsorshipsBody();
    const cases: [Promise<Response>, number, string][] = [
      [call('sponsors/creator_sponsorships_data', body, { key: 'wrong' }), 400, 'INVALID_ARGUMENT'],
      [call('sponsors/creator_sponsorships_data', body, { key: '' }), 403, 'PERMISSION_DENIED'],
      [call('sponsors/creator_sponsorships_data', body, { headers: { referer: 'https://evil.example/' } }), 403, 'PERMISSION_DENIED'],
      [call('sponsors/creator_sponsorships_data', body, { headers: { cookie: 'SAPISID=stale' } }), 401, 'UNAUTHENTICATED'],
      [call('sponsors/creator_sponsorships_data', { ...body, externalChannelId: 'UCsomeoneElse0000000000000' }), 403, 'PERMISSION_DENIED'],
      [call('sponsors/creator_sponsorships_data', { ...body, context: {} }), 400, 'INVALID_ARGUMENT'],
      [call('sponsors/creator_sponsorships_data', { ...body, sponsorsOptions: { continuationToken: 'forged' } }), 400, 'INVALID_ARGUMENT'],
      [call('creator/get_channel_dashboard', dashboardBody('CHANNEL')), 400, 'INVALID_ARGUMENT'],
    ];
    for (const [pending, status, name] of cases) {
      const response = await pending;
      expect(response.status).toBe(status);
      const error = (await response.json()).error;
      expect(error).toMatchObject({ code: status, status: name });
      expect(error.message).not.toContain(sandbox.credentials.members.key);
    }
    const noReferrer = await fetch(`${sandbox.url}/youtubei/v1/sponsors/creator_sponsorships_data?alt=json&key=${sandbox.credentials.members.key}`, {
      method: 'POST',
      headers: sandbox.credentials.members.headers,
      body: JSON.stringify(body),
    });
    expect(noReferrer.status).toBe(403);
    expect((await noReferrer.json()).error.message).toBe('Requests from referer <empty> are blocked.');
  });
});
