import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { UpstreamSettings } from '../../src/config.js';
import { sandboxCredentials } from '../../src/sandbox/credentials.js';

/**
 * Both platforms as a test scripts them, over real HTTP on 127.0.0.1: each endpoint the service
 * calls answers what the test's handler returns — typically a published example from
 * test/fixtures/upstreams/ — and every request is recorded (URL and body). So the adapters run on
 * what the platforms really send, not on what the sandbox makes of it.
 */

/** A fixture: the published example (`body`) and the line naming where it comes from. */
export interface Fixture<T = unknown> {
  source: string;
  status?: number;
  event?: string;
  body: T;
}

const FIXTURES = join(import.meta.dirname, '../fixtures/upstreams');

/** test/fixtures/upstreams/<name>.json, read afresh (a test may change its copy). */
export function fixture<T = unknown>(name: string): Fixture<T> {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Fixture<T>;
}

export interface PlatformAnswer {
  status?: number;
  body: unknown;
}

/** What a handler is given: the request's URL (query included) and its JSON body (POST). */
export interface PlatformRequest {
  url: URL;
  body: Record<string, unknown>;
}

type Handler = (request: PlatformRequest) => PlatformAnswer;

export interface FixturePlatform {
  url: string;
  /** The handlers; a test replaces the ones it needs. */
  handlers: Record<'campaign' | 'members' | 'sponsorships' | 'channels' | 'dashboard', Handler>;
  /** Every request received, in order (path with query, and JSON body). */
  requests: { path: string; url: URL; body: Record<string, unknown> }[];
  /** Live-mode settings pointing the service at this platform, with the sandbox's test credentials. */
  upstream(): LiveUpstream;
  close(): Promise<void>;
}

type LiveUpstream = Extract<UpstreamSettings, { mode: 'live' }>;

const emptyPage: Handler = () => ({ body: { data: [], meta: { pagination: { cursors: { next: null }, total: 0 } } } });

const ROUTES: [RegExp, keyof FixturePlatform['handlers']][] = [
  [/^\/api\/oauth2\/v2\/campaigns\/[^/]+$/, 'campaign'],
  [/^\/api\/oauth2\/v2\/campaigns\/[^/]+\/members$/, 'members'],
  [/^\/youtubei\/v1\/sponsors\/creator_sponsorships_data$/, 'sponsorships'],
  [/^\/youtubei\/v1\/creator\/get_creator_channels$/, 'channels'],
  [/^\/youtubei\/v1\/creator\/get_channel_dashboard$/, 'dashboard'],
];

async function jsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' || request.headers['content-type']?.startsWith('application/json') !== true ? {} : (JSON.parse(text) as Record<string, unknown>);
}

export async function startFixturePlatform(): Promise<FixturePlatform> {
  const credentials = sandboxCredentials();
  const platform: Omit<FixturePlatform, 'url' | 'upstream' | 'close'> = {
    handlers: {
      campaign: () => ({ body: fixture('membership/campaign-today').body }),
      members: emptyPage,
      sponsorships: () => ({ body: { sponsorshipsData: {} } }),
      channels: () => ({ body: {} }),
      dashboard: () => ({ body: fixture('video/channel-dashboard').body }),
    },
    requests: [],
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const body = await jsonBody(request);
      platform.requests.push({ path: `${url.pathname}${url.search}`, url, body });
      if (url.pathname === '/api/oauth2/token') {
        // The keeper refreshes only when the platform refused the token; answered like the docs' Step 7.
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'fixture-access', refresh_token: 'fixture-refresh', expires_in: 2_678_400, scope: 'campaigns', token_type: 'Bearer' }));
        return;
      }
      const route = ROUTES.find(([pattern]) => pattern.test(url.pathname));
      if (route === undefined) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"status":"404","title":"Not Found"}]}');
        return;
      }
      const answer = platform.handlers[route[1]]({ url, body });
      const contentType = url.pathname.startsWith('/api/') ? 'application/vnd.api+json' : 'application/json; charset=UTF-8';
      response.writeHead(answer.status ?? 200, { 'content-type': contentType }).end(JSON.stringify(answer.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(platform, {
    url,
    upstream: (): LiveUpstream => ({
      mode: 'live',
      membership: {
        apiBase: url,
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        accessToken: credentials.accessToken,
        refreshToken: credentials.refreshToken,
        campaignId: credentials.campaignId,
        webhookSecret: credentials.webhookSecret,
      },
      video: { apiBase: url, members: credentials.members },
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
