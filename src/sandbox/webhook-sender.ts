/**
 * The membership platform's webhook robot: applies a pledge change to the dataset, then POSTs the
 * member document to the receiver, signed with X-Patreon-Signature = hex HMAC-MD5 of the raw body
 * keyed with the webhook secret.
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { z } from 'zod';
import { memberWebhookDocument } from './jsonapi-documents.js';
import { formatPatreonTime, type MemberRecord } from './membership-data.js';
import type { SandboxState } from './state.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const webhookRequestSchema = z.strictObject({
  /** Only loopback receivers: the sandbox must never be turned into a request relay. */
  url: z
    .url({ protocol: /^http$/, error: 'an http:// URL' })
    .refine((value) => LOOPBACK_HOSTS.has(new URL(value).hostname), { error: 'a loopback URL (127.0.0.1, localhost or [::1])' }),
  event: z.enum(['members:pledge:create', 'members:pledge:update', 'members:pledge:delete', 'members:create', 'members:update', 'members:delete']),
  memberId: z.string().min(1),
  /** The tier the member moves to (create/update); defaults to the member's current or lowest tier. */
  tierId: z.string().min(1).optional(),
});

export type WebhookRequest = z.infer<typeof webhookRequestSchema>;

export class WebhookRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function signWebhookBody(body: string | Buffer, secret: string): string {
  return createHmac('md5', secret).update(body).digest('hex');
}

/** The dataset change the event stands for; the listing shows it too from now on. */
function applyPledgeEvent(state: SandboxState, request: WebhookRequest): MemberRecord {
  const dataset = state.membership;
  const index = dataset.indexOf(request.memberId);
  if (index === undefined) throw new WebhookRequestError(404, `memberId: no member ${request.memberId} in the sandbox dataset`);
  if (request.tierId !== undefined && !dataset.tier(request.tierId)) {
    throw new WebhookRequestError(400, `tierId: no tier ${request.tierId}; expected one of ${dataset.tiers.map((t) => t.id).join(', ')}`);
  }
  const current = dataset.member(index);
  if (request.event.endsWith(':delete')) {
    return dataset.override(index, { patronStatus: 'former_patron', entitledTierIds: [], currentlyEntitledAmountCents: 0 });
  }
  const tier = dataset.tier(request.tierId ?? current.entitledTierIds[0] ?? '') ?? dataset.tiers[0]!;
  const creates = request.event.endsWith(':create');
  const movesTier = creates || request.tierId !== undefined;
  return dataset.override(index, {
    ...(creates && { patronStatus: 'active_patron', pledgeRelationshipStart: formatPatreonTime(Date.now()) }),
    ...(movesTier && { entitledTierIds: [tier.id], currentlyEntitledAmountCents: tier.amountCents }),
  });
}

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('the receiver did not answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends one signed event; resolves with the receiver's HTTP status. */
export async function sendWebhook(state: SandboxState, request: WebhookRequest): Promise<{ status: number; member: MemberRecord }> {
  const member = applyPledgeEvent(state, request);
  const body = JSON.stringify(memberWebhookDocument(state.membership, member, state.credentials.campaignId));
  state.requests.webhook += 1;
  const status = await post(request.url, body, {
    'content-type': 'application/json',
    'user-agent': 'Patreon HTTP Robot',
    'x-patreon-event': request.event,
    'x-patreon-signature': signWebhookBody(body, state.credentials.webhookSecret),
  });
  return { status, member };
}
