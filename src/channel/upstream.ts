/**
 * What the snapshot store needs from an upstream platform: a named source that fetches one complete
 * snapshot, and the one error type every adapter throws when it cannot.
 */
import { z } from 'zod';
import { withDeadline } from '../lib/deadline.js';

/**
 * An amount in cents or a count, as the graph serves it: a GraphQL `Int` is a signed 32-bit integer
 * (GraphQL spec §3.5.1), so a larger value from an upstream (or a webhook) is malformed data, refused
 * with the document it came in, never served as an "Unexpected error".
 */
export const MAX_GRAPH_INT = 2_147_483_647;
export const graphCountSchema = z.number().int().nonnegative().max(MAX_GRAPH_INT);

export interface UpstreamSource<T> {
  /** Short, stable name used in logs, health and error messages (e.g. `membership`). */
  readonly name: string;
  /** Reads a complete snapshot from the upstream; rejects with UpstreamError. */
  fetch(signal?: AbortSignal): Promise<T>;
}

/**
 * An upstream failed or answered something we cannot use. The message says what went wrong and
 * where, never a token, key, cookie or URL with credentials in it.
 */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly source: string;
  /** The upstream's HTTP status, when it answered with an error status. */
  readonly status?: number;

  constructor(source: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(`${source}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.source = source;
    if (options.status !== undefined) this.status = options.status;
  }
}

/** How many schema issues an error message lists before it summarises the rest. */
const MAX_LISTED_ISSUES = 3;

/** zod issues as `path: message` (zod messages name the expected type, never the value). */
export function describeSchemaIssues(error: z.ZodError): string {
  const listed = error.issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/** Validates an upstream document, turning a mismatch into an UpstreamError naming `what`. */
export function parseUpstream<S extends z.ZodType>(source: string, what: string, schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UpstreamError(source, `malformed ${what}: ${describeSchemaIssues(result.error)}`);
  return result.data;
}

/** Parses a JSON body, turning invalid JSON into an UpstreamError naming `what`. */
export function parseUpstreamJson(source: string, what: string, body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new UpstreamError(source, `malformed ${what}: the body is not valid JSON`);
  }
}

/**
 * The deadline of every request to an upstream platform when none is configured (the service reads
 * UPSTREAM_TIMEOUT_MS): connect, headers and body.
 */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/**
 * Runs one upstream request (`exchange`: fetch and read the whole body) under `timeoutMs`, a
 * deadline that fires on every Node version (@channel-graph/oauth2/deadline). A request past its deadline, or
 * cut short by the caller's signal, rejects with an UpstreamError saying so.
 */
export function withUpstreamDeadline<T>(
  source: string,
  what: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  exchange: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return withDeadline(exchange, {
    timeoutMs,
    signal,
    timeoutError: () => new UpstreamError(source, `${what}: the request was aborted or timed out (no answer within ${timeoutMs} ms)`),
    abortError: (reason) => new UpstreamError(source, `${what}: the request was aborted or timed out (cancelled by the caller)`, { cause: reason }),
  });
}
