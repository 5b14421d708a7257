/**
 * `/readyz`: whether a load balancer should send traffic here. Not ready until every source has a
 * snapshot — or the cold-start deadline has passed, so that one upstream down at start does not keep
 * a replica out forever (its reads answer 503 with Retry-After meanwhile) — and not ready from the
 * moment close() begins.
 */
import type { SourceHealth, SourceName } from '../channel/snapshot-store.js';

/** How long after the start a replica waits for its first snapshots before it reports ready anyway. */
export const DEFAULT_COLD_START_DEADLINE_MS = 30_000;

export type Readiness = { ready: true } | { ready: false; reason: string };

export interface ReadinessProbe {
  check(): Readiness;
  /** From now on not ready (shutting down). */
  stop(): void;
}

export function createReadinessProbe(snapshots: () => Record<SourceName, SourceHealth>, coldStartDeadlineMs = DEFAULT_COLD_START_DEADLINE_MS): ReadinessProbe {
  const deadline = performance.now() + coldStartDeadlineMs;
  let stopping = false;
  return {
    check() {
      if (stopping) return { ready: false, reason: 'shutting down' };
      if (performance.now() >= deadline) return { ready: true };
      const missing = Object.entries(snapshots())
        .filter(([, health]) => health.fetchedAt === null)
        .map(([source]) => source);
      return missing.length === 0 ? { ready: true } : { ready: false, reason: `waiting for the first snapshot of ${missing.join(', ')}` };
    },
    stop() {
      stopping = true;
    },
  };
}
