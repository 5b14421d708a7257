/**
 * The video platform adapter: the channel dashboard's internal API (`/youtubei/v1/…`), called with
 * the key, context, headers and referrer copied into members.json. Members come from the
 * memberships data (tiers and sponsors, page by page), their names from the channels' titles, and
 * the subscriber count from the dashboard's channel-facts card.
 */
import { z } from 'zod';
import { stripDecorativeEmoji } from './emoji.js';
import type { MembersConfig } from './members-config.js';
import type { StatsSnapshot, Supporter, SupportersSnapshot, Tier } from './models.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, UpstreamError, graphCountSchema, parseUpstream, parseUpstreamJson, withUpstreamDeadline, type UpstreamSource } from './upstream.js';

const DAY_MS = 86_400_000;
const SPONSORS_PAGE_SIZE = 100;
/** Channel ids per get_creator_channels request. */
const CHANNEL_BATCH_SIZE = 50;
/** A guard against page tokens that never end. */
const MAX_PAGES = 10_000;
export const LIFETIME_SUBSCRIBERS_FACT = 'DASHBOARD_FACT_ANALYTICS_LIFETIME_SUBSCRIBERS';

export interface VideoSourceOptions {
  /** VIDEO_API_BASE, e.g. https://studio.youtube.com */
  apiBase: string;
  members: MembersConfig;
  /** Deadline of each request, headers and body (default DEFAULT_UPSTREAM_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

/** int64 values arrive as JSON strings (protobuf JSON mapping) or numbers; the graph serves them as Int. */
const int64Schema = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(Number).pipe(graphCountSchema);

const sponsorshipsDataSchema = z.looseObject({
  sponsorshipsTierData: z
    .looseObject({
      tiers: z
        .array(z.looseObject({ id: z.string().min(1), pricingLevelId: int64Schema, liveVersion: z.looseObject({ name: z.string() }) }))
        .default([]),
    })
    .optional(),
  sponsorsData: z.looseObject({
    sponsors: z
      .array(
        z.looseObject({
          externalChannelId: z.string().min(1),
          tierId: z.string().min(1),
          durationAtCurrentTier: z.looseObject({ amount: graphCountSchema }),
        }),
      )
      .default([]),
    nextPageToken: z.string().min(1).optional(),
  }),
});

const creatorChannelsSchema = z.looseObject({
  channels: z.array(z.looseObject({ channelId: z.string().min(1), title: z.string().optional() })).default([]),
});

/** cards[].body.basicCard.item.channelFactsItem.channelFactsData.results[] — every level optional but the leaves. */
const factResultSchema = z.looseObject({ key: z.string(), value: z.unknown().optional() });
const dashboardSchema = z.looseObject({
  cards: z.array(
    z.looseObject({
      body: z
        .looseObject({
          basicCard: z
            .looseObject({
              item: z
                .looseObject({
                  channelFactsItem: z
                    .looseObject({ channelFactsData: z.looseObject({ results: z.array(factResultSchema).default([]) }).optional() })
                    .optional(),
                })
                .optional(),
            })
            .optional(),
        })
        .optional(),
    }),
  ),
});
const subscribersFactValueSchema = z.looseObject({
  resultTable: z.looseObject({
    metricColumns: z.tuple([z.looseObject({ counts: z.looseObject({ values: z.tuple([int64Schema], z.unknown()) }) })], z.unknown()),
  }),
});

/** Amount in cents from a price in micros of the currency unit (1.99 → 1 990 000 → 199). */
function microsToCents(micros: number): number {
  return Math.round(micros / 10_000);
}

/** The first word of a channel title, emoji removed; null when nothing is left. */
function firstNameFromTitle(title: string | undefined): string | null {
  const word = stripDecorativeEmoji(title ?? '').split(' ')[0];
  return word ? word : null;
}

/** POSTs to a `/youtubei/v1/…` endpoint as the dashboard does and returns the parsed JSON body. */
function createDashboardClient(options: VideoSourceOptions, source: string) {
  const { members } = options;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  return async function post(path: string, body: Record<string, unknown>, what: string, signal: AbortSignal | undefined): Promise<unknown> {
    const url = new URL(`/youtubei/v1/${path}`, options.apiBase);
    url.searchParams.set('alt', 'json');
    url.searchParams.set('key', members.key);
    // The deadline covers the body too: a platform that sends its headers and then stalls is cut off.
    const { status, text } = await withUpstreamDeadline(source, what, timeoutMs, signal, async (deadline) => {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { ...members.headers, 'content-type': 'application/json', referer: members.referrer },
          body: JSON.stringify({ context: members.context, ...body }),
          // A redirect here is a login page, not data.
          redirect: 'manual',
          signal: deadline,
        });
      } catch (error) {
        throw new UpstreamError(source, `${what}: the platform could not be reached (${error instanceof Error ? error.name : 'Error'})`, { cause: error });
      }
      return { status: response.status, text: await response.text() };
    });
    if (status !== 200) {
      throw new UpstreamError(source, `${what}: the platform answered HTTP ${status}${googleErrorHint(status, text)}`, { status });
    }
    return parseUpstreamJson(source, what, text);
  };
}

/** The google.rpc status name of an error body, and what to check in members.json for auth errors. */
function googleErrorHint(status: number, body: string): string {
  let name = '';
  try {
    const parsed = JSON.parse(body) as { error?: { status?: unknown } };
    if (typeof parsed.error?.status === 'string' && /^[A-Z_]{1,40}$/.test(parsed.error.status)) name = parsed.error.status;
  } catch {
    // not a Google error body
  }
  const hint = status === 401 || status === 403 ? '; check key, headers and referrer in members.json (the dashboard cookies may have expired)' : '';
  return (name ? ` (${name})` : '') + hint;
}

export function createVideoMembersSource(options: VideoSourceOptions): UpstreamSource<SupportersSnapshot> {
  const source = 'video';
  const post = createDashboardClient(options, source);
  const channelId = options.members.externalChannelId;

  async function channelNames(ids: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, string | null>> {
    const names = new Map<string, string | null>();
    for (let start = 0; start < ids.length; start += CHANNEL_BATCH_SIZE) {
      const batch = ids.slice(start, start + CHANNEL_BATCH_SIZE);
      const what = `channel titles ${start + 1}-${start + batch.length}`;
      const raw = await post('creator/get_creator_channels', { channelIds: batch, mask: { channelId: true, title: true } }, what, signal);
      for (const channel of parseUpstream(source, what, creatorChannelsSchema, raw).channels) {
        names.set(channel.channelId, firstNameFromTitle(channel.title));
      }
    }
    return names;
  }

  return {
    name: source,
    async fetch(signal) {
      const fetchedAt = new Date();
      // Durations are whole days: count them back from the start of today so that `since` stays the
      // same across refreshes on one day instead of drifting by the refresh interval.
      const today = Math.floor(fetchedAt.getTime() / DAY_MS) * DAY_MS;
      const tiers = new Map<string, Tier>();
      const sponsors: { channelId: string; tierId: string; days: number }[] = [];
      let pageToken: string | undefined;
      const seenTokens = new Set<string>();
      for (let page = 1; page === 1 || pageToken !== undefined; page += 1) {
        if (page > MAX_PAGES || (pageToken !== undefined && seenTokens.has(pageToken))) {
          throw new UpstreamError(source, `sponsorships page ${page}: the pagination does not end (a nextPageToken repeats)`);
        }
        if (pageToken !== undefined) seenTokens.add(pageToken);
        const what = `sponsorships page ${page}`;
        const raw = await post(
          'sponsors/creator_sponsorships_data',
          {
            externalChannelId: channelId,
            mask: { sponsorshipsTierData: { all: true }, sponsorsData: { all: true } },
            sponsorsOptions: { pageSize: SPONSORS_PAGE_SIZE, filter: {}, ...(pageToken !== undefined && { pageToken }) },
          },
          what,
          signal,
        );
        const data = parseUpstream(source, what, sponsorshipsDataSchema, raw);
        for (const tier of data.sponsorshipsTierData?.tiers ?? []) {
          tiers.set(tier.id, { id: tier.id, platform: 'video', title: stripDecorativeEmoji(tier.liveVersion.name) || null, amountCents: microsToCents(tier.pricingLevelId) });
        }
        for (const sponsor of data.sponsorsData.sponsors) {
          sponsors.push({ channelId: sponsor.externalChannelId, tierId: sponsor.tierId, days: sponsor.durationAtCurrentTier.amount });
        }
        pageToken = data.sponsorsData.nextPageToken;
      }
      const names = await channelNames([...new Set(sponsors.map((sponsor) => sponsor.channelId))], signal);
      const supporters: Supporter[] = sponsors.map((sponsor) => {
        const tier = tiers.get(sponsor.tierId);
        if (!tier) throw new UpstreamError(source, `malformed sponsorships data: member ${sponsor.channelId} is at tier ${sponsor.tierId}, which is not listed`);
        return {
          id: sponsor.channelId,
          platform: 'video',
          name: names.get(sponsor.channelId) ?? null,
          tierId: tier.id,
          amountCents: tier.amountCents ?? 0,
          since: new Date(today - sponsor.days * DAY_MS).toISOString(),
          daysAtTier: sponsor.days,
        };
      });
      return { platform: 'video', supporters, tiers: [...tiers.values()], fetchedAt: fetchedAt.toISOString() };
    },
  };
}

export function createVideoStatsSource(options: VideoSourceOptions): UpstreamSource<StatsSnapshot> {
  const source = 'stats';
  const post = createDashboardClient(options, source);
  const channelId = options.members.externalChannelId;
  return {
    name: source,
    async fetch(signal) {
      const what = 'channel dashboard';
      const raw = await post(
        'creator/get_channel_dashboard',
        {
          dashboardParams: {
            channelId,
            factsAnalyticsParams: {
              nodes: [
                {
                  key: LIFETIME_SUBSCRIBERS_FACT,
                  value: {
                    query: {
                      dimensions: [],
                      metrics: [{ type: 'SUBSCRIBERS_NET_CHANGE' }],
                      restricts: [{ dimension: { type: 'CHANNEL' }, inValues: [channelId] }],
                      orders: [],
                      timeRange: { unboundedRange: {} },
                      currency: 'USD',
                      returnDataInNewFormat: true,
                    },
                  },
                },
              ],
            },
          },
        },
        what,
        signal,
      );
      const dashboard = parseUpstream(source, what, dashboardSchema, raw);
      const fact = dashboard.cards
        .flatMap((card) => card.body?.basicCard?.item?.channelFactsItem?.channelFactsData?.results ?? [])
        .find((result) => result.key === LIFETIME_SUBSCRIBERS_FACT);
      if (!fact) throw new UpstreamError(source, `malformed ${what}: no ${LIFETIME_SUBSCRIBERS_FACT} fact in the channel-facts card`);
      const value = parseUpstream(source, `${what} ${LIFETIME_SUBSCRIBERS_FACT}`, subscribersFactValueSchema, fact.value);
      return { subscribers: value.resultTable.metricColumns[0].counts.values[0], fetchedAt: new Date().toISOString() };
    },
  };
}
