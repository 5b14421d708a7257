import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

/** The parts of a JSON:API page these tests read. */
interface Resource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | { type: string; id: string }[] | null }>;
}
interface Page {
  data: Resource[];
  included?: Resource[];
  links?: { next?: string };
  meta?: { pagination: { total: number; cursors: { next: string | null } } };
}

const FIELDS =
  'include=currently_entitled_tiers,user&fields%5Bmember%5D=full_name,patron_status,currently_entitled_amount_cents,pledge_relationship_start,campaign_lifetime_support_cents&fields%5Btier%5D=title,amount_cents&fields%5Buser%5D=first_name,full_name';

describe('sandbox membership API (JSON:API, cursor pagination, bearer auth)', () => {
  let sandbox: RunningSandbox;
  let membersUrl: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    sandbox = await startSandbox({ patrons: 45 });
    membersUrl = `${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}/members`;
    auth = { authorization: `Bearer ${sandbox.credentials.accessToken}` };
  });
  afterAll(() => sandbox.close());

  it('serves application/vnd.api+json pages with data, included tiers and users, and meta.pagination', async () => {
    const response = await fetch(`${membersUrl}?${FIELDS}&page%5Bcount%5D=10`, { headers: auth });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.api+json');
    const body = (await response.json()) as Page;
    expect(body.data).toHaveLength(10);
    expect(body.meta?.pagination.total).toBe(45);
    const member = body.data[0]!;
    expect(member.type).toBe('member');
    expect(Object.keys(member.attributes).sort()).toEqual(
      ['campaign_lifetime_support_cents', 'currently_entitled_amount_cents', 'full_name', 'patron_status', 'pledge_relationship_start'],
    );
    expect(member.attributes.pledge_relationship_start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    // Full linkage: every related user and tier is in `included`, with only the requested fields.
    const included = new Map((body.included ?? []).map((resource) => [`${resource.type}/${resource.id}`, resource]));
    for (const resource of body.data) {
      // A member whose user record is gone links to none.
      const user = resource.relationships?.user?.data as { id: string } | null;
      if (user !== null) expect(Object.keys(included.get(`user/${user.id}`)!.attributes).sort()).toEqual(['first_name', 'full_name']);
      for (const tier of resource.relationships?.currently_entitled_tiers?.data as { id: string }[]) {
        expect(Object.keys(included.get(`tier/${tier.id}`)!.attributes).sort()).toEqual(['amount_cents', 'title']);
      }
    }
  });

  it('pages by meta.pagination.cursors.next until it is null, as the docs today (no links), with every member exactly once', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url = `${membersUrl}?${FIELDS}&page%5Bcount%5D=20${cursor === null ? '' : `&page%5Bcursor%5D=${encodeURIComponent(cursor)}`}`;
      const body = (await (await fetch(url, { headers: auth })).json()) as Page;
      pages += 1;
      ids.push(...body.data.map((member) => member.id));
      expect(body.links).toBeUndefined();
      cursor = body.meta!.pagination.cursors.next;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(45);
    expect(ids).toEqual(sandbox.datasets.membership.slice(0, 45).map((member) => member.id));
  });

  it('gives a links.next with only page[cursor] (the 2018 docs), and pages shorter than asked', async () => {
    const linked = await startSandbox({ patrons: 45, membershipPagination: 'link', membersPageLimit: 15 });
    try {
      const first = `${linked.url}/api/oauth2/v2/campaigns/${linked.credentials.campaignId}/members?${FIELDS}&page%5Bcount%5D=1000`;
      const page = (await (await fetch(first, { headers: { authorization: `Bearer ${linked.credentials.accessToken}` } })).json()) as Page;
      expect(page.data).toHaveLength(15);
      expect(page.meta).toBeUndefined();
      const next = new URL(page.links!.next!);
      expect([...next.searchParams.keys()]).toEqual(['page[cursor]']);
      // Followed verbatim, the link drops the query: the next page comes back without attributes.
      const verbatim = (await (await fetch(next, { headers: { authorization: `Bearer ${linked.credentials.accessToken}` } })).json()) as Page;
      expect(verbatim.data[0]!.attributes).toEqual({});
      expect(verbatim.data[0]!.id).toBe(linked.datasets.membership.member(15).id);
    } finally {
      await linked.close();
    }
  });

  it('returns no attributes unless fields[type] asks for them (as API v2 does)', async () => {
    const body = await (await fetch(`${membersUrl}?page%5Bcount%5D=1`, { headers: auth })).json();
    expect(body.data[0].attributes).toEqual({});
    expect(body.included).toBeUndefined();
  });

  it('has declined and former patrons, members who never pledged, members without a user and patrons without an entitled tier in the default dataset', () => {
    const members = sandbox.datasets.membership.slice(0, 45);
    const statuses = new Set(members.map((member) => member.patronStatus));
    expect(statuses).toEqual(new Set(['active_patron', 'declined_patron', 'former_patron', null]));
    // Never pledged: status, amount and pledge start null, as in the docs' webhook sample.
    expect(members.filter((m) => m.patronStatus === null).every((m) => m.currentlyEntitledAmountCents === null && m.pledgeRelationshipStart === null)).toBe(true);
    expect(members.some((m) => m.user === null)).toBe(true);
    expect(members.some((m) => m.patronStatus === 'active_patron' && m.entitledTierIds.length === 0)).toBe(true);
    expect(members.some((m) => m.entitledTierIds.length > 1)).toBe(true);
  });

  it('answers 401 with a JSON:API error and WWW-Authenticate for a missing or unknown bearer token', async () => {
    const missing = await fetch(`${membersUrl}?${FIELDS}`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="sandbox"');
    const bad = await fetch(`${membersUrl}?${FIELDS}`, { headers: { authorization: 'Bearer sbx_at.forged.token' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('content-type')).toBe('application/vnd.api+json');
    const body = await bad.json();
    expect(body.errors[0]).toMatchObject({ status: '401', title: 'Unauthorized' });
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('rejects unknown campaigns, unknown fields, bad page sizes and forged cursors with specific errors', async () => {
    const other = await fetch(`${sandbox.url}/api/oauth2/v2/campaigns/999/members`, { headers: auth });
    expect(other.status).toBe(404);
    const cases: [string, RegExp][] = [
      ['fields%5Bmember%5D=email_address_typo', /"email_address_typo" is not an attribute of member/],
      ['include=pledges', /unknown relationship "pledges"/],
      ['page%5Bcount%5D=-4', /page\[count\]: expected a positive integer/],
      ['page%5Bcursor%5D=not-a-cursor', /page\[cursor\]: not a cursor this API issued/],
    ];
    for (const [query, detail] of cases) {
      const response = await fetch(`${membersUrl}?${query}`, { headers: auth });
      expect(response.status, query).toBe(400);
      expect((await response.json()).errors[0].detail).toMatch(detail);
    }
  });

  it('serves the campaign with every tier', async () => {
    const response = await fetch(`${sandbox.url}/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}?include=tiers&fields%5Btier%5D=title,amount_cents`, { headers: auth });
    const body = (await response.json()) as { data: Resource; included: Resource[] };
    expect(body.data.relationships?.tiers?.data).toHaveLength(4);
    expect(body.included.map((tier) => tier.attributes.title)).toEqual(sandbox.datasets.membership.tiers.map((tier) => tier.title));
  });

  it('pages through 100,000 patrons with a constant cost per page', async () => {
    const big = await startSandbox({ patrons: 100_000 });
    try {
      const url = `${big.url}/api/oauth2/v2/campaigns/${big.credentials.campaignId}/members?${FIELDS}&page%5Bcount%5D=1000`;
      const first = (await (await fetch(url, { headers: { authorization: `Bearer ${big.credentials.accessToken}` } })).json()) as Page;
      expect(first.data).toHaveLength(1000);
      expect(first.meta?.pagination.total).toBe(100_000);
      // Jump straight to the last page through a cursor, as a client resuming would.
      const last = new URL(url);
      last.searchParams.set('page[cursor]', Buffer.from(JSON.stringify({ o: 99_000 })).toString('base64url'));
      const lastPage = (await (await fetch(last, { headers: { authorization: `Bearer ${big.credentials.accessToken}` } })).json()) as Page;
      expect(lastPage.data).toHaveLength(1000);
      expect(lastPage.meta?.pagination.cursors.next).toBeNull();
      expect(lastPage.data.at(-1)?.id).toBe(big.datasets.membership.member(99_999).id);
    } finally {
      await big.close();
    }
  });
});
