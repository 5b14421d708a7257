/**
 * The sandbox: a faithful emulator of the membership platform (OAuth2 token endpoint, API v2
 * members, webhooks) and of the video platform's channel-dashboard API, over real HTTP, with a
 * deterministic seeded dataset, fault injection and control endpoints (docs/sandbox.md).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BodyIncompleteError, BodyTooLargeError } from '../lib/body.js';
import { listen } from '../lib/listen.js';
import { problem, sendProblem } from '../lib/problem.js';
import { AuthorizationCodes } from './authorization-codes.js';
import { AUTHORIZE_PATH, handleAuthorizeEndpoint } from './authorize-endpoint.js';
import { handleControlApi } from './control-api.js';
import { sandboxCredentials, type SandboxCredentials } from './credentials.js';
import { FaultInjector } from './faults.js';
import { handleMembershipApi } from './membership-api.js';
import { MembershipDataset } from './membership-data.js';
import { REVOKE_PATH, TOKEN_PATH, handleRevokeEndpoint, handleTokenEndpoint } from './oauth-endpoint.js';
import { SANDBOX_SETTINGS } from './settings.js';
import type { MembershipPagination, SandboxState } from './state.js';
import { TokenAuthority } from './tokens.js';
import { handleVideoApi } from './video-api.js';
import { VideoDataset } from './video-data.js';

export type { SandboxCredentials } from './credentials.js';
export type { MembershipPagination } from './state.js';
export { MembershipDataset, MEMBERSHIP_TIERS, type MemberRecord, type PatronStatus } from './membership-data.js';
export { VideoDataset, type VideoMemberRecord, type VideoTierRecord } from './video-data.js';
export { signWebhookBody } from './webhook-sender.js';

export interface SandboxOptions {
  /** Seed of the dataset and of fault sampling (default 1). */
  seed?: number;
  /** Membership platform members, of every status (default 40). */
  patrons?: number;
  /** How a members page gives the next one (default `cursor`, as the docs today; `link`: a cursor-only links.next, as the 2018 docs). */
  membershipPagination?: MembershipPagination;
  /** The most members a page holds, whatever `page[count]` asks (default 1,000, the platform's limit). */
  membersPageLimit?: number;
  /** Video platform channel members (default 15). */
  videoMembers?: number;
  /** Subscriber count (default: drawn from the seed). */
  subscribers?: number;
  /** Lifetime of issued access tokens (default 3600). */
  accessTokenTtlSeconds?: number;
  host?: string;
  port?: number;
}

export interface RunningSandbox {
  /** Base URL of both platforms: MEMBERSHIP_API_BASE = VIDEO_API_BASE = url. */
  url: string;
  credentials: SandboxCredentials;
  /** The datasets the sandbox serves, for tests that compute expected values. */
  datasets: { membership: MembershipDataset; video: VideoDataset };
  close(): Promise<void>;
}

function createState(options: SandboxOptions): SandboxState {
  const seed = options.seed ?? SANDBOX_SETTINGS.seed.default;
  const credentials = sandboxCredentials();
  return {
    seed,
    baseUrl: '',
    credentials,
    membership: new MembershipDataset(seed, options.patrons ?? SANDBOX_SETTINGS.patrons.default),
    membershipPagination: options.membershipPagination ?? SANDBOX_SETTINGS.membershipPagination.default,
    membersPageLimit: options.membersPageLimit ?? SANDBOX_SETTINGS.membersPageLimit.default,
    video: new VideoDataset(seed, options.videoMembers ?? SANDBOX_SETTINGS.videoMembers.default, options.subscribers),
    tokens: new TokenAuthority(seed, options.accessTokenTtlSeconds ?? SANDBOX_SETTINGS.accessTokenTtlSeconds.default, credentials),
    codes: new AuthorizationCodes(),
    faults: new FaultInjector(seed),
    requests: { token: 0, campaign: 0, members: 0, sponsorships: 0, channels: 0, dashboard: 0, webhook: 0 },
  };
}

async function route(state: SandboxState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', state.baseUrl);
  if (url.pathname === TOKEN_PATH) return handleTokenEndpoint(state, req, res);
  if (url.pathname === REVOKE_PATH) return handleRevokeEndpoint(state, req, res);
  if (url.pathname === AUTHORIZE_PATH) return handleAuthorizeEndpoint(state, req, res, url);
  if (await handleMembershipApi(state, req, res, url)) return;
  if (await handleVideoApi(state, req, res, url)) return;
  if (await handleControlApi(state, req, res, url)) return;
  sendProblem(res, problem(404, `the sandbox emulates no endpoint ${req.method ?? ''} ${url.pathname}`));
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  for (const name of ['patrons', 'videoMembers', 'subscribers', 'accessTokenTtlSeconds', 'port'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new RangeError(`startSandbox: ${name} must be a non-negative integer, got ${value}`);
  }
  const { membersPageLimit } = options;
  if (membersPageLimit !== undefined && (!Number.isInteger(membersPageLimit) || membersPageLimit < 1 || membersPageLimit > 1000)) {
    throw new RangeError(`startSandbox: membersPageLimit must be an integer from 1 to 1000, got ${membersPageLimit}`);
  }
  const state = createState(options);
  const server = createServer((req, res) => {
    route(state, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // The rest of a too large body is being dropped: close the connection once answered.
      if (error instanceof BodyTooLargeError) sendProblem(res, problem(413, error.message), { connection: 'close' });
      else if (error instanceof BodyIncompleteError) sendProblem(res, problem(400, error.message));
      else sendProblem(res, problem(500, 'the sandbox failed to handle the request'));
    });
  });
  const listening = await listen(server, { port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  state.baseUrl = listening.url;
  return {
    url: state.baseUrl,
    credentials: state.credentials,
    datasets: { membership: state.membership, video: state.video },
    close: () => listening.close(),
  };
}
