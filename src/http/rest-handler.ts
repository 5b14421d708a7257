import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isMembershipWebhookEvent,
  MEMBERSHIP_WEBHOOK_EVENTS,
  MembershipWebhookError,
  parseMembershipWebhook,
  verifyWebhookSignature,
} from '../channel/membership.js';
import { isSupporterOrder, SUPPORTER_ORDERS, type SupporterOrder } from '../channel/order.js';
import { type Served, type SnapshotStore, type SourceSnapshots, UpstreamUnavailableError } from '../channel/snapshot-store.js';
import type { ChannelApiComponents as components, ChannelApiPaths as paths } from '@channel-graph/client/rest';
import { BodyIncompleteError, BodyTooLargeError, readRequestBody } from '../lib/body.js';
import { problem, sendProblem } from '../lib/problem.js';
import type { Compression } from '../lib/compression.js';
import type { EventStreamHandler } from './event-stream.js';
import { SerializedBodyCache, serialize } from './serialized-body.js';
import { type RedisHealthEntry, toHealthBody, toStatsBody, toSupportersBody } from './representation.js';
import { HistoryUnavailableError, type ChannelHistory } from '../history/history-service.js';
import { pageOfSupporters, MAX_SUPPORTERS_PAGE } from '../channel/supporter-pages.js';
import { orderSupporters } from '../channel/order.js';
import { createHistoryRoutes, CursorError, HistoryQueryError, nextLink, QueryParameterError, readLimit, single } from './history-routes.js';
import type { Notifications } from '../notifications/notifications.js';
import { createNotificationRoutes } from './notification-routes.js';

/**
 * The REST side of the channel data API (`openapi/channel-api.yaml`) as a node:http request
 * listener. Reads come from the snapshot store; bodies are serialised once per snapshot and order
 * and then served as bytes (with an ETag), so a warm GET costs little more than writing the buffer.
 */
export interface RestHandlerOptions {
  store: SnapshotStore;
  /** Where the data comes from, shown by /healthz. */
  mode: components['schemas']['Mode'];
  /** MEMBERSHIP_WEBHOOK_SECRET: key of the webhook's HMAC signature. */
  webhookSecret: string;
  /** Largest webhook body accepted; default 256 KiB. */
  webhookBodyLimitBytes?: number;
  logger?: Pick<Console, 'error'>;
  /** GET /events; without it the path is not served (404). */
  eventStream?: EventStreamHandler;
  /** Redis reachability, shown by /healthz; undefined (or absent) without REDIS_URL. */
  redisHealth?: () => RedisHealthEntry | undefined;
  /** How answers are compressed; default never. */
  compression?: Compression;
  /** The channel over time (GET /history, /changes, /totals, /goals); without it those paths are not served. */
  history?: ChannelHistory;
  /** GET /notifications/deliveries and POST /notifications/replay; without it those paths are not served. */
  notifications?: { notifications: Notifications; replayToken?: string | undefined };
}

export type RestHandler = ((request: IncomingMessage, response: ServerResponse) => void) & {
  /** The paths it serves (route labels of the request metrics). */
  readonly paths: ReadonlySet<string>;
};

/**
 * A route answers at once (undefined), or returns the promise of its answer. A promise for an
 * answer already written would still cost its `.catch` a reaction job on every request.
 */
type Route = Partial<Record<'GET' | 'POST', (request: IncomingMessage, response: ServerResponse, query: URLSearchParams) => Promise<void> | undefined>>;

/** The contract's event names and the adapter's are the same list (checked by the compiler). */
type ContractWebhookEvent = NonNullable<paths['/membership/webhook']['post']['parameters']['header']>['X-Patreon-Event'];
const WEBHOOK_EVENTS: readonly ContractWebhookEvent[] = MEMBERSHIP_WEBHOOK_EVENTS;

/** The contract's problem of an unavailable upstream (RFC 9457 extension members `source`, `retry_after_seconds`). */
type UpstreamProblem = components['schemas']['UpstreamProblem'];

const DEFAULT_WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/** Headers of every answer: the data is public and read by overlays running in browsers. */
const COMMON_HEADERS = { 'access-control-allow-origin': '*' } as const;

/** The (never modified) query of a URL without one. */
const NO_QUERY = new URLSearchParams();

class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
}

/** `sort` of the supporters endpoints: absent → `since`; anything but one known value → 400. */
function readSortParameter(query: URLSearchParams): SupporterOrder {
  const values = query.getAll('sort');
  if (values.length === 0) return 'since';
  const [value] = values;
  if (values.length > 1 || value === undefined) throw new BadRequestError('query parameter "sort" must be given at most once');
  if (!isSupporterOrder(value)) {
    throw new BadRequestError(`query parameter "sort" must be one of ${SUPPORTER_ORDERS.map((order) => `"${order}"`).join(', ')}, got "${value}"`);
  }
  return value;
}

export function createRestHandler(options: RestHandlerOptions): RestHandler {
  const { store, webhookSecret } = options;
  const bodyLimit = options.webhookBodyLimitBytes ?? DEFAULT_WEBHOOK_BODY_LIMIT_BYTES;
  const logger = options.logger ?? console;
  const { compression } = options;
  const cache = new SerializedBodyCache(COMMON_HEADERS, compression);

  /**
   * A warm source (its snapshot in memory) is answered at once: reading it through the store's
   * promise cost every GET an async call and a microtask turn. A cold one waits for its first fetch.
   */
  const answerFrom = <K extends 'membership' | 'video' | 'stats'>(source: K, send: (served: Served<SourceSnapshots[K]>) => void): Promise<void> | undefined => {
    const served = store.current(source);
    if (served === null) return store.read(source).then(send);
    send(served);
    return undefined;
  };

  const supporters = (source: 'membership' | 'video'): Route['GET'] => (request, response, query) => {
    const order = readSortParameter(query);
    const limit = readLimit(query, MAX_SUPPORTERS_PAGE);
    const cursor = single(query, 'cursor');
    if (limit === undefined && cursor !== undefined) throw new BadRequestError('query parameter "cursor" needs "limit" (the page size)');
    // A page: the list from the cursor's key on (keyset: stable while supporters join and leave).
    if (limit !== undefined) {
      return answerFrom(source, ({ data, stale }) => {
        const page = pageOfSupporters(orderSupporters(data.supporters, order), order, source, limit, cursor);
        const body = toSupportersBody({ ...data, supporters: page.edges.map((edge) => edge.node) }, stale, order);
        const link = page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null ? nextLink(request, page.pageInfo.endCursor) : undefined;
        serialize(body, { headers: link === undefined ? COMMON_HEADERS : { ...COMMON_HEADERS, 'access-control-expose-headers': 'Link', link }, effort: 'answer', compression }).send(request, response);
      });
    }
    return answerFrom(source, ({ data, stale }) => cache.get(data, `${order}:${stale}`, () => toSupportersBody(data, stale, order)).send(request, response));
  };

  const { eventStream } = options;
  const routes: Record<string, Route> = {
    ...(options.history && createHistoryRoutes({ store, history: options.history, compression })),
    ...(options.notifications && createNotificationRoutes({ ...options.notifications, compression })),
    ...(eventStream && {
      '/events': {
        GET: (request, response, query) => {
          eventStream.handle(request, response, query);
          return undefined;
        },
      },
    }),
    '/membership/pledges': { GET: supporters('membership') },
    '/video/members': { GET: supporters('video') },
    '/video/stats': {
      GET: (request, response) => answerFrom('stats', ({ data, stale }) => cache.get(data, String(stale), () => toStatsBody(data, stale)).send(request, response)),
    },
    '/healthz': {
      GET: (request, response) => {
        serialize(toHealthBody(options.mode, store.health(), options.redisHealth?.()), { headers: COMMON_HEADERS, effort: 'answer', compression }).send(request, response);
        return undefined;
      },
    },
    '/membership/webhook': {
      POST: async (request, response) => {
        const rawBody = await readRequestBody(request, bodyLimit);
        const signature = request.headers['x-patreon-signature'];
        // Verified over the raw bytes before anything else is looked at; a refused event changes nothing.
        if (typeof signature !== 'string' || !verifyWebhookSignature(rawBody, signature, webhookSecret)) {
          sendProblem(response, problem(401, 'the X-Patreon-Signature header is missing or is not the HMAC-MD5 of the body', '/membership/webhook'), COMMON_HEADERS);
          return;
        }
        const event = request.headers['x-patreon-event'];
        if (!isMembershipWebhookEvent(event)) {
          throw new BadRequestError(`header "X-Patreon-Event" must be one of ${WEBHOOK_EVENTS.join(', ')}, got ${JSON.stringify(event ?? null)}`);
        }
        let body: unknown;
        try {
          body = JSON.parse(rawBody.toString('utf8'));
        } catch {
          throw new BadRequestError('the request body is not valid JSON');
        }
        let change;
        try {
          change = parseMembershipWebhook(event, body);
        } catch (error) {
          if (error instanceof MembershipWebhookError) throw new BadRequestError(error.message);
          throw error;
        }
        await store.applyMembershipChange(change);
        response.writeHead(204, COMMON_HEADERS);
        response.end();
      },
    },
  };

  const answerError = (response: ServerResponse, pathname: string, error: unknown): void => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    if (error instanceof BadRequestError || error instanceof BodyIncompleteError || error instanceof QueryParameterError || error instanceof HistoryQueryError || error instanceof CursorError) {
      sendProblem(response, problem(400, error.message, pathname), COMMON_HEADERS);
    } else if (error instanceof BodyTooLargeError) {
      sendProblem(response, problem(413, error.message, pathname), { ...COMMON_HEADERS, connection: 'close' });
    } else if (error instanceof HistoryUnavailableError) {
      sendProblem(response, problem(503, error.message, pathname), { ...COMMON_HEADERS, 'retry-after': String(error.retryAfterSeconds) });
    } else if (error instanceof UpstreamUnavailableError) {
      // RFC 9110 §10.2.3: Retry-After in seconds.
      sendProblem(
        response,
        { ...problem(503, error.message, pathname), source: error.source, retry_after_seconds: error.retryAfterSeconds } satisfies UpstreamProblem,
        { ...COMMON_HEADERS, 'retry-after': String(error.retryAfterSeconds) },
      );
    } else {
      logger.error(`channel api: ${pathname} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      sendProblem(response, problem(500, 'the request could not be answered because of an internal error', pathname), COMMON_HEADERS);
    }
  };

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    const route = routes[pathname];
    if (route === undefined) {
      sendProblem(response, problem(404, `no resource at ${pathname}`, pathname), COMMON_HEADERS);
      return;
    }
    // HEAD is GET without a body (node:http leaves the body out by itself).
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const handle = method === 'GET' || method === 'POST' ? route[method] : undefined;
    if (handle === undefined) {
      const allowed = Object.keys(route).flatMap((name) => (name === 'GET' ? ['GET', 'HEAD'] : [name])).join(', ');
      sendProblem(response, problem(405, `${request.method ?? ''} is not allowed on ${pathname}; allowed: ${allowed}`, pathname), {
        ...COMMON_HEADERS,
        allow: allowed,
      });
      return;
    }
    const query = queryStart === -1 ? NO_QUERY : new URLSearchParams(url.slice(queryStart + 1));
    // A route may answer (or refuse) synchronously: what it throws is answered as what it rejects with.
    let handled: Promise<void> | undefined;
    try {
      handled = handle(request, response, query);
    } catch (error) {
      answerError(response, pathname, error);
      return;
    }
    handled?.catch((error: unknown) => answerError(response, pathname, error));
  };
  return Object.assign(handler, { paths: new Set(Object.keys(routes)) });
}
