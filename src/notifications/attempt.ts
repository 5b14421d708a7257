/**
 * One attempt to deliver one event to one destination: the request (a signed Standard Webhooks POST,
 * or a Discord message), sent through the safe agent under a deadline that covers connect, headers
 * and the answer's body, and what the answer says about the next attempt — `Retry-After` on 429 and
 * 503 (RFC 9110 §10.2.3), Discord's rate-limit headers. The answer's body is read up to
 * MAX_ANSWER_BYTES and never logged; an error never carries the URL or the secret.
 */
import { withDeadline } from '../lib/deadline.js';
import { Webhook } from 'standardwebhooks';
import { request, type Dispatcher } from 'undici';
import { discordMessage } from './discord.js';
import type { Destination } from './destinations.js';
import { bodyWithFields, type NotificationEvent } from './events.js';
import { RefusedAddressError } from './safe-agent.js';

/** Enough for Discord's rate-limit answer; the rest of a body is never read. */
export const MAX_ANSWER_BYTES = 16 * 1024;

const USER_AGENT = 'channel-graph-notifications (+https://www.standardwebhooks.com/)';

export type AttemptOutcome =
  | { delivered: true; status: number; holdDestinationMs?: number }
  | {
      delivered: false;
      /** The answer's status; null when there was none (refused, unreachable, past the deadline). */
      status: number | null;
      /** What went wrong, for the deliveries view and the log: no URL, no secret, no answer body. */
      error: string;
      /** The receiver asked for this pause before the next attempt (Retry-After, Discord's reset). */
      retryAfterMs?: number;
      /** Nothing goes to this destination for this long (its rate limit, or it said it is unavailable). */
      holdDestinationMs?: number;
    };

/** The request an event makes for a destination. */
export interface PreparedRequest {
  headers: Record<string, string>;
  body: string;
}

/** A destination ready to send to: its signer made once (the key is decoded once). */
export interface Sender {
  destination: Destination;
  prepare(event: NotificationEvent, now: Date): PreparedRequest;
}

export function createSender(destination: Destination): Sender {
  if (destination.type === 'discord') {
    return {
      destination,
      prepare(event) {
        const template = destination.templates[event.body.type];
        return { headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT }, body: JSON.stringify(discordMessage(event.body, template, destination.fields)) };
      },
    };
  }
  const signer = new Webhook(destination.secret);
  return {
    destination,
    prepare(event, now) {
      const body = JSON.stringify(bodyWithFields(event.body, destination.fields));
      return {
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(event.id, now, body),
        },
        body,
      };
    },
  };
}

class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';
}

/** An HTTP-date as senders generate it (IMF-fixdate, RFC 9110 §5.6.7). */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  return IMF_FIXDATE.test(trimmed) ? Math.max(0, Date.parse(trimmed) - now) : undefined;
}

/** A number of seconds with decimals (Discord's `X-RateLimit-Reset-After`, `retry_after`) as milliseconds. */
function seconds(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,10}(?:\.\d{1,6})?$/.test(value.trim()) ? Number(value) : typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  return number === undefined ? undefined : Math.ceil(number * 1000);
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads at most `max` bytes of a body and discards the rest. */
async function boundedText(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > max) {
      body.destroy();
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Discord's pause after this answer: the bucket is empty (remaining 0), or it answered 429. */
function discordHoldMs(status: number, headers: Dispatcher.ResponseData['headers'], body: string, now: number): number | undefined {
  const resetAfter = seconds(header(headers, 'x-ratelimit-reset-after'));
  if (status === 429) {
    let fromBody: number | undefined;
    try {
      fromBody = seconds((JSON.parse(body) as { retry_after?: unknown }).retry_after);
    } catch {
      fromBody = undefined;
    }
    const waits = [retryAfterMs(header(headers, 'retry-after'), now), resetAfter, fromBody].filter((wait): wait is number => wait !== undefined);
    return waits.length === 0 ? undefined : Math.max(...waits);
  }
  return header(headers, 'x-ratelimit-remaining') === '0' ? resetAfter : undefined;
}

/** An error's text without the destination's URL or secret (a library may quote either). */
function safeErrorText(error: unknown, destination: Destination): string {
  if (error instanceof AttemptTimeoutError || error instanceof RefusedAddressError) return error.message;
  const { code, message } = error as { code?: unknown; message?: unknown };
  let text = typeof message === 'string' && message !== '' ? message : String(error);
  const secrets = [destination.url, new URL(destination.url).pathname, ...(destination.type === 'webhook' ? [destination.secret] : [])];
  for (const secret of secrets) if (secret.length > 1) text = text.split(secret).join('[REDACTED]');
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

export interface AttemptOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** The caller's signal (shutdown): aborts the attempt at once. */
  signal?: AbortSignal;
  now?: () => number;
}

/** One attempt; never throws (every failure is an outcome). */
export async function attemptDelivery(sender: Sender, event: NotificationEvent, options: AttemptOptions): Promise<AttemptOutcome> {
  const now = options.now ?? Date.now;
  const { destination } = sender;
  const { headers, body } = sender.prepare(event, new Date(now()));
  try {
    const answer = await withDeadline(
      async (signal) => {
        const response = await request(destination.url, {
          method: 'POST',
          headers,
          body,
          dispatcher: options.dispatcher,
          signal,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        return { status: response.statusCode, headers: response.headers, text: await boundedText(response.body, MAX_ANSWER_BYTES) };
      },
      {
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        timeoutError: () => new AttemptTimeoutError(`no complete answer within ${options.timeoutMs} ms`),
        abortError: () => new AttemptTimeoutError('stopped: the service is shutting down'),
      },
    );
    const hold = destination.type === 'discord' ? discordHoldMs(answer.status, answer.headers, answer.text, now()) : undefined;
    if (answer.status >= 200 && answer.status < 300) return { delivered: true, status: answer.status, ...(hold === undefined ? {} : { holdDestinationMs: hold }) };
    const asked = answer.status === 429 || answer.status === 503 ? (hold ?? retryAfterMs(header(answer.headers, 'retry-after'), now())) : hold;
    const error = answer.status >= 300 && answer.status < 400 ? `answered ${answer.status}, a redirect, which is not followed` : `answered ${answer.status}`;
    return { delivered: false, status: answer.status, error, ...(asked === undefined ? {} : { retryAfterMs: asked, holdDestinationMs: asked }) };
  } catch (error) {
    return { delivered: false, status: null, error: safeErrorText(error, destination) };
  }
}
