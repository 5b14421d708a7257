/**
 * The operator's endpoints: `GET /readyz` (200 or 503 with the reason; the mode either way) and `GET /metrics`
 * (Prometheus text exposition), the latter behind `Authorization: Bearer <METRICS_TOKEN>` when a
 * token is configured.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelApiComponents as components } from '@channel-graph/client/rest';
import { NO_COMPRESSION, writeNegotiated, type Compression } from '../lib/compression.js';
import { problem, sendProblem } from '../lib/problem.js';
import type { ChannelMetrics } from './metrics.js';
import type { ReadinessProbe } from './readiness.js';

export const OPERATIONS_PATHS = ['/readyz', '/metrics'] as const;

export interface OperationsEndpointsOptions {
  /** Where the data comes from, in every /readyz answer: a sandbox is never mistaken for a channel. */
  mode: components['schemas']['Mode'];
  metrics: ChannelMetrics;
  readiness: ReadinessProbe;
  /** METRICS_TOKEN; without it /metrics is open (bind it to a private interface or network then). */
  metricsToken?: string;
  /** How /metrics is compressed (the exposition is tens of KB); default never. /readyz's few bytes never are. */
  compression?: Compression;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const bytes = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(bytes) });
  response.end(bytes);
}

/** A request listener for OPERATIONS_PATHS that returns false (and does nothing) for any other path. */
export function createOperationsEndpoints(options: OperationsEndpointsOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  const { mode, metrics, readiness, compression = NO_COMPRESSION } = options;
  const metricsHeaders = ['content-type', metrics.registry.contentType, 'cache-control', 'no-store'];
  // Compared as SHA-256 digests in constant time: neither the token nor its length leaks through timing.
  const expected = options.metricsToken === undefined ? undefined : digest(`Bearer ${options.metricsToken}`);
  const authorized = (request: IncomingMessage): boolean => expected === undefined || timingSafeEqual(digest(request.headers.authorization ?? ''), expected);

  return (request, response) => {
    const url = request.url ?? '/';
    const pathname = url.split('?', 1)[0];
    if (pathname !== '/readyz' && pathname !== '/metrics') return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendProblem(response, problem(405, `${request.method ?? ''} is not allowed on ${pathname}; allowed: GET, HEAD`, pathname), { allow: 'GET, HEAD' });
      return true;
    }
    if (pathname === '/readyz') {
      const state = readiness.check();
      const body: components['schemas']['Ready'] | components['schemas']['NotReady'] = state.ready ? { status: 'ready', mode, ...(state.degraded.length > 0 && { degraded: state.degraded }) } : { status: 'not ready', mode, reason: state.reason };
      sendJson(response, state.ready ? 200 : 503, body);
      return true;
    }
    if (!authorized(request)) {
      sendProblem(response, problem(401, 'the metrics need the header Authorization: Bearer <METRICS_TOKEN>', pathname), { 'www-authenticate': 'Bearer realm="metrics"' });
      return true;
    }
    metrics.registry.metrics().then(
      (text) => writeNegotiated(request, response, compression, 200, metricsHeaders, Buffer.from(text), metrics.registry.contentType),
      (error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      },
    );
    return true;
  };
}
