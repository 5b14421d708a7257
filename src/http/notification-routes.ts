/**
 * The notifications' REST side (openapi/channel-api.yaml, tag `notifications`): GET
 * /notifications/deliveries, the newest deliveries a page at a time, and POST /notifications/replay,
 * the operator's replay of dead letters behind `Authorization: Bearer <NOTIFICATIONS_REPLAY_TOKEN>`
 * (what `npm run notifications -- replay` sends).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelApiComponents as components } from '@channel-graph/client/rest';
import { readRequestBody } from '../lib/body.js';
import type { Compression } from '../lib/compression.js';
import { problem, sendProblem } from '../lib/problem.js';
import type { DeliveryView } from '../notifications/outbox.js';
import { MAX_DELIVERIES_PAGE, type Notifications } from '../notifications/notifications.js';
import { nextLink, QueryParameterError, readLimit, single } from './history-routes.js';
import { serialize } from './serialized-body.js';

type Schemas = components['schemas'];
type Route = (request: IncomingMessage, response: ServerResponse, query: URLSearchParams) => Promise<void>;

const STATES: ReadonlyArray<Schemas['NotificationDeliveryState']> = ['pending', 'delivered', 'dead'];
const DEFAULT_PAGE = 20;
/** A replay request is a few bytes of JSON. */
const MAX_REPLAY_BODY_BYTES = 4 * 1024;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const EVENT_ID = /^evt_[0-9A-Za-z]{1,64}$/;
const HEADERS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Link' } as const;

export const deliveryBody = (view: DeliveryView): Schemas['NotificationDelivery'] => ({
  event_id: view.eventId,
  kind: view.kind,
  destination: view.destination,
  state: view.state,
  attempts: view.attempts,
  recorded_at: view.recordedAt.toISOString(),
  last_attempt_at: view.lastAttemptAt?.toISOString() ?? null,
  last_status: view.lastStatus,
  last_error: view.lastError,
  next_attempt_at: view.nextAttemptAt?.toISOString() ?? null,
  delivered_at: view.deliveredAt?.toISOString() ?? null,
});

function replayFilter(raw: Buffer): { destination?: string; eventId?: string } {
  if (raw.length === 0) return {};
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new QueryParameterError('the request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new QueryParameterError('the request body must be an object: { "destination"?, "event"? }');
  const { destination, event, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new QueryParameterError(`the request body has no property "${unknown.slice(0, 64)}" (expected "destination" and "event")`);
  if (destination !== undefined && (typeof destination !== 'string' || !NAME.test(destination))) throw new QueryParameterError('"destination" must be a destination name (lowercase letters, digits, - and _)');
  if (event !== undefined && (typeof event !== 'string' || !EVENT_ID.test(event))) throw new QueryParameterError('"event" must be an event id (evt_…)');
  return { ...(destination === undefined ? {} : { destination }), ...(event === undefined ? {} : { eventId: event }) };
}

export function createNotificationRoutes(options: { notifications: Notifications; replayToken?: string | undefined; compression?: Compression | undefined }): Record<string, { GET: Route } | { POST: Route }> {
  const { notifications, compression } = options;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  const expected = options.replayToken === undefined ? undefined : digest(`Bearer ${options.replayToken}`);
  return {
    '/notifications/deliveries': {
      GET: async (request, response, query) => {
        const destination = single(query, 'destination');
        if (destination !== undefined && !NAME.test(destination)) throw new QueryParameterError('query parameter "destination" must be a destination name (lowercase letters, digits, - and _)');
        const stateText = single(query, 'state');
        if (stateText !== undefined && !(STATES as readonly string[]).includes(stateText)) throw new QueryParameterError(`query parameter "state" must be one of ${STATES.map((state) => `"${state}"`).join(', ')}, got "${stateText.slice(0, 64)}"`);
        const page = await notifications.deliveries({
          destination,
          state: stateText as Schemas['NotificationDeliveryState'] | undefined,
          first: readLimit(query, MAX_DELIVERIES_PAGE) ?? DEFAULT_PAGE,
          after: single(query, 'cursor'),
        });
        const nextCursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
        const body: Schemas['NotificationDeliveriesResponse'] = { deliveries: page.edges.map(({ node }) => deliveryBody(node)), next_cursor: nextCursor };
        serialize(body, { headers: nextCursor === null ? HEADERS : { ...HEADERS, link: nextLink(request, nextCursor) }, effort: 'answer', ...(compression === undefined ? {} : { compression }) }).send(request, response);
      },
    },
    '/notifications/replay': {
      POST: async (request, response) => {
        // Compared as digests, in constant time: the token's length is not told either.
        if (expected === undefined || !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
          const detail = expected === undefined ? 'replays over HTTP need NOTIFICATIONS_REPLAY_TOKEN set on the service' : 'a replay needs the header Authorization: Bearer <NOTIFICATIONS_REPLAY_TOKEN>';
          sendProblem(response, problem(401, detail, '/notifications/replay'), { 'www-authenticate': 'Bearer realm="notifications"' });
          return;
        }
        const filter = replayFilter(await readRequestBody(request, MAX_REPLAY_BODY_BYTES));
        const body: Schemas['NotificationReplayResponse'] = { replayed: await notifications.replayDead(filter) };
        serialize(body, { headers: HEADERS, effort: 'answer' }).send(request, response);
      },
    },
  };
}
