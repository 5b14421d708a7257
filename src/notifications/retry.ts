/**
 * When a failed delivery is tried again: exponential backoff with jitter ("equal jitter": half the
 * delay fixed, half random, so replicas and destinations that failed together spread out, and no
 * retry comes sooner than half its step), or when the receiver asked (`Retry-After`, Discord's
 * reset), never sooner than the first step. Past the retry window (24 hours from the event by
 * default) the delivery is dead: a dead letter, kept until an operator replays it.
 */
import type { DeliverySettings } from './destinations.js';

export type RetryDecision = { retry: true; atMs: number } | { retry: false };

export interface RetryInput {
  /** Attempts made, this one included (1 after the first failure). */
  attempts: number;
  /** When the event was recorded: the retry window starts there. */
  recordedAtMs: number;
  nowMs: number;
  /** The receiver's own wait (Retry-After, Discord's reset), if it gave one. */
  retryAfterMs?: number | undefined;
}

/** The backoff step after `attempts` failures, before jitter: first, doubling, capped. */
export function backoffStepMs(attempts: number, settings: Pick<DeliverySettings, 'firstRetryDelayMs' | 'maxRetryDelayMs'>): number {
  return Math.min(settings.maxRetryDelayMs, settings.firstRetryDelayMs * 2 ** Math.min(attempts - 1, 40));
}

export function nextRetry(input: RetryInput, settings: Pick<DeliverySettings, 'firstRetryDelayMs' | 'maxRetryDelayMs' | 'retryForMs'>, random: () => number = Math.random): RetryDecision {
  const step = backoffStepMs(input.attempts, settings);
  const delay = input.retryAfterMs === undefined ? step / 2 + random() * (step / 2) : Math.max(input.retryAfterMs, settings.firstRetryDelayMs);
  const atMs = input.nowMs + Math.ceil(delay);
  return atMs > input.recordedAtMs + settings.retryForMs ? { retry: false } : { retry: true, atMs };
}
