/**
 * `/readyz`: whether a load balancer should send traffic here. Not ready until every source has a
 * snapshot — or the cold-start deadline has passed, so that one upstream down at start does not keep
 * a replica out forever (its reads answer 503 with Retry-After meanwhile) — and not ready from the
 * moment close() begins.
 */
import type { SourceHealth, SourceName } from '../channel/snapshot-store.js';

/** How long after the start a replica waits for its first snapshots before it reports ready anyway. */
export const DEFAULT_COLD_START_DEADLINE_MS = 30_000;

export type Readiness = { ready: true; degraded: string[] } | { ready: false; reason: string };

export interface ReadinessProbe {
  check(): Readiness;
  /** From now on not ready (shutting down). */
  stop(): void;
}

/**
 * `degraded` lists what works only in part while the process serves (the history's database
 * unreachable): still ready, since the current data is served, but said.
 */
export function createReadinessProbe(snapshots: () => Record<SourceName, SourceHealth>, coldStartDeadlineMs = DEFAULT_COLD_START_DEADLINE_MS, degraded: () => string[] = () => []): ReadinessProbe {
  const deadline = performance.now() + coldStartDeadlineMs;
  let stopping = false;
  return {
    check() {
      if (stopping) return { ready: false, reason: 'shutting down' };
      if (performance.now() >= deadline) return { ready: true, degraded: degraded() };
      const missing = Object.entries(snapshots())
        .filter(([, health]) => health.fetchedAt === null)
        .map(([source]) => source);
      return missing.length === 0 ? { ready: true, degraded: degraded() } : { ready: false, reason: `waiting for the first snapshot of ${missing.join(', ')}` };
    },
    stop() {
      stopping = true;
    },
  };
}
