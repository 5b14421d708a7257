import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripDecorativeEmoji } from '../../src/channel/emoji.js';
import type { MembersConfig } from '../../src/channel/members-config.js';
import { UpstreamError } from '../../src/channel/upstream.js';
import { createVideoMembersSource, createVideoStatsSource } from '../../src/channel/video.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxRequests, setFault } from './sandbox-keeper.js';

const DAY_MS = 86_400_000;

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

  it('reads tiers (cents from micros, names without emoji) and members (first names, since, daysAtTier)', async () => {
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
        since: new Date(today - member.daysAtTier * DAY_MS).toISOString(),
        daysAtTier: member.daysAtTier,
      })),
    );
    // Titles decorated with emoji give the name, not the emoji.
    const decorated = dataset.members.find((member) => /\p{Extended_Pictographic}/u.test(member.title))!;
    expect(snapshot.supporters.find((supporter) => supporter.id === decorated.channelId)?.name).toMatch(/^\p{L}+$/u);
  });

  it('follows nextPageToken and batches channel ids (250 members → 3 pages, 5 title requests)', async () => {
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
      await expect(members.fetch()).rejects.toThrow(/^video: malformed sponsorships page 1: sponsorsData\.sponsors: /);
      await expect(stats.fetch()).rejects.toThrow(/^stats: malformed channel dashboard: cards: /);
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
