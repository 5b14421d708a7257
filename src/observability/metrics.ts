/**
 * The service's Prometheus metrics (prom-client), in a registry of their own per app instance, so
 * several apps in one process (tests) keep separate counts; only node's process metrics are shared,
 * as the process is. Every label takes values from a bounded set: routes and sources are fixed
 * lists, GraphQL operation names are capped. What every
 * request counts (requests, operations, response-cache lookups) goes to prom-client children kept
 * per label set (bounded-labels.ts): a child is made once per label set, not per request.
 */
import { collectDefaultMetrics, Counter, type CounterConfiguration, Gauge, Histogram, type HistogramConfiguration, Registry } from 'prom-client';
import type { ChannelApiComponents as components } from '@channel-graph/client/rest';
import type { SourceHealth, SourceName } from '../channel/snapshot-store.js';
import { boundedLabels, type BoundedLabels } from './bounded-labels.js';

/** Seconds; from a cached answer (sub-millisecond) to an upstream deadline. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Distinct GraphQL operation names counted by name; later names are counted as OTHER_OPERATION. */
export const MAX_OPERATION_NAMES = 100;
const MAX_OPERATION_NAME_LENGTH = 64;
export const ANONYMOUS_OPERATION = '(anonymous)';
export const OTHER_OPERATION = '(other)';

export type Outcome = 'ok' | 'error';

type OperationLabel = 'operation' | 'type' | 'outcome';

/** The transports of the live events: GET /events, GraphQL over SSE, GraphQL over WebSocket. */
export type EventTransport = 'events' | 'graphql-sse' | 'graphql-ws';

export interface ChannelMetrics {
  readonly registry: Registry;
  /**
   * Answered requests by method, route and status, with their durations. Its `_count` series is the
   * number of requests: no separate counter (a duplicate series per label set, and one more label
   * hash per request).
   */
  readonly httpDuration: BoundedLabels<'method' | 'route' | 'status', Histogram.Internal<'method' | 'route' | 'status'>>;
  readonly graphqlOperations: BoundedLabels<OperationLabel, Counter.Internal>;
  readonly graphqlDuration: BoundedLabels<OperationLabel, Histogram.Internal<OperationLabel>>;
  readonly upstreamCalls: Counter<'source' | 'outcome'>;
  readonly upstreamDuration: Histogram<'source' | 'outcome'>;
  /** Records of an upstream answer skipped because they could not be read, by source and reason (SKIP_REASONS). */
  readonly upstreamRecordsSkipped: Counter<'source' | 'reason'>;
  readonly tokenRefreshes: Counter<'outcome'>;
  readonly responseCacheLookups: BoundedLabels<'result', Counter.Internal>;
  /** Bodies compressed, by coding and effort (src/lib/compression.ts): what compression costs in CPU is this count's. */
  readonly compressions: BoundedLabels<'coding' | 'effort', Counter.Internal>;
  /** Notification deliveries by this process, by destination (its names are notifications.json's: a bounded set). */
  readonly notifications: Record<'delivered' | 'retried' | 'dead', Counter<'destination'>>;
  /** The label of an operation name: the name itself while fewer than MAX_OPERATION_NAMES are known. */
  operationLabel(name: string | null | undefined): string;
}

export interface CreateMetricsOptions {
  /** Where the data comes from: `channel_graph_mode{mode="…"} 1` (an alert on `mode="sandbox"` catches a deployment without credentials). */
  mode: components['schemas']['Mode'];
  /** The snapshot health to report (age, staleness) at every scrape. */
  snapshots: () => Record<SourceName, SourceHealth>;
  /** The open event streams per transport (a WebSocket connection counts once, whatever it subscribes to). */
  eventSubscribers?: () => Record<EventTransport, number>;
  /** Node process metrics (CPU, memory, event loop lag, GC: the process's, shared by its apps); default true. */
  processMetrics?: boolean;
  /** The notifications' outbox: its destinations, and its pending and dead deliveries per destination (read at every scrape). */
  notificationOutbox?: {
    destinations: readonly string[];
    counts(): Promise<ReadonlyArray<{ destination: string; state: 'pending' | 'dead'; count: number }>>;
  };
}

/** A prom-client Histogram, its children kept per label set. */
function histogramLabels<L extends string>(configuration: HistogramConfiguration<L> & { labelNames: readonly L[] }): BoundedLabels<L, Histogram.Internal<L>> {
  return boundedLabels(new Histogram(configuration), configuration.labelNames);
}

/** A prom-client Counter, its children kept per label set. */
function counterLabels<L extends string>(configuration: CounterConfiguration<L> & { labelNames: readonly L[] }): BoundedLabels<L, Counter.Internal> {
  return boundedLabels(new Counter(configuration), configuration.labelNames);
}

/**
 * Node's process metrics (CPU, memory, event-loop lag, GC), in one registry per process, made on
 * first use. prom-client's collectors never stop (each call starts an event-loop delay monitor
 * sampling every 10 ms and a GC observer), so a registry of them per app kept one more of each
 * running for every app a process made (an embedder, a test run). They describe the process, which
 * its apps share.
 */
let processRegistry: Registry | undefined;
function processMetricsRegistry(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(options: CreateMetricsOptions): ChannelMetrics {
  const registry = new Registry();
  const registers = [registry];
  const { snapshots } = options;
  new Gauge({ name: 'channel_graph_mode', help: 'Where the data comes from: 1 for the mode of this process (live, or sandbox: made-up test data)', labelNames: ['mode'], registers }).set(
    { mode: options.mode },
    1,
  );
  new Gauge({
    name: 'channel_snapshot_age_seconds',
    help: 'Age of the snapshot served for each source (absent while a source has none)',
    labelNames: ['source'],
    registers,
    collect() {
      this.reset();
      for (const [source, health] of Object.entries(snapshots())) if (health.ageSeconds !== null) this.set({ source }, health.ageSeconds);
    },
  });
  new Gauge({
    name: 'channel_snapshot_stale',
    help: '1 when the last refresh of the source failed and an older snapshot is served',
    labelNames: ['source'],
    registers,
    collect() {
      for (const [source, health] of Object.entries(snapshots())) this.set({ source }, health.stale ? 1 : 0);
    },
  });

  const { eventSubscribers } = options;
  if (eventSubscribers !== undefined) {
    new Gauge({
      name: 'channel_event_subscribers',
      help: 'Open live-event streams, by transport (events: GET /events; graphql-sse: streamed answers of /graphql; graphql-ws: WebSocket connections)',
      labelNames: ['transport'],
      registers,
      collect() {
        for (const [transport, open] of Object.entries(eventSubscribers())) this.set({ transport }, open);
      },
    });
  }

  const { notificationOutbox } = options;
  if (notificationOutbox !== undefined) {
    // Both read in one query per scrape; while the database cannot answer, the last figures stay.
    let counts: Promise<ReadonlyArray<{ destination: string; state: 'pending' | 'dead'; count: number }>> | undefined;
    const read = async (state: 'pending' | 'dead', gauge: Gauge<'destination'>): Promise<void> => {
      counts ??= notificationOutbox.counts().finally(() => setImmediate(() => (counts = undefined)));
      const rows = await counts.catch(() => undefined);
      if (rows === undefined) return;
      for (const destination of notificationOutbox.destinations) gauge.set({ destination }, rows.find((row) => row.destination === destination && row.state === state)?.count ?? 0);
    };
    new Gauge({
      name: 'channel_notifications_pending',
      help: 'Notification deliveries waiting to be sent or retried, by destination (the outbox\'s: every replica reports the same)',
      labelNames: ['destination'],
      registers,
      collect() {
        return read('pending', this);
      },
    });
    new Gauge({
      name: 'channel_notifications_dead',
      help: 'Notification deliveries in the dead letters (every retry failed), by destination, until replayed or removed after 30 days',
      labelNames: ['destination'],
      registers,
      collect() {
        return read('dead', this);
      },
    });
  }

  const knownOperations = new Set<string>();
  const metrics: Omit<ChannelMetrics, 'registry'> = {
    httpDuration: histogramLabels({
      name: 'http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by method, route and status (_count: requests answered)',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    graphqlOperations: counterLabels({
      name: 'graphql_operations_total',
      help: 'GraphQL operations executed, by operation name, type and outcome (error: the result has errors)',
      labelNames: ['operation', 'type', 'outcome'],
      registers,
    }),
    graphqlDuration: histogramLabels({
      name: 'graphql_operation_duration_seconds',
      help: 'Execution time of GraphQL operations',
      labelNames: ['operation', 'type', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    upstreamCalls: new Counter({ name: 'upstream_fetches_total', help: 'Snapshot fetches from the upstream platforms, by source and outcome', labelNames: ['source', 'outcome'], registers }),
    upstreamDuration: new Histogram({
      name: 'upstream_fetch_duration_seconds',
      help: 'Duration of snapshot fetches from the upstream platforms (every page and request of one snapshot)',
      labelNames: ['source', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    upstreamRecordsSkipped: new Counter({
      name: 'channel_upstream_records_skipped_total',
      help: 'Records of upstream answers skipped because they could not be read (the rest of the list is served), by source and reason (malformed, incomplete, unlisted_tier)',
      labelNames: ['source', 'reason'],
      registers,
    }),
    tokenRefreshes: new Counter({ name: 'oauth_token_refreshes_total', help: 'Membership token refreshes, by outcome', labelNames: ['outcome'], registers }),
    responseCacheLookups: counterLabels({ name: 'graphql_response_cache_lookups_total', help: 'Response cache lookups, by result (hit or miss)', labelNames: ['result'], registers }),
    compressions: counterLabels({
      name: 'http_response_compressions_total',
      help: 'Response bodies compressed, by content coding and effort (kept: a body answered many times, compressed once per coding; answer: compressed for one request)',
      labelNames: ['coding', 'effort'],
      registers,
    }),
    notifications: {
      delivered: new Counter({ name: 'channel_notifications_delivered_total', help: 'Notification deliveries this process sent and the receiver took (2xx), by destination', labelNames: ['destination'], registers }),
      retried: new Counter({ name: 'channel_notifications_retried_total', help: 'Notification attempts of this process that failed and will be tried again, by destination', labelNames: ['destination'], registers }),
      dead: new Counter({ name: 'channel_notifications_dead_letters_total', help: 'Notification deliveries this process put in the dead letters after their last retry, by destination', labelNames: ['destination'], registers }),
    },
    operationLabel(name) {
      if (name === null || name === undefined || name === '') return ANONYMOUS_OPERATION;
      if (knownOperations.has(name)) return name;
      if (knownOperations.size >= MAX_OPERATION_NAMES || name.length > MAX_OPERATION_NAME_LENGTH) return OTHER_OPERATION;
      knownOperations.add(name);
      return name;
    },
  };
  // Merged once every metric of the app is registered (a merge takes the metrics registered by then).
  return { ...metrics, registry: (options.processMetrics ?? true) ? Registry.merge([registry, processMetricsRegistry()]) : registry };
}
