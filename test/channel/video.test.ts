import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripDecorativeEmoji } from '../../src/channel/emoji.js';
import type { MembersConfig } from '../../src/channel/members-config.js';
import { IncompleteReadError, UpstreamError, type SkippedRecord } from '../../src/channel/upstream.js';
import { createVideoMembersSource, createVideoStatsSource } from '../../src/channel/video.js';
import { startSandbox, type RunningSandbox, type VideoMemberRecord } from '../../src/sandbox/index.js';
import { startFixturePlatform } from '../support/fixture-platform.js';
import { sandboxRequests, setFault } from './sandbox-keeper.js';

const DAY_MS = 86_400_000;

/** When a member started at the tier: days, or calendar months (clamped to the month's last day), back from `today`. */
function startOf(today: number, member: VideoMemberRecord): number {
  if (member.atTier.unit === 'day') return today - member.atTier.amount * DAY_MS;
  const date = new Date(today);
  const month = date.getUTCMonth() - member.atTier.amount;
  return Date.UTC(date.getUTCFullYear(), month, Math.min(date.getUTCDate(), new Date(Date.UTC(date.getUTCFullYear(), month + 1, 0)).getUTCDate()));
}

describe('stripDecorativeEmoji', () => {
  it.each([
    ['⭐ Bronze Star ⭐', 'Bronze Star'],
    ['💎💎 Diamond  Club', 'Diamond Club'],
    ['❤️‍🔥 Legends of the Stream 🇧🇷 👩🏽‍💻', 'Legends of the Stream'],
    ['Team 1️⃣ #️⃣', 'Team'],
    ['🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scots', 'Scots'],
    ['Café ☕ Crew', 'Café Crew'],
    ['明星 会员', '明星 会员'],
    ['Pro™ Club © 2026', 'Pro™ Club © 2026'],
    ['Plain', 'Plain'],
    ['🎉🎉', ''],
  ])('%s → %s', (input, expected) => {
    expect(stripDecorativeEmoji(input)).toBe(expected);
  });
});

describe('video adapters against the sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it('reads tiers (cents from micros, names without emoji) and members (first names, since, daysAtTier in days or months)', async () => {
    const snapshot = await createVideoMembersSource({ apiBase: sandbox.url, members: sandbox.credentials.members }).fetch();
    const dataset = sandbox.datasets.video;
    // Whole days count back from the start of the UTC day of the fetch.
    const today = Math.floor(Date.parse(snapshot.fetchedAt) / DAY_MS) * DAY_MS;
    expect(snapshot.platform).toBe('video');
    expect(snapshot.tiers).toEqual(dataset.tiers.map((tier) => ({ id: tier.id, platform: 'video', title: stripDecorativeEmoji(tier.name), amountCents: tier.priceMicros / 10_000 })));
    expect(snapshot.tiers.map((tier) => tier.title)).toEqual(['Bronze Star', 'Diamond Club', 'Legends of the Stream']);
    expect(snapshot.supporters).toEqual(
      dataset.members.map((member) => ({
        id: member.channelId,
        platform: 'video',
        name: stripDecorativeEmoji(member.title).split(' ')[0],
        tierId: member.tierId,
        amountCents: dataset.tiers.find((tier) => tier.id === member.tierId)!.priceMicros / 10_000,
        since: new Date(startOf(today, member)).toISOString(),
        daysAtTier: Math.round((today - startOf(today, member)) / DAY_MS),
      })),
    );
    // Months are months: a member of N months has been there some 28 to 31 days a month, never N days.
    const months = dataset.members.find((member) => member.atTier.unit === 'month' && member.atTier.amount >= 3)!;
    const read = snapshot.supporters.find((supporter) => supporter.id === months.channelId)!;
    expect(read.daysAtTier).toBeGreaterThanOrEqual(months.atTier.amount * 28);
    expect(dataset.members.some((member) => member.atTier.unit === 'day')).toBe(true);
    // Titles decorated with emoji give the name, not the emoji.
    const decorated = dataset.members.find((member) => /\p{Extended_Pictographic}/u.test(member.title))!;
    expect(snapshot.supporters.find((supporter) => supporter.id === decorated.channelId)?.name).toMatch(/^\p{L}+$/u);
  });

  it('follows continuationToken and batches channel ids (250 members → 3 pages, 5 title requests)', async () => {
    const big = await startSandbox({ videoMembers: 250, seed: 5 });
    try {
      const before = await sandboxRequests(big);
      const snapshot = await createVideoMembersSource({ apiBase: big.url, members: big.credentials.members }).fetch();
      const after = await sandboxRequests(big);
      expect(after.sponsorships! - before.sponsorships!).toBe(3);
      expect(after.channels! - before.channels!).toBe(5);
      expect(snapshot.supporters.map((supporter) => supporter.id)).toEqual(big.datasets.video.members.map((member) => member.channelId));
      expect(snapshot.supporters.every((supporter) => supporter.name !== null)).toBe(true);
    } finally {
      await big.close();
    }
  });

  it('reads the lifetime subscriber count from the dashboard facts card', async () => {
    const stats = await createVideoStatsSource({ apiBase: sandbox.url, members: sandbox.credentials.members }).fetch();
    expect(stats.subscribers).toBe(sandbox.datasets.video.subscribers);
    expect(Date.parse(stats.fetchedAt)).toBeGreaterThan(Date.now() - 10_000);
  });

  it('sends the key, headers and referrer of members.json: without them the platform refuses, and the error leaks none', async () => {
    const good = sandbox.credentials.members;
    const variants: [MembersConfig, number][] = [
      [{ ...good, key: 'stale-key-123' }, 400],
      [{ ...good, referrer: 'https://elsewhere.example/page' }, 403],
      [{ ...good, headers: { ...good.headers, cookie: 'SAPISID=expired-cookie-456' } }, 401],
    ];
    for (const [members, status] of variants) {
      for (const source of [createVideoMembersSource({ apiBase: sandbox.url, members }), createVideoStatsSource({ apiBase: sandbox.url, members })]) {
        const error = await source.fetch().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UpstreamError);
        expect((error as UpstreamError).status).toBe(status);
        for (const secret of [members.key, members.headers.cookie!, members.headers.authorization!]) expect((error as Error).message).not.toContain(secret);
      }
    }
  });

  it('maps faults and malformed documents to UpstreamError with a specific message', async () => {
    const members = createVideoMembersSource({ apiBase: sandbox.url, members: sandbox.credentials.members });
    const stats = createVideoStatsSource({ apiBase: sandbox.url, members: sandbox.credentials.members });
    try {
      await setFault(sandbox, { target: 'video', status: 503 });
      await expect(members.fetch()).rejects.toMatchObject({ source: 'video', status: 503, message: 'video: sponsorships page 1: the platform answered HTTP 503 (UNAVAILABLE)' });
      await setFault(sandbox, { target: 'video', malformed: 'shape' });
      await expect(members.fetch()).rejects.toThrow("video: malformed sponsorships page 1: (root): must have required property 'sponsorshipsData'");
      await expect(stats.fetch()).rejects.toThrow('stats: malformed channel dashboard: /cards: must be array');
      await setFault(sandbox, { target: 'video', malformed: 'json' });
      await expect(stats.fetch()).rejects.toThrow('stats: malformed channel dashboard: the body is not valid JSON');
    } finally {
      await setFault(sandbox, null);
    }
  });

  it('gives up on a hung platform after the request timeout', async () => {
    try {
      await setFault(sandbox, { target: 'video', latencyMs: 2000 });
      const stats = createVideoStatsSource({ apiBase: sandbox.url, members: sandbox.credentials.members, requestTimeoutMs: 100 });
      await expect(stats.fetch()).rejects.toThrow('stats: channel dashboard: the request was aborted or timed out');
    } finally {
      await setFault(sandbox, null);
    }
  });
});

describe('video adapter on answers it must tolerate', () => {
  it('skips the records it cannot read, reports them, and lists the rest; a repeated token is an IncompleteReadError', async () => {
    const platform = await startFixturePlatform();
    try {
      const tiers = [
        { id: 'T1', pricingLevelId: 1_990_000, liveVersion: { name: 'One' } },
        { id: 'T2', pricingLevelId: 'lots', liveVersion: { name: 'Broken' } },
      ];
      const sponsors = [
        { externalChannelId: 'UCgood', tierId: 'T1', durationAtCurrentTier: { amount: '2', timeUnit: 'SPONSORSHIPS_TIME_UNIT_DAY' } },
        { externalChannelId: 'UCunitless', tierId: 'T1', durationAtCurrentTier: { amount: 5 } },
        { externalChannelId: 'UCweek', tierId: 'T1', durationAtCurrentTier: { amount: 1, timeUnit: 'SPONSORSHIPS_TIME_UNIT_WEEK' } },
        { externalChannelId: 'UCnowhere', tierId: 'T9', durationAtCurrentTier: { amount: 1, timeUnit: 'SPONSORSHIPS_TIME_UNIT_DAY' } },
        { tierId: 'T1' },
      ];
      platform.handlers.sponsorships = () => ({ body: { sponsorshipsData: { sponsorshipsTierData: { tiers }, sponsorsData: { sponsors } } } });
      platform.handlers.channels = ({ body }) => ({ body: { channels: (body.channelIds as string[]).map((channelId) => (channelId === 'UCunitless' ? { title: 'no id' } : { channelId, title: 'Zoe Q' })) } });
      const skipped: SkippedRecord[] = [];
      const { video } = platform.upstream();
      const snapshot = await createVideoMembersSource(video).fetch(undefined, { skipped: (record) => skipped.push(record) });
      expect(snapshot.supporters.map((supporter) => [supporter.id, supporter.name, supporter.daysAtTier])).toEqual([['UCgood', 'Zoe', 2], ['UCunitless', null, 5]]);
      expect(snapshot.tiers.map((tier) => tier.id)).toEqual(['T1']);
      expect(skipped.map(({ id, reason }) => `${id} ${reason}`).sort()).toEqual([
        'channel (no id) malformed', 'member (no id) malformed', 'member UCnowhere unlisted_tier', 'member UCweek malformed', 'tier T2 malformed',
      ]);

      platform.handlers.sponsorships = () => ({ body: { sponsorshipsData: { sponsorsData: { sponsors: [], continuationToken: 'again' } } } });
      const error = await createVideoMembersSource(video).fetch().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IncompleteReadError);
      expect((error as Error).message).toBe('video: sponsorships page 3: the platform gave the token of a page already read; stopped after 0 members, not served as the whole list');
    } finally {
      await platform.close();
    }
  });
});
