/**
 * The whole service as a factory: snapshot store over the two platforms, the REST API of
 * openapi/channel-api.yaml and the channel graph at /graphql, on one node:http server. In sandbox
 * mode (no membership credentials) the platform emulator runs in-process and supplies them.
 */
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import { join } from 'node:path';
import { createMembershipSource } from './channel/membership.js';
import { createMembershipKeeper, createMembershipOAuthClient } from './channel/membership-oauth.js';
import { SnapshotStore } from './channel/snapshot-store.js';
import { ChannelEventLog } from './channel/supporter-events.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './channel/upstream.js';
import { createVideoMembersSource, createVideoStatsSource } from './channel/video.js';
import {
  DEFAULT_EVENTS_SETTINGS, DEFAULT_HTTP_SERVER_SETTINGS, DEFAULT_SHUTDOWN_TIMEOUT_MS, type ChannelConfig, type HttpServerSettings, type MembershipSettings, type VideoSettings,
} from './config.js';
import { createChannelGraph } from './graphql/channel-graph.js';
import { CODEGEN_PERSISTED_DOCUMENTS } from './graphql/plugins/trusted-documents.js';
import { createGraphStreamLimit } from './graphql/streams/streamed-responses.js';
import { createGraphWebSocketServer } from './graphql/streams/websocket.js';
import { createDashboardHandler } from './http/dashboard.js';
import { createEventStreamHandler } from './http/event-stream.js';
import { createOverlayHandler } from './http/overlay.js';
import { createRestHandler } from './http/rest-handler.js';
import { answerClientErrors } from './lib/client-error.js';
import { createCompression, type ContentCoding, type CompressionEffort } from './lib/compression.js';
import { listen, type Listening } from './lib/listen.js';
import { createOperationsEndpoints, OPERATIONS_PATHS } from './observability/endpoints.js';
import { useExecutionSpans, useOperationMetrics } from './observability/graphql.js';
import { observeRequests } from './observability/http.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { createReadinessProbe } from './observability/readiness.js';
import { channelTracer } from './observability/tracing.js';
import { observeSource, observeTokenRefresh } from './observability/upstream.js';
import { debugEnabled } from '@channel-graph/oauth2';
import type { RunningSandbox, SandboxOptions } from './sandbox/index.js';
import { createSharedState } from './shared-state.js';
import { createChannelHistory, type ChannelHistory } from './history/history-service.js';
import { createNotifications, type Notifications } from './notifications/notifications.js';
import type { ChannelGraphStore } from './graphql/schema/context.js';

export interface ChannelAppOptions {
  /** The service's log; default a pino logger on stdout at `config.logLevel`. */
  logger?: Logger;
  /** /readyz reports ready after this long even if a source has no snapshot yet (default DEFAULT_COLD_START_DEADLINE_MS). */
  coldStartDeadlineMs?: number;
  /** Options of the in-process sandbox (sandbox mode only): dataset size, token lifetime… */
  sandbox?: SandboxOptions;
}

export interface ChannelApp {
  /** Base URL the server listens on, e.g. http://127.0.0.1:4000. */
  url: string;
  store: SnapshotStore;
  /** The channel over time: its database, recorder (with hooks in each recording's transaction) and reads; undefined with `history: false`. */
  history?: ChannelHistory;
  /** The notifications (notifications.json): their outbox in the history's database, its worker and the deliveries view; undefined without history. */
  notifications?: Notifications;
  /** The live events (GET /events, GraphQL subscriptions): every snapshot change as events. */
  events: ChannelEventLog;
  /** The in-process platform emulator (sandbox mode only). */
  sandbox?: RunningSandbox;
  /**
   * Stops in this order: the event streams end (GET /events, subscriptions, WebSockets), no new connection, requests in flight finish (those still running after
   * half the shutdown timeout, at most 5 s, are cut), a membership token refresh in flight is
   * answered and its token saved, the snapshot writes reach the disk, the last recording is stored,
   * the notifications due are sent (until 80% of the shutdown timeout; the rest after the next
   * start), the database, the upstream connections, the Redis connections (REDIS_URL) and the sandbox close. Rejects with ShutdownTimeoutError, naming the step it was waiting for, when
   * that takes longer than `shutdownTimeoutMs`. Every call returns the same promise.
   */
  close(): Promise<void>;
  /** Prometheus text of the app's metrics (what GET /metrics answers). */
  metrics(): Promise<string>;
  /**
   * Development mode only: serves the SDL under schema/ as it is now, without a restart (the store,
   * the sandbox and open subscriptions stay); throws, and the served schema stays, when it does not build.
   */
  reloadSchema?: () => 'swapped' | 'unchanged';
}

/** `close()` did not finish within the shutdown timeout. */
export class ShutdownTimeoutError extends Error {
  override readonly name = 'ShutdownTimeoutError';
}

export { MEMBERSHIP_TOKEN_FILE } from './channel/membership-oauth.js';

/**
 * The notifications drain until this share of the shutdown timeout has passed since close() began:
 * the rest is for closing the database, the upstream and Redis connections and the sandbox.
 */
const NOTIFICATIONS_DRAIN_SHARE = 0.8;
/** How long close() lets requests in flight finish before cutting their connections (at most). */
const CLOSE_GRACE_MS = 5_000;
/** A client may send this many header lines (Node's default, 2,000, is far more than any client needs). */
const MAX_HEADERS_COUNT = 100;
/**
 * How often node:http checks headersTimeout and requestTimeout. Its default, 30 s, would let a slow
 * client stay up to 30 s past them.
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** `/graphql`, `/graphql?…` and `/graphql/…` (persisted documents manifest) belong to yoga. */
function isGraphRequest(request: IncomingMessage): boolean {
  const url = request.url ?? '/';
  return url.startsWith('/graphql') && (url.length === 8 || url[8] === '?' || url[8] === '/');
}

/** The upstream settings that point both platforms at a running sandbox with its test credentials. */
export function sandboxUpstream(sandbox: RunningSandbox): { membership: MembershipSettings; video: VideoSettings } {
  const { credentials } = sandbox;
  return {
    membership: {
      apiBase: sandbox.url,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      accessToken: credentials.accessToken,
      refreshToken: credentials.refreshToken,
      campaignId: credentials.campaignId,
      webhookSecret: credentials.webhookSecret,
    },
    video: { apiBase: sandbox.url, members: credentials.members },
  };
}

export async function createChannelApp(config: ChannelConfig, options: ChannelAppOptions = {}): Promise<ChannelApp> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const tracer = channelTracer();
  const { mode } = config.upstream;
  const notificationDestinations = config.notifications?.destinations.map((destination) => destination.name) ?? [];
  // Read at every scrape; the store and the event transports exist by the time anything scrapes.
  const metrics = createMetrics({
    mode,
    snapshots: () => store.health(),
    eventSubscribers: () => ({ events: eventStream.openStreams, 'graphql-sse': graphStreams.openStreams, 'graphql-ws': graphSockets.openConnections }),
    ...(notificationDestinations.length > 0 && { notificationOutbox: { destinations: notificationDestinations, counts: async () => notifications?.outbox.counts() ?? [] } }),
  });
  const observer = { logger: logger.child({ component: 'upstream' }), metrics, tracer };
  // The emulator is loaded only in sandbox mode: a live deployment does not carry its code.
  const sandbox = config.upstream.mode === 'sandbox' ? await (await import('./sandbox/index.js')).startSandbox(options.sandbox) : undefined;
  const upstream = sandbox !== undefined ? sandboxUpstream(sandbox) : (config.upstream as Exclude<ChannelConfig['upstream'], { mode: 'sandbox' }>);
  // Sandbox data never shares a directory with real data, so switching to live mode never serves it;
  // the sandbox's tokens die with it, so they are not persisted.
  const dataDir = sandbox !== undefined ? join(config.dataDir, 'sandbox') : config.dataDir;
  const upstreamTimeoutMs = config.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const eventSettings = { ...DEFAULT_EVENTS_SETTINGS, ...config.events };
  // Files under DATA_DIR, or Redis when REDIS_URL is set: decided there, and nowhere else.
  const shared = await createSharedState(config, {
    dataDir,
    sandbox: sandbox !== undefined,
    tokenEndpointDeadlineMs: upstreamTimeoutMs,
    eventsLogSize: eventSettings.logSize,
    logger: logger.child({ component: 'shared-state' }),
  });

  const shutdownTimeoutMs = config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const http: HttpServerSettings = { ...DEFAULT_HTTP_SERVER_SETTINGS, ...config.http };

  // The OAuth2 client's `connection.timeout` is the deadline of the token endpoint and of the membership API.
  // OAUTH_DEBUG=true: the client's debug lines (already redacted by @channel-graph/oauth2) at debug level.
  const oauthLogger = logger.child({ component: 'oauth2' }, debugEnabled() ? { level: 'debug' } : {});
  const membershipClient = createMembershipOAuthClient(upstream.membership, { connection: { timeout: upstreamTimeoutMs }, logger: oauthLogger });
  const keeper = createMembershipKeeper(membershipClient, upstream.membership, shared.tokenStore, { onRefresh: observeTokenRefresh({ logger: oauthLogger, metrics }) });
  const video = { ...upstream.video, requestTimeoutMs: upstreamTimeoutMs };
  const storeLogger = logger.child({ component: 'snapshot-store' });
  const store = new SnapshotStore({
    sources: {
      membership: observeSource(createMembershipSource({ apiBase: upstream.membership.apiBase, campaignId: upstream.membership.campaignId, keeper }), observer),
      video: observeSource(createVideoMembersSource(video), observer),
      stats: observeSource(createVideoStatsSource(video), observer),
    },
    ...shared.snapshots,
    refreshIntervalMs: config.refreshIntervalSeconds * 1000,
    logger: storeLogger,
  });
  // Not when a refresh brought the same data again (only `fetchedAt` moved): that is every interval.
  store.onChange((source, _written, change) => {
    if (change.content || change.staleness) storeLogger.info({ source, ...store.health()[source] }, 'snapshot changed');
  });
  const readiness = createReadinessProbe(() => store.health(), options.coldStartDeadlineMs, () => {
    if (history === undefined) return [];
    // Opening (PGlite's first start takes seconds) is not a fault; unreachable, or an open that failed, is.
    const health = history.health();
    return health.state === 'open' || health.lastError === null ? [] : [`history: the database is ${health.state === 'opening' ? 'not open' : health.state} (${health.lastError}); the current data is served`];
  });
  await store.start();
  const events = new ChannelEventLog({ store, journal: shared.events, maxEntries: eventSettings.logSize, logger: logger.child({ component: 'events' }) });
  // The database opens now, beside the first refresh (already under way): the service answers from
  // its snapshots meanwhile. Sandbox data keeps its history apart, under DATA_DIR/sandbox.
  const history = config.history === false ? undefined : createChannelHistory({
    store,
    events,
    databaseUrl: config.databaseUrl,
    dataDir: join(dataDir, 'database'),
    goals: config.goals,
    logger: logger.child({ component: 'history' }),
  });
  // Its outbox is filled in each recording's transaction; its worker starts once the database is open.
  const notifications = history === undefined ? undefined : createNotifications({
    config: config.notifications,
    allowLoopback: config.notificationsAllowLoopback ?? false,
    history,
    logger: logger.child({ component: 'notifications' }),
    observer: {
      delivered: (destination) => metrics.notifications.delivered.inc({ destination }),
      retried: (destination) => metrics.notifications.retried.inc({ destination }),
      dead: (destination) => metrics.notifications.dead.inc({ destination }),
    },
  });
  // Every destination's series from the start, at 0: an alert on a rate needs the series to exist.
  for (const destination of notificationDestinations) for (const counter of Object.values(metrics.notifications)) counter.inc({ destination }, 0);
  const eventStream = createEventStreamHandler({ events, maxStreams: eventSettings.maxStreams, headers: { 'access-control-allow-origin': '*' } });

  // Each result's series appears with its first lookup (as prom-client's would).
  const cacheLookups: Partial<Record<'hit' | 'miss', { inc(): void }>> = {};
  const compressions: Partial<Record<`${ContentCoding}:${CompressionEffort}`, { inc(): void }>> = {};
  // COMPRESSION=false: every answer in identity (a proxy in front compresses).
  const compression = createCompression({
    enabled: config.compression ?? true,
    onCompressed: (coding, effort) => (compressions[`${coding}:${effort}`] ??= metrics.compressions.labels({ coding, effort })).inc(),
  });
  const rest = createRestHandler({
    store, ...(history === undefined ? {} : { history }), mode, webhookSecret: upstream.membership.webhookSecret, logger: logger.child({ component: 'rest' }), eventStream, redisHealth: shared.redisHealth, compression,
    ...(notifications === undefined ? {} : { notifications: { notifications, replayToken: config.notificationsReplayToken } }),
  });
  const graph = createChannelGraph({
    store: history === undefined ? store : historyAwareStore(store, history),
    events,
    ...(history === undefined ? {} : { history }),
    ...(notifications === undefined ? {} : { notifications }),
    settings: config.graph,
    reloadableSchema: config.graph.development,
    compression,
    logger: logger.child({ component: 'graphql' }),
    plugins: [useOperationMetrics(metrics, tracer), ...(tracer === undefined ? [] : [useExecutionSpans(tracer)])],
    onResponseCacheLookup: (hit) => {
      const result = hit ? 'hit' : 'miss';
      (cacheLookups[result] ??= metrics.responseCacheLookups.labels({ result })).inc();
    },
  });
  const graphSockets = createGraphWebSocketServer({
    graph: graph.yoga, settings: config.graph, persistedDocuments: CODEGEN_PERSISTED_DOCUMENTS, maxConnections: eventSettings.maxStreams,
  });
  // Subscriptions over SSE (and multipart) on /graphql: bounded like GET /events and the WebSockets.
  const graphStreams = createGraphStreamLimit(eventSettings.maxStreams);
  const graphListener = graphStreams.wrap((request, response) => graph.requestListener(request, response));
  const operations = createOperationsEndpoints({ mode, metrics, readiness, compression, ...(config.metricsToken === undefined ? {} : { metricsToken: config.metricsToken }) });
  const overlay = createOverlayHandler({ compression });
  // Development by default; production only with DASHBOARD=true. It reads this service's own graph.
  let selfUrl = '';
  const dashboard = config.dashboard === true ? createDashboardHandler({ graphUrl: () => `${selfUrl}/graphql`, compression }) : undefined;
  const knownPaths = new Set<string>([...rest.paths, ...OPERATIONS_PATHS, ...overlay.paths, ...(dashboard?.paths ?? [])]);
  const routeOf = (request: IncomingMessage): string => {
    if (isGraphRequest(request)) return '/graphql';
    const url = request.url ?? '/';
    // indexOf and slice: split went to V8's runtime on every request (~250 instructions, callgrind).
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    return knownPaths.has(pathname) ? pathname : '(unmatched)';
  };
  const handle: RequestListener = (request, response) => {
    if (isGraphRequest(request)) graphListener(request, response);
    else if (!operations(request, response) && !overlay(request, response) && dashboard?.(request, response) !== true) rest(request, response);
  };
  const server = createServer(
    // The request-head limit lets a GET carry a document of the graph's maximum size.
    {
      maxHeaderSize: graph.maxHeaderBytes,
      headersTimeout: http.headersTimeoutMs, requestTimeout: http.requestTimeoutMs, connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
    observeRequests(handle, { logger: logger.child({ component: 'http' }), metrics, tracer, routeOf }),
  );
  // A request node:http cannot parse gets a body that says what was wrong, not a bare status line.
  answerClientErrors(server);
  // graphql-ws on /graphql; no other path upgrades.
  server.on('upgrade', (request, socket, head) => {
    if (isGraphRequest(request)) graphSockets.handleUpgrade(request, socket, head);
    else socket.destroy();
  });
  server.keepAliveTimeout = http.keepAliveTimeoutMs;
  server.maxHeadersCount = MAX_HEADERS_COUNT;
  // No connection stays silent longer (a client that stops reading its answer is cut off), except
  // while a cold read waits for an upstream, which its deadline ends.
  server.timeout = Math.max(http.requestTimeoutMs, upstreamTimeoutMs + 1_000);
  // Requests in flight get at most half the shutdown budget: the rest is for the token refresh and the saves.
  const graceMs = Math.min(CLOSE_GRACE_MS, shutdownTimeoutMs / 2);
  let listening: Listening;
  try {
    listening = await listen(server, { port: config.port, host: config.host, closeGraceMs: graceMs });
  } catch (error) {
    events.close();
    await Promise.all([graphSockets.close(), store.close(), graph.dispose(), sandbox?.close()]);
    await history?.recorder.close();
    await notifications?.close(0);
    await history?.close();
    await shared.close();
    throw error;
  }

  selfUrl = listening.url;
  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    store,
    ...(history === undefined ? {} : { history }),
    ...(notifications === undefined ? {} : { notifications }),
    events,
    ...(sandbox === undefined ? {} : { sandbox }),
    metrics: () => metrics.registry.metrics(),
    ...(graph.reloadSchema !== undefined && { reloadSchema: graph.reloadSchema }),
    close() {
      // Load balancers stop sending traffic as soon as /readyz says so, while requests in flight finish.
      readiness.stop();
      const closeStartedAt = Date.now();
      closing ??= runWithin(shutdownTimeoutMs, [
        [
          'the event streams',
          () => {
            // Closing the log completes every subscription and ends every GET /events response.
            eventStream.close();
            graphStreams.close();
            events.close();
            return graphSockets.close();
          },
        ],
        ['the requests in flight', () => listening.close()],
        ['the GraphQL handler', () => graph.dispose()],
        [
          'the membership token refresh in flight and its save',
          () => {
            if (keeper.refreshInFlight) oauthLogger.info('closing: waiting for the membership token refresh in flight and its save');
            return keeper.drain();
          },
        ],
        ['the snapshot writes', () => store.close()],
        // After the snapshot writes: the last of them is recorded (or rolled back), and no event is added after.
        ['the recording', async () => history?.recorder.close()],
        // What is due is sent until the drain's share of the shutdown timeout is spent; the rest after the next start.
        ['the notifications', async () => notifications?.close(Math.max(0, closeStartedAt + shutdownTimeoutMs * NOTIFICATIONS_DRAIN_SHARE - Date.now()))],
        ['the history', async () => history?.close()],
        ['the upstream connections', () => keeper.client.close()],
        // After the keeper's drain and the snapshot writes: both may still write to Redis.
        ['the Redis connections', () => shared.close()],
        ['the sandbox', async () => sandbox?.close()],
      ]);
      return closing;
    },
  };
}

/**
 * The store as the graph sees it: a recording committed counts as a change too, so that what the
 * graph keeps per snapshot (the response cache) is dropped once the history has more to say.
 */
function historyAwareStore(store: SnapshotStore, history: ChannelHistory): ChannelGraphStore {
  return {
    read: (source) => store.read(source),
    current: (source) => store.current(source),
    onChange(listener) {
      const fromStore = store.onChange(listener);
      const fromHistory = history.recorder.onRecorded((recorded) => listener(recorded.source, undefined, { content: false, staleness: false }));
      return () => {
        fromStore();
        fromHistory();
      };
    },
  };
}

/** Runs the steps one after another; rejects with ShutdownTimeoutError naming the step still running after `timeoutMs`. */
async function runWithin(timeoutMs: number, steps: ReadonlyArray<readonly [name: string, run: () => Promise<unknown>]>): Promise<void> {
  let current = steps[0]?.[0] ?? '';
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ShutdownTimeoutError(`shutdown did not finish within ${timeoutMs} ms (still waiting for ${current})`)), timeoutMs);
  });
  const sequence = (async () => {
    for (const [name, run] of steps) {
      current = name;
      await run();
    }
  })();
  try {
    await Promise.race([sequence, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
