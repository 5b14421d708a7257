import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupportersResponse } from '@channel-graph/client/rest';
import { signWebhookBody } from '../../src/sandbox/index.js';
import { request, sandboxControl, sandboxRequests, startSandboxApp } from './harness.js';

/**
 * POST /membership/webhook: events sent by the sandbox's webhook robot (correctly signed) update
 * the membership snapshot in place; anything not signed with the secret is refused and changes
 * nothing.
 */
let harness: Awaited<ReturnType<typeof startSandboxApp>>;
let url: string;

beforeAll(async () => {
  harness = await startSandboxApp();
  url = harness.app.url;
  await request(url, 'GET', '/membership/pledges');
});
afterAll(() => harness.close());

async function pledges(): Promise<SupportersResponse> {
  return (await request(url, 'GET', '/membership/pledges')).json<SupportersResponse>();
}

async function sendEvent(event: string, memberId: string, tierId?: string): Promise<{ status: number }> {
  return sandboxControl<{ status: number }>(harness.app.sandbox, 'POST', 'webhook', {
    url: `${url}/membership/webhook`,
    event,
    memberId,
    ...(tierId === undefined ? {} : { tierId }),
  });
}

function member(status: 'active_patron' | 'declined_patron' | 'former_patron') {
  const dataset = harness.app.sandbox.datasets.membership;
  const found = dataset.slice(0, dataset.size).find((candidate) => candidate.patronStatus === status);
  if (found === undefined) throw new Error(`the sandbox dataset has no ${status}`);
  return found;
}

describe('POST /membership/webhook', () => {
  it('create, update and delete events change the snapshot in place (no refetch) and persist it', async () => {
    const before = await sandboxRequests(harness.app.sandbox);
    const etagBefore = (await request(url, 'GET', '/membership/pledges')).headers.get('etag')!;
    const newcomer = member('former_patron');
    const tiers = harness.app.sandbox.datasets.membership.tiers;
    expect((await pledges()).users.some((user) => user.id === newcomer.id)).toBe(false);

    expect(await sendEvent('members:pledge:create', newcomer.id, tiers[1]!.id)).toMatchObject({ status: 204 });
    const created = (await pledges()).users.find((user) => user.id === newcomer.id);
    expect(created?.level).toMatchObject({ level_id: tiers[1]!.id, amount_cents: tiers[1]!.amountCents });
    expect(Date.now() - Date.parse(created!.level.created_at)).toBeLessThan(60_000);

    expect(await sendEvent('members:pledge:update', newcomer.id, tiers[3]!.id)).toMatchObject({ status: 204 });
    const updated = await pledges();
    expect(updated.users.find((user) => user.id === newcomer.id)?.level).toMatchObject({ level_id: tiers[3]!.id, amount_cents: tiers[3]!.amountCents });
    const leaving = member('active_patron');
    expect(await sendEvent('members:pledge:delete', leaving.id)).toMatchObject({ status: 204 });
    const afterDelete = await pledges();
    expect(afterDelete.users.some((user) => user.id === leaving.id)).toBe(false);
    expect(afterDelete.users.some((user) => user.id === newcomer.id)).toBe(true);

    // Pollers revalidating with the old ETag now get the new body.
    expect((await request(url, 'GET', '/membership/pledges', { headers: { 'if-none-match': etagBefore } })).status).toBe(200);

    const after = await sandboxRequests(harness.app.sandbox);
    expect(after.members).toBe(before.members);
    expect(after.webhook).toBe(before.webhook + 3);

    // The change is on disk: a restart would serve it.
    const stored = JSON.parse(await readFile(join(harness.dataDir, 'sandbox', 'snapshot-membership.json'), 'utf8')) as { snapshot: { supporters: Array<{ id: string }> } };
    const storedIds = stored.snapshot.supporters.map((supporter) => supporter.id);
    expect(storedIds).toContain(newcomer.id);
    expect(storedIds).not.toContain(leaving.id);
  });

  it('refuses a missing or wrong signature with 401 and changes nothing', async () => {
    const before = await pledges();
    const target = before.users[0]!;
    const body = JSON.stringify({ data: { type: 'member', id: target.id, attributes: { patron_status: 'former_patron' } } });
    const unsigned = await request(url, 'POST', '/membership/webhook', {
      headers: { 'content-type': 'application/json', 'x-patreon-event': 'members:pledge:delete' },
      body,
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toBe('application/problem+json');
    const wrongSecret = await request(url, 'POST', '/membership/webhook', {
      headers: { 'content-type': 'application/json', 'x-patreon-event': 'members:pledge:delete', 'x-patreon-signature': signWebhookBody(body, 'not-the-secret') },
      body,
    });
    expect(wrongSecret.status).toBe(401);
    // Signed, then tampered with: the signature covers the raw bytes.
    const tampered = await request(url, 'POST', '/membership/webhook', {
      headers: { 'content-type': 'application/json', 'x-patreon-event': 'members:pledge:delete', 'x-patreon-signature': signWebhookBody(body, harness.app.sandbox.credentials.webhookSecret) },
      body: body.replace(target.id, before.users[1]!.id),
    });
    expect(tampered.status).toBe(401);
    expect(await pledges()).toEqual(before);
  });

  it('answers 400 for a signed body that is not a member document, or an unknown event', async () => {
    const before = await pledges();
    const secret = harness.app.sandbox.credentials.webhookSecret;
    const send = (event: string, body: string) =>
      request(url, 'POST', '/membership/webhook', {
        headers: { 'content-type': 'application/json', 'x-patreon-event': event, 'x-patreon-signature': signWebhookBody(body, secret) },
        body,
      });
    const notJson = await send('members:pledge:create', '{"data":');
    expect(notJson.status).toBe(400);
    expect(notJson.json<{ detail: string }>().detail).toBe('the request body is not valid JSON');
    const wrongShape = await send('members:pledge:create', JSON.stringify({ data: { type: 'campaign', id: '1' } }));
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.json<{ detail: string }>().detail).toContain('not a JSON:API member document');
    const unknownEvent = await send('posts:publish', JSON.stringify({ data: { type: 'member', id: '1' } }));
    expect(unknownEvent.status).toBe(400);
    expect(unknownEvent.json<{ detail: string }>().detail).toContain('X-Patreon-Event');
    expect(await pledges()).toEqual(before);
  });

  it('answers 400 for an amount a GraphQL Int cannot carry (above 2^31 - 1), and the graph still answers without errors', async () => {
    const before = await pledges();
    const secret = harness.app.sandbox.credentials.webhookSecret;
    const body = JSON.stringify({
      data: {
        type: 'member',
        id: 'huge-amount',
        attributes: { patron_status: 'active_patron', currently_entitled_amount_cents: 2 ** 31, pledge_relationship_start: '2026-01-01T00:00:00Z' },
      },
    });
    const answer = await request(url, 'POST', '/membership/webhook', {
      headers: { 'content-type': 'application/json', 'x-patreon-event': 'members:pledge:create', 'x-patreon-signature': signWebhookBody(body, secret) },
      body,
    });
    expect(answer.status).toBe(400);
    expect(await pledges()).toEqual(before);
    const graph = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ supporters(orderBy: AMOUNT) { amountCents } }' }),
    });
    expect(graph.status).toBe(200);
    expect(await graph.json()).not.toHaveProperty('errors');
  });

  it('answers 413 for a body over the limit without reading it all', async () => {
    const response = await request(url, 'POST', '/membership/webhook', {
      headers: { 'content-type': 'application/json', 'x-patreon-event': 'members:pledge:create', 'x-patreon-signature': '0'.repeat(32) },
      body: `{"data":"${'x'.repeat(300 * 1024)}"}`,
    });
    expect(response.status).toBe(413);
    expect(response.json<{ detail: string }>().detail).toBe('the request body is larger than 262144 bytes');
  });
});
