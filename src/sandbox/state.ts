/** Everything one running sandbox holds; each startSandbox() builds its own (no global state). */
import type { AuthorizationCodes } from './authorization-codes.js';
import type { SandboxCredentials } from './credentials.js';
import type { FaultInjector } from './faults.js';
import type { MembershipDataset } from './membership-data.js';
import type { TokenAuthority } from './tokens.js';
import type { VideoDataset } from './video-data.js';

export type MembershipPagination = 'cursor' | 'link';

/** Requests served per endpoint, read through GET /__sandbox/stats (tests count upstream calls). */
export type EndpointName = 'token' | 'campaign' | 'members' | 'sponsorships' | 'channels' | 'dashboard' | 'webhook';

export interface SandboxState {
  seed: number;
  /** The sandbox's own base URL (pagination links point back to it). */
  baseUrl: string;
  credentials: SandboxCredentials;
  membership: MembershipDataset;
  /** How a members page gives the next one: `meta.pagination.cursors.next`, or a cursor-only `links.next`. */
  membershipPagination: MembershipPagination;
  /** The most members a page holds, whatever `page[count]` asks (the platform's limit is 1,000). */
  membersPageLimit: number;
  video: VideoDataset;
  tokens: TokenAuthority;
  /** Codes of the authorization endpoint, waiting for the token endpoint. */
  codes: AuthorizationCodes;
  faults: FaultInjector;
  requests: Record<EndpointName, number>;
}
