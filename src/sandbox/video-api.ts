/**
 * The video platform's channel-dashboard internal API (`/youtubei/v1/…`,
 * openapi/upstreams/video-dashboard.yaml): memberships data nested under `sponsorshipsData`, paged
 * with `sponsorsOptions.continuationToken`, channel titles, and the dashboard's facts card for a query
 * restricted on dimension USER. Requests are checked in the order a Google front end checks them:
 * API key, referrer restriction, credentials, then the body.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyFault } from './fault-responses.js';
import { isRecord, parseJson, readBody, sendJson } from './http-kit.js';
import { GOOGLE_JSON, sendGoogleError } from './platform-errors.js';
import type { EndpointName, SandboxState } from './state.js';

const VIDEO_ENDPOINTS: Record<string, EndpointName> = {
  '/youtubei/v1/sponsors/creator_sponsorships_data': 'sponsorships',
  '/youtubei/v1/creator/get_creator_channels': 'channels',
  '/youtubei/v1/creator/get_channel_dashboard': 'dashboard',
};

/** The referrer restriction on the sandbox's API key (Google: "HTTP referrers" key restriction). */
const ALLOWED_REFERRER = 'https://studio.youtube.com/';
const MAX_CHANNEL_IDS = 50;
const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 1000;
const LIFETIME_SUBSCRIBERS_FACT = 'DASHBOARD_FACT_ANALYTICS_LIFETIME_SUBSCRIBERS';

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function responseContext(): Record<string, unknown> {
  return { serviceTrackingParams: [{ service: 'CSI', params: [{ key: 'c', value: 'CREATOR' }] }], mainAppWebResponseContext: { loggedOut: false } };
}

/** Handles the request when it is a video API path; returns false otherwise. */
export async function handleVideoApi(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const endpoint = VIDEO_ENDPOINTS[url.pathname];
  if (!endpoint) return false;
  state.requests[endpoint] += 1;
  if (req.method !== 'POST') {
    sendGoogleError(res, 405, `Method ${req.method ?? ''} not allowed; use POST`);
    return true;
  }
  if (await applyFault(state, 'video', res)) return true;
  const members = state.credentials.members;
  const key = url.searchParams.get('key');
  if (!key) {
    sendGoogleError(res, 403, 'The request is missing a valid API key.', 'API_KEY_MISSING');
    return true;
  }
  if (key !== members.key) {
    sendGoogleError(res, 400, 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID');
    return true;
  }
  const referrer = req.headers.referer ?? '';
  if (!referrer.startsWith(ALLOWED_REFERRER)) {
    sendGoogleError(res, 403, `Requests from referer ${referrer || '<empty>'} are blocked.`, 'API_KEY_HTTP_REFERRER_BLOCKED');
    return true;
  }
  if (req.headers.authorization !== members.headers.authorization || req.headers.cookie !== members.headers.cookie) {
    sendGoogleError(
      res,
      401,
      'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      'CREDENTIALS_MISSING',
    );
    return true;
  }
  const body = parseJson(await readBody(req));
  try {
    if (!isRecord(body)) throw new RequestError(400, 'Invalid JSON payload received. Expected a JSON object.');
    checkContext(body);
    const result =
      endpoint === 'sponsorships' ? sponsorshipsData(state, body) : endpoint === 'channels' ? creatorChannels(state, body) : channelDashboard(state, body);
    sendJson(res, 200, { responseContext: responseContext(), ...result }, GOOGLE_JSON);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    sendGoogleError(res, error.status, error.message);
  }
  return true;
}

function checkContext(body: Record<string, unknown>): void {
  const client = isRecord(body.context) ? body.context.client : undefined;
  if (!isRecord(client) || client.clientName === undefined || typeof client.clientVersion !== 'string') {
    throw new RequestError(400, 'Request contains an invalid argument. (context.client.clientName and clientVersion are required)');
  }
}

function checkOwnChannel(state: SandboxState, channelId: unknown): void {
  if (channelId !== state.credentials.members.externalChannelId) throw new RequestError(403, 'The caller does not have permission');
}

/** Opaque page tokens: the offset with a checksum, so a forged token is refused. */
function encodePageToken(offset: number): string {
  const sum = createHash('sha1').update(`page:${offset}`).digest('base64url').slice(0, 6);
  return Buffer.from(`${offset}:${sum}`).toString('base64url');
}

function decodePageToken(token: string): number {
  const [offset, sum] = Buffer.from(token, 'base64url').toString('utf8').split(':');
  const value = Number(offset);
  if (!Number.isInteger(value) || value < 0 || encodePageToken(value) !== token || !sum) throw new RequestError(400, 'Request contains an invalid argument. (invalid page token)');
  return value;
}

function sponsorshipsData(state: SandboxState, body: Record<string, unknown>): Record<string, unknown> {
  checkOwnChannel(state, body.externalChannelId);
  const mask = isRecord(body.mask) ? body.mask : {};
  const options = isRecord(body.sponsorsOptions) ? body.sponsorsOptions : {};
  const pageSize = options.pageSize === undefined ? DEFAULT_PAGE_SIZE : options.pageSize;
  if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 1) {
    throw new RequestError(400, 'Request contains an invalid argument. (sponsorsOptions.pageSize)');
  }
  const offset = typeof options.continuationToken === 'string' ? decodePageToken(options.continuationToken) : 0;
  const data: Record<string, unknown> = {};
  const wantsAll = (name: string) => {
    const entry = mask[name];
    return isRecord(entry) && entry.all === true;
  };
  if (wantsAll('sponsorshipsTierData')) {
    data.sponsorshipsTierData = {
      tiers: state.video.tiers.map((tier) => ({
        id: tier.id,
        pricingLevelId: String(tier.priceMicros),
        status: 'SPONSORSHIP_TIER_STATUS_ACTIVE',
        liveVersion: { name: tier.name, perks: [{ type: 'PERK_TYPE_BADGES' }, { type: 'PERK_TYPE_EMOJIS' }] },
      })),
    };
  }
  if (wantsAll('sponsorsData')) {
    const size = Math.min(pageSize, MAX_PAGE_SIZE);
    const page = state.video.members.slice(offset, offset + size);
    const next = offset + page.length;
    data.sponsorsData = {
      sponsors: page.map((member) => ({
        externalChannelId: member.channelId,
        tierId: member.tierId,
        durationAtCurrentTier: { amount: member.atTier.amount, timeUnit: member.atTier.unit === 'day' ? 'SPONSORSHIPS_TIME_UNIT_DAY' : 'SPONSORSHIPS_TIME_UNIT_MONTH' },
        status: 'SPONSOR_STATUS_ACTIVE',
      })),
      ...(next < state.video.members.length && { continuationToken: encodePageToken(next) }),
    };
  }
  return { sponsorshipsData: data };
}

function creatorChannels(state: SandboxState, body: Record<string, unknown>): Record<string, unknown> {
  const ids = body.channelIds;
  if (!Array.isArray(ids) || !ids.every((id): id is string => typeof id === 'string')) throw new RequestError(400, 'Request contains an invalid argument. (channelIds)');
  if (ids.length > MAX_CHANNEL_IDS) throw new RequestError(400, `Request contains an invalid argument. (at most ${MAX_CHANNEL_IDS} channelIds per request)`);
  const mask = isRecord(body.mask) ? body.mask : null;
  if (!mask) throw new RequestError(400, 'Request contains an invalid argument. (mask is required)');
  const channels = ids.flatMap((channelId) => {
    const title = channelId === state.credentials.members.externalChannelId ? 'Sandbox Channel' : state.video.channelTitle(channelId);
    if (title === undefined) return [];
    const channel: Record<string, unknown> = {};
    if (mask.channelId === true) channel.channelId = channelId;
    if (mask.title === true) channel.title = title;
    return [channel];
  });
  return { channels };
}

/** Whether every node's query is restricted on dimension USER to the channel itself, as the reference asks. */
function restrictedToOwnUser(state: SandboxState, params: Record<string, unknown>): boolean {
  const facts = isRecord(params.factsAnalyticsParams) ? params.factsAnalyticsParams : {};
  const nodes = Array.isArray(facts.nodes) ? facts.nodes : [];
  return nodes.every((node) => {
    const query = isRecord(node) && isRecord(node.value) && isRecord(node.value.query) ? node.value.query : {};
    const restricts = Array.isArray(query.restricts) ? query.restricts : [];
    return restricts.some(
      (restrict) =>
        isRecord(restrict) && isRecord(restrict.dimension) && restrict.dimension.type === 'USER' && Array.isArray(restrict.inValues) && restrict.inValues.includes(state.credentials.members.externalChannelId),
    );
  });
}

function channelDashboard(state: SandboxState, body: Record<string, unknown>): Record<string, unknown> {
  const params = isRecord(body.dashboardParams) ? body.dashboardParams : {};
  checkOwnChannel(state, params.channelId);
  if (!restrictedToOwnUser(state, params)) throw new RequestError(400, 'Request contains an invalid argument. (restricts: dimension USER with the channel id)');
  const fact = (key: string, metric: string, value: number) => ({
    key,
    value: { resultTable: { metricColumns: [{ metric: { type: metric }, counts: { values: [value] } }] } },
  });
  return {
    cards: [
      { id: 'latest-video', body: { basicCard: { item: { creatorVideoItem: { videoId: 'sandbox0001', title: 'Latest stream' } } } } },
      {
        id: 'facts',
        body: {
          basicCard: {
            item: {
              channelFactsItem: {
                channelFactsData: {
                  results: [
                    fact('DASHBOARD_FACT_ANALYTICS_VIEWS', 'VIEWS', state.video.subscribers * 37),
                    fact(LIFETIME_SUBSCRIBERS_FACT, 'SUBSCRIBERS_NET_CHANGE', state.video.subscribers),
                  ],
                },
              },
            },
          },
        },
      },
    ],
  };
}
