import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupportersResponse } from '@channel-graph/client/rest';
import type { MembershipPagination } from '../../src/sandbox/index.js';
import { request, sandboxRequests, startSandboxApp } from './harness.js';

/**
 * A campaign of more than 1,500 patrons, served by the sandbox one page of 700 at a time although
 * the service asks 1,000 — by today's docs' cursor (`meta.pagination.cursors.next`, no links) and by
 * the 2018 docs' `links.next` that carries only `page[cursor]` — is listed whole, through the real
 * REST and GraphQL answers.
 */
const MEMBERS = 2_200;
const PAGE_LIMIT = 700;

describe.each<MembershipPagination>(['cursor', 'link'])('a campaign of more than 1,500 patrons, pages by %s, fewer members a page than asked', (membershipPagination) => {
  let harness: Awaited<ReturnType<typeof startSandboxApp>>;
  let expected: string[];

  beforeAll(async () => {
    harness = await startSandboxApp({ patrons: MEMBERS, seed: 11, membershipPagination, membersPageLimit: PAGE_LIMIT });
    const dataset = harness.app.sandbox.datasets.membership;
    expected = dataset.slice(0, dataset.size).filter((member) => member.patronStatus === 'active_patron').map((member) => member.id).sort();
  });
  afterAll(() => harness.close());

  it('lists every patron in REST, not stale, after reading every page', async () => {
    expect(expected.length).toBeGreaterThan(1_500);
    const response = await request(harness.app.url, 'GET', '/membership/pledges');
    expect(response.status).toBe(200);
    const body = response.json<SupportersResponse>();
    expect(body.stale).toBe(false);
    expect(body.users.map((user) => user.id).sort()).toEqual(expected);
    expect((await sandboxRequests(harness.app.sandbox)).members).toBe(Math.ceil(MEMBERS / PAGE_LIMIT));
    // Tier titles come without the emoji the creator typed into them.
    expect(Object.values(body.levels)).toEqual(['Supporter', 'Fan', 'Champion', 'Patron Saint']);
  });

  it('lists the same patrons in GraphQL', async () => {
    const response = await fetch(`${harness.app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ supporters(platform: MEMBERSHIP) { id } tiers(platform: MEMBERSHIP) { title } }' }),
    });
    const body = (await response.json()) as { data: { supporters: { id: string }[]; tiers: { title: string }[] } };
    expect(body.data.supporters.map((supporter) => supporter.id).sort()).toEqual(expected);
    expect(body.data.tiers.map((tier) => tier.title)).toEqual(['Supporter', 'Fan', 'Champion', 'Patron Saint']);
  });
});
