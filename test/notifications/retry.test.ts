import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_SETTINGS } from '../../src/notifications/destinations.js';
import { backoffStepMs, nextRetry } from '../../src/notifications/retry.js';

const HOUR = 3_600_000;
const settings = DEFAULT_DELIVERY_SETTINGS;

describe('the retry schedule', () => {
  it('doubles from the first delay up to the cap', () => {
    expect([1, 2, 3, 4, 10, 11, 12, 40, 1000].map((attempts) => backoffStepMs(attempts, settings))).toEqual([5_000, 10_000, 20_000, 40_000, 2_560_000, HOUR, HOUR, HOUR, HOUR]);
  });

  it('with jitter: each delay is between half its step and its step', () => {
    const at = (attempts: number, random: number) => nextRetry({ attempts, recordedAtMs: 0, nowMs: 0 }, settings, () => random);
    expect(at(3, 0)).toEqual({ retry: true, atMs: 10_000 });
    expect(at(3, 0.999_999)).toEqual({ retry: true, atMs: 20_000 });
    const spread = new Set(Array.from({ length: 50 }, () => (nextRetry({ attempts: 3, recordedAtMs: 0, nowMs: 0 }, settings) as { atMs: number }).atMs));
    expect(spread.size).toBeGreaterThan(10);
  });

  it("a receiver's own wait (Retry-After, Discord's reset) replaces the step, never below the first delay", () => {
    expect(nextRetry({ attempts: 9, recordedAtMs: 0, nowMs: 1_000, retryAfterMs: 7_000 }, settings)).toEqual({ retry: true, atMs: 8_000 });
    expect(nextRetry({ attempts: 1, recordedAtMs: 0, nowMs: 1_000, retryAfterMs: 0 }, settings)).toEqual({ retry: true, atMs: 6_000 });
  });

  it('retries for 24 hours from the event, then gives up (a dead letter)', () => {
    let nowMs = 0;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const decision = nextRetry({ attempts, recordedAtMs: 0, nowMs }, settings, () => 0.5);
      if (!decision.retry) break;
      nowMs = decision.atMs;
    }
    expect(nowMs).toBeGreaterThan(23 * HOUR);
    expect(nowMs).toBeLessThanOrEqual(24 * HOUR);
    expect(attempts).toBeGreaterThan(25);
    expect(attempts).toBeLessThan(45);
    // A wait that ends past the window is not waited for.
    expect(nextRetry({ attempts: 1, recordedAtMs: 0, nowMs: 23 * HOUR, retryAfterMs: 2 * HOUR }, settings)).toEqual({ retry: false });
  });
});
