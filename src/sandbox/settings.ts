/** The settings of `npm run sandbox`, declared once (docs/sandbox.md's table is checked against them). */
import { integer, oneOf } from '../lib/settings.js';
import type { MembershipPagination } from './state.js';

const MEMBERSHIP_PAGINATIONS: readonly [MembershipPagination, ...MembershipPagination[]] = ['cursor', 'link'];

export const SANDBOX_SETTINGS = {
  port: integer({ name: 'SANDBOX_PORT', min: 0, max: 65_535, expected: 'a port number 0-65535', default: 4100, description: 'Port (0 = any free port).' }),
  seed: integer({ name: 'SANDBOX_SEED', min: 0, default: 1, description: 'Seed of the dataset and of fault sampling.' }),
  patrons: integer({ name: 'SANDBOX_PATRONS', min: 0, default: 40, description: 'Membership-platform members (all statuses).' }),
  membershipPagination: oneOf({
    name: 'SANDBOX_MEMBERSHIP_PAGINATION',
    values: MEMBERSHIP_PAGINATIONS,
    default: MEMBERSHIP_PAGINATIONS[0],
    description: 'How a members page gives the next one: `cursor` (meta.pagination.cursors.next, as the docs today) or `link` (a links.next with only page[cursor], as the 2018 docs).',
  }),
  membersPageLimit: integer({ name: 'SANDBOX_MEMBERS_PAGE_LIMIT', min: 1, max: 1000, default: 1000, description: 'The most members a page holds, whatever page[count] asks.' }),
  videoMembers: integer({ name: 'SANDBOX_VIDEO_MEMBERS', min: 0, default: 15, description: 'Video-platform channel members.' }),
  accessTokenTtlSeconds: integer({ name: 'SANDBOX_ACCESS_TOKEN_TTL_SECONDS', min: 0, default: 3600, description: 'Lifetime of issued access tokens.' }),
} as const;
