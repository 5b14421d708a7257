/**
 * Upstream fetches and token refreshes, observed: one log line, metrics and (for fetches) a client
 * span each. A fetch's line carries its source, outcome, upstream status (of a failure), duration and
 * `retry`: how many fetches of the source failed in a row just before it (0: not a retry), so an
 * operator sees a source that keeps failing without correlating lines. The records a fetch skipped
 * are counted by reason and logged in one more line per fetch, with their ids and reasons. A
 * refresh's line carries its outcome and duration, never a token.
 */
import { SpanKind, type Tracer } from '@opentelemetry/api';
import { UpstreamError, type ReadReport, type SkippedRecord, type UpstreamSource } from '../channel/upstream.js';
import type { RefreshReport } from '@channel-graph/oauth2';
import type { Logger } from './logger.js';
import type { ChannelMetrics } from './metrics.js';
import { withSpan } from './tracing.js';

export interface UpstreamObserverOptions {
  logger: Logger;
  metrics: ChannelMetrics;
  tracer: Tracer | undefined;
}

const milliseconds = (started: number): number => Math.round((performance.now() - started) * 10) / 10;

/** How many skipped records a fetch's log line names; the rest are counted. */
export const LOGGED_SKIPPED_RECORDS = 20;

/** Counts each skipped record at once and keeps the first ones for the fetch's log line. */
function skipReport(source: string, metrics: ChannelMetrics): ReadReport & { readonly count: number; readonly first: SkippedRecord[] } {
  const first: SkippedRecord[] = [];
  let count = 0;
  return {
    get count() {
      return count;
    },
    first,
    skipped(record) {
      count += 1;
      metrics.upstreamRecordsSkipped.inc({ source, reason: record.reason });
      if (first.length < LOGGED_SKIPPED_RECORDS) first.push(record);
    },
  };
}

/** The same source, its every fetch (all the requests of one snapshot) logged, counted and traced. */
export function observeSource<T>(source: UpstreamSource<T>, options: UpstreamObserverOptions): UpstreamSource<T> {
  const { logger, metrics, tracer } = options;
  let failedInARow = 0;
  return {
    name: source.name,
    fetch: (signal) =>
      withSpan(tracer, `upstream ${source.name}`, { kind: SpanKind.CLIENT, attributes: { 'channel.source': source.name } }, async () => {
        const started = performance.now();
        const retry = failedInARow;
        const skipped = skipReport(source.name, metrics);
        try {
          const snapshot = await source.fetch(signal, skipped);
          const durationMs = milliseconds(started);
          metrics.upstreamCalls.inc({ source: source.name, outcome: 'ok' });
          metrics.upstreamDuration.observe({ source: source.name, outcome: 'ok' }, durationMs / 1000);
          failedInARow = 0;
          logger.info({ source: source.name, outcome: 'ok', durationMs, retry }, 'upstream fetch');
          return snapshot;
        } catch (error) {
          const durationMs = milliseconds(started);
          metrics.upstreamCalls.inc({ source: source.name, outcome: 'error' });
          metrics.upstreamDuration.observe({ source: source.name, outcome: 'error' }, durationMs / 1000);
          // UpstreamError messages never hold a token, key, cookie or URL with credentials (upstream.ts).
          const status = error instanceof UpstreamError ? error.status : undefined;
          failedInARow = retry + 1;
          logger.warn({ source: source.name, outcome: 'error', ...(status === undefined ? {} : { status }), durationMs, retry, error: (error as Error).message }, 'upstream fetch');
          throw error;
        } finally {
          if (skipped.count > 0) logger.warn({ source: source.name, skipped: skipped.count, records: skipped.first }, 'upstream records skipped');
        }
      }),
  };
}

/** TokenKeeper's `onRefresh`: logs and counts the outcome. */
export function observeTokenRefresh(options: Pick<UpstreamObserverOptions, 'logger' | 'metrics'>): (report: RefreshReport) => void {
  const { logger, metrics } = options;
  return ({ ok, durationMs, error }) => {
    metrics.tokenRefreshes.inc({ outcome: ok ? 'ok' : 'error' });
    if (ok) logger.info({ outcome: 'ok', durationMs }, 'token refresh');
    // The error's name and message only: OAuth2Error's message is built from the error code and description.
    else logger.warn({ outcome: 'error', durationMs, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }, 'token refresh');
  };
}
