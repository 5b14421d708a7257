/**
 * The video platform adapter: the channel dashboard's internal API (`/youtubei/v1/…`,
 * openapi/upstreams/video-dashboard.yaml), called with the key, context, headers and referrer copied
 * into members.json. Members come from the memberships data (tiers and sponsors, page by page,
 * nested under `sponsorshipsData`), their names from the channels' titles, and the subscriber count
 * from the dashboard's channel-facts card. Every answer and record is checked with the validators
 * compiled from that contract; a record that cannot be read is skipped and reported.
 */
import type { components, paths } from '../../generated/upstreams/video-dashboard.js';
import {
  validateChannelDashboardAnswer, validateCreatorChannel, validateCreatorChannelsAnswer, validateSponsor, validateSponsorshipTier, validateSponsorshipsDataAnswer,
  validateSubscribersFact,
} from '../../generated/upstreams/video-dashboard.validators.js';
import { stripDecorativeEmoji } from './emoji.js';
import type { MembersConfig } from './members-config.js';
import type { StatsSnapshot, Supporter, SupportersSnapshot, Tier } from './models.js';
import {
  DEFAULT_UPSTREAM_TIMEOUT_MS, IncompleteReadError, MAX_GRAPH_INT, UpstreamError, describeIssues, graphCount, parseUpstreamJson, safeCount, validateUpstream,
  withUpstreamDeadline, type ReadReport, type UpstreamSource,
} from './upstream.js';

const DAY_MS = 86_400_000;
const SPONSORS_PAGE_SIZE = 100;
/** Channel ids per get_creator_channels request. */
const CHANNEL_BATCH_SIZE = 50;
/** A guard against page tokens that never end (a million members). */
const MAX_PAGES = 10_000;
/** The largest answer read from the platform; a larger one is refused, not buffered. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
export const LIFETIME_SUBSCRIBERS_FACT = 'DASHBOARD_FACT_ANALYTICS_LIFETIME_SUBSCRIBERS';

type Schemas = components['schemas'];
type DashboardPath = keyof paths;
type RequestOf<P extends DashboardPath> = Omit<paths[P]['post']['requestBody']['content']['application/json'], 'context'>;

export interface VideoSourceOptions {
  /** VIDEO_API_BASE, e.g. https://studio.youtube.com */
  apiBase: string;
  members: MembersConfig;
  /** Deadline of each request, headers and body (default DEFAULT_UPSTREAM_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

/** Amount in cents from a price in millionths of the currency unit (1.99 → 1 990 000 → 199); null when out of range. */
function microsToCents(micros: number | string): number | null {
  const value = safeCount(micros);
  return value === null ? null : graphCount(Math.round(value / 10_000));
}

/** The first word of a channel title, emoji removed; null when nothing is left. */
function firstNameFromTitle(title: string | undefined): string | null {
  const word = stripDecorativeEmoji(title ?? '').split(' ')[0];
  return word ? word : null;
}

/**
 * When a sponsor started at the tier and how many days ago, from `durationAtCurrentTier`: whole days
 * or calendar months (the same day of the month, or its last day) back from the start of today. An
 * answer without a unit counts days, as the reference read it before units appeared.
 */
function startAtTier(today: number, duration: Schemas['Sponsor']['durationAtCurrentTier']): { since: number; days: number } | null {
  const amount = safeCount(duration.amount);
  if (amount === null) return null;
  let since: number;
  if (duration.timeUnit === 'SPONSORSHIPS_TIME_UNIT_MONTH') {
    const date = new Date(today);
    const month = date.getUTCMonth() - amount;
    const lastDay = new Date(Date.UTC(date.getUTCFullYear(), month + 1, 0)).getUTCDate();
    since = Date.UTC(date.getUTCFullYear(), month, Math.min(date.getUTCDate(), lastDay));
  } else {
    since = today - amount * DAY_MS;
  }
  const days = Math.round((today - since) / DAY_MS);
  // Before the earliest date a Date holds: not a duration this platform can mean.
  return Number.isNaN(new Date(since).getTime()) || days > MAX_GRAPH_INT ? null : { since, days };
}

/**
 * The body of a response, at most `maxBytes` (Response.text() buffers whatever arrives). The caller's
 * deadline covers this read too.
 */
async function readBounded(response: Response, maxBytes: number, source: string, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) throw new UpstreamError(source, `${what}: the answer is larger than ${maxBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader?.cancel();
      throw new UpstreamError(source, `${what}: the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POSTs to a `/youtubei/v1/…` endpoint as the dashboard does and returns the parsed JSON body. */
function createDashboardClient(options: VideoSourceOptions, source: string) {
  const { members } = options;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  return async function post<P extends DashboardPath>(path: P, body: RequestOf<P>, what: string, signal: AbortSignal | undefined): Promise<unknown> {
    const url = new URL(path, options.apiBase);
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
      return { status: response.status, text: await readBounded(response, MAX_ANSWER_BYTES, source, what) };
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

/** A tier of the memberships data as a Tier (its name without decorative emoji); null when it cannot be read. */
function toTier(record: Record<string, unknown>, report: ReadReport | undefined): Tier | null {
  if (!validateSponsorshipTier(record)) {
    report?.skipped({ id: `tier ${typeof record.id === 'string' ? record.id : '(no id)'}`, reason: 'malformed', detail: describeIssues(validateSponsorshipTier) });
    return null;
  }
  const amountCents = microsToCents(record.pricingLevelId);
  if (amountCents === null) {
    report?.skipped({ id: `tier ${record.id}`, reason: 'malformed', detail: '/pricingLevelId: out of range' });
    return null;
  }
  return { id: record.id, platform: 'video', title: stripDecorativeEmoji(record.liveVersion.name) || null, amountCents };
}

interface SponsorRead {
  channelId: string;
  tierId: string;
  since: number;
  days: number;
}

function toSponsor(record: Record<string, unknown>, today: number, report: ReadReport | undefined): SponsorRead | null {
  if (!validateSponsor(record)) {
    const id = typeof record.externalChannelId === 'string' ? record.externalChannelId : '(no id)';
    report?.skipped({ id: `member ${id}`, reason: 'malformed', detail: describeIssues(validateSponsor) });
    return null;
  }
  const start = startAtTier(today, record.durationAtCurrentTier);
  if (start === null) {
    report?.skipped({ id: `member ${record.externalChannelId}`, reason: 'malformed', detail: '/durationAtCurrentTier/amount: out of range' });
    return null;
  }
  return { channelId: record.externalChannelId, tierId: record.tierId, ...start };
}

export function createVideoMembersSource(options: VideoSourceOptions): UpstreamSource<SupportersSnapshot> {
  const source = 'video';
  const post = createDashboardClient(options, source);
  const channelId = options.members.externalChannelId;

  async function channelNames(ids: readonly string[], signal: AbortSignal | undefined, report: ReadReport | undefined): Promise<Map<string, string | null>> {
    const names = new Map<string, string | null>();
    for (let start = 0; start < ids.length; start += CHANNEL_BATCH_SIZE) {
      const batch = ids.slice(start, start + CHANNEL_BATCH_SIZE);
      const what = `channel titles ${start + 1}-${start + batch.length}`;
      const raw = await post('/youtubei/v1/creator/get_creator_channels', { channelIds: batch, mask: { channelId: true, title: true } }, what, signal);
      for (const channel of validateUpstream(source, what, validateCreatorChannelsAnswer, raw).channels ?? []) {
        if (validateCreatorChannel(channel)) names.set(channel.channelId, firstNameFromTitle(channel.title));
        else report?.skipped({ id: `channel ${typeof channel.channelId === 'string' ? channel.channelId : '(no id)'}`, reason: 'malformed', detail: describeIssues(validateCreatorChannel) });
      }
    }
    return names;
  }

  return {
    name: source,
    async fetch(signal, report) {
      const fetchedAt = new Date();
      // Durations are whole days or months: count them back from the start of today so that `since`
      // stays the same across refreshes on one day instead of drifting by the refresh interval.
      const today = Math.floor(fetchedAt.getTime() / DAY_MS) * DAY_MS;
      const tiers = new Map<string, Tier>();
      const sponsors = new Map<string, SponsorRead>();
      const tokens = new Set<string>();
      let continuationToken: string | undefined;
      for (let page = 1; ; page += 1) {
        const what = `sponsorships page ${page}`;
        const raw = await post(
          '/youtubei/v1/sponsors/creator_sponsorships_data',
          {
            externalChannelId: channelId,
            mask: { sponsorshipsTierData: { all: true }, sponsorsData: { all: true } },
            // The next page as the reference asks it: sponsorsOptions.continuationToken.
            sponsorsOptions: { pageSize: SPONSORS_PAGE_SIZE, filter: {}, ...(continuationToken !== undefined && { continuationToken }) },
          },
          what,
          signal,
        );
        const { sponsorshipsData } = validateUpstream(source, what, validateSponsorshipsDataAnswer, raw);
        for (const record of sponsorshipsData.sponsorshipsTierData?.tiers ?? []) {
          const tier = toTier(record, report);
          if (tier !== null) tiers.set(tier.id, tier);
        }
        for (const record of sponsorshipsData.sponsorsData?.sponsors ?? []) {
          const sponsor = toSponsor(record, today, report);
          if (sponsor !== null && !sponsors.has(sponsor.channelId)) sponsors.set(sponsor.channelId, sponsor);
        }
        const next = sponsorshipsData.sponsorsData?.continuationToken ?? sponsorshipsData.sponsorsData?.nextPageToken;
        if (next === undefined || next === '') break;
        if (tokens.has(next) || page >= MAX_PAGES) {
          const why = tokens.has(next) ? 'the platform gave the token of a page already read' : `the pagination goes on past ${MAX_PAGES} pages`;
          throw new IncompleteReadError(source, `sponsorships page ${page + 1}: ${why}; stopped after ${sponsors.size} members, not served as the whole list`);
        }
        tokens.add(next);
        continuationToken = next;
      }
      const listed = [...sponsors.values()].filter((sponsor) => {
        if (tiers.has(sponsor.tierId)) return true;
        report?.skipped({ id: `member ${sponsor.channelId}`, reason: 'unlisted_tier', detail: `at tier ${sponsor.tierId}, which the memberships data does not list` });
        return false;
      });
      const names = await channelNames(listed.map((sponsor) => sponsor.channelId), signal, report);
      const supporters: Supporter[] = listed.map((sponsor) => {
        const tier = tiers.get(sponsor.tierId) as Tier;
        return {
          id: sponsor.channelId,
          platform: 'video',
          name: names.get(sponsor.channelId) ?? null,
          tierId: tier.id,
          amountCents: tier.amountCents ?? 0,
          since: new Date(sponsor.since).toISOString(),
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
        '/youtubei/v1/creator/get_channel_dashboard',
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
                      // The reference restricts the query on dimension USER with the channel's id.
                      restricts: [{ dimension: { type: 'USER' }, inValues: [channelId] }],
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
      const dashboard = validateUpstream(source, what, validateChannelDashboardAnswer, raw);
      const fact = (dashboard.cards ?? [])
        .flatMap((card) => card.body?.basicCard?.item?.channelFactsItem?.channelFactsData?.results ?? [])
        .find((result) => result.key === LIFETIME_SUBSCRIBERS_FACT);
      if (!fact) throw new UpstreamError(source, `malformed ${what}: no ${LIFETIME_SUBSCRIBERS_FACT} fact in the channel-facts card`);
      const value = validateUpstream(source, `${what} ${LIFETIME_SUBSCRIBERS_FACT}`, validateSubscribersFact, fact.value);
      const [first] = value.resultTable.metricColumns[0]?.counts.values ?? [];
      const subscribers = first === undefined ? null : graphCount(first);
      if (subscribers === null) throw new UpstreamError(source, `malformed ${what} ${LIFETIME_SUBSCRIBERS_FACT}: the count is out of range`);
      return { subscribers, fetchedAt: new Date().toISOString() };
    },
  };
}
