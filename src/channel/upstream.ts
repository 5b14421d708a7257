/**
 * What the snapshot store needs from an upstream platform: a named source that fetches one complete
 * snapshot, the one error type every adapter throws when it cannot, and how an adapter reports the
 * records it could not read (skipped, never a lost list).
 */
import { withDeadline } from '../lib/deadline.js';

/**
 * An amount in cents or a count, as the graph serves it: a GraphQL `Int` is a signed 32-bit integer
 * (GraphQL spec §3.5.1), so a larger value from an upstream (or a webhook) is malformed data, refused
 * with the record it came in, never served as an "Unexpected error".
 */
export const MAX_GRAPH_INT = 2_147_483_647;

/** A non-negative integer from a JSON number or a decimal string (int64 in protobuf's JSON); null when it is not a safe one. */
export function safeCount(value: number | string): number | null {
  const count = typeof value === 'string' ? Number(value) : value;
  return Number.isSafeInteger(count) && count >= 0 ? count : null;
}

/** A count as the graph serves it (safeCount, up to MAX_GRAPH_INT); null otherwise. */
export function graphCount(value: number | string): number | null {
  const count = safeCount(value);
  return count !== null && count <= MAX_GRAPH_INT ? count : null;
}

/**
 * Why a record was skipped; a bounded set (the `reason` label of
 * channel_upstream_records_skipped_total). `malformed`: it does not match its schema in the
 * upstream's contract, or a value is out of range; `incomplete`: it matches, but lacks what a
 * supporter needs (an active patron without an amount or a start date); `unlisted_tier`: it is at a
 * tier the platform did not list.
 */
export type SkipReason = 'malformed' | 'incomplete' | 'unlisted_tier';
export const SKIP_REASONS: readonly SkipReason[] = ['malformed', 'incomplete', 'unlisted_tier'];

/** One record of an upstream answer that could not be read, and why (never the record's values). */
export interface SkippedRecord {
  /** The record's id on the platform, e.g. `member 03ca69c3-…`, `tier 54321`. */
  id: string;
  reason: SkipReason;
  /** Where it does not match, e.g. `/attributes/currently_entitled_amount_cents: must be integer,null`. */
  detail: string;
}

/** What a fetch tells its caller besides the snapshot: each record it skipped. */
export interface ReadReport {
  skipped(record: SkippedRecord): void;
}

export interface UpstreamSource<T> {
  /** Short, stable name used in logs, health and error messages (e.g. `membership`). */
  readonly name: string;
  /**
   * Reads a complete snapshot from the upstream; rejects with UpstreamError (IncompleteReadError
   * when it stopped before the end). A record it cannot read is skipped and told to `report`.
   */
  fetch(signal?: AbortSignal, report?: ReadReport): Promise<T>;
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

/**
 * A read that stopped before the end (a cursor that repeats, more pages than any campaign has): what
 * was read is not served as the whole list. The snapshot store keeps the last complete snapshot,
 * stale, with this message as the reason (its `lastError`), or answers 503 while it has none.
 */
export class IncompleteReadError extends UpstreamError {}

/** A validator compiled from an upstream's contract (generated/upstreams/*.validators.ts). */
export interface ContractValidator<T> {
  (value: unknown): value is T;
  errors?: readonly { instancePath: string; message?: string }[] | null;
}

/** How many schema issues an error message lists before it summarises the rest. */
const MAX_LISTED_ISSUES = 3;

/** The last refusal of `validator` as `path: message` (Ajv's messages name the expected type, never the value). */
export function describeIssues(validator: ContractValidator<unknown>): string {
  const issues = validator.errors ?? [];
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${issue.instancePath || '(root)'}: ${issue.message ?? 'does not match'}`);
  const more = issues.length - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/** Checks an upstream document against its contract, turning a mismatch into an UpstreamError naming `what`. */
export function validateUpstream<T>(source: string, what: string, validator: ContractValidator<T>, value: unknown): T {
  if (!validator(value)) throw new UpstreamError(source, `malformed ${what}: ${describeIssues(validator)}`);
  return value;
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
 * deadline that fires on every Node version (src/lib/deadline.ts). A request past its deadline, or
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
