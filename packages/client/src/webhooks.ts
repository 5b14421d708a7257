/**
 * `@channel-graph/client/webhooks`: what a receiver of the service's webhooks needs — the body's
 * types (the `webhooks:` of openapi/channel-api.yaml) and `verifyChannelWebhook`, which checks a
 * delivery's Standard Webhooks signature with the `standardwebhooks` package's own verifier:
 *
 *   const { id, event } = verifyChannelWebhook(rawBody, request.headers, process.env.CHANNEL_WEBHOOK_SECRET);
 *   if (seen.has(id)) return;                        // at-least-once: a retry carries the same id
 *   if (event.type === 'supporter.joined') greet(event.data.supporter.name);
 *
 * The body must be the raw bytes as received (the signature covers them, not a re-serialised object).
 * Like the REST client, it does not check the body's shape at run time: a body whose signature
 * matches was written by the service, from the same contract.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components, webhooks } from '../../../generated/openapi/channel-api.js';

export { WebhookVerificationError } from 'standardwebhooks';

/** Every webhook of the contract, by its kind: each one's `post` operation, headers and body. */
export type ChannelWebhooks = webhooks;
/** The body of any delivery: narrow it on `type`. */
export type ChannelNotification = components['schemas']['ChannelNotification'];
export type SupporterNotification = components['schemas']['SupporterNotification'];
export type GoalNotification = components['schemas']['GoalNotification'];
export type NotificationKind = components['schemas']['NotificationKind'];
export type NotificationSupporter = components['schemas']['NotificationSupporter'];
export type NotificationGoal = components['schemas']['NotificationGoal'];

/** Request headers as fetch (`Headers`) or node:http (`IncomingHttpHeaders`) give them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** A delivery whose signature matched. */
export interface VerifiedChannelWebhook {
  /** `webhook-id`: the same on every retry of one event (drop one you have processed). */
  id: string;
  /** `webhook-timestamp`: when this attempt was signed. */
  timestamp: Date;
  event: ChannelNotification;
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => {
      plain[name] = value;
    });
    return plain;
  }
  for (const [name, value] of Object.entries(headers as Readonly<Record<string, string | readonly string[] | undefined>>)) {
    // Several signatures (a secret being rotated) are space-separated in one field.
    if (value !== undefined) plain[name.toLowerCase()] = typeof value === 'string' ? value : value.join(' ');
  }
  return plain;
}

/**
 * Checks `webhook-signature` against the raw body with `secret` (the destination's `whsec_…`), and
 * `webhook-timestamp` against the clock (at most 5 minutes off); returns the parsed event. Throws
 * WebhookVerificationError when a header is missing, the signature does not match or the timestamp
 * is too old or too new; answer such a request 4xx and do not act on it.
 */
export function verifyChannelWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): VerifiedChannelWebhook {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const plain = plainHeaders(headers);
  const event = new Webhook(secret).verify(payload, plain) as ChannelNotification | undefined;
  if (event === undefined) throw new WebhookVerificationError('Empty body');
  return { id: plain['webhook-id'] as string, timestamp: new Date(Number(plain['webhook-timestamp']) * 1000), event };
}
