/** Turns a fault decision into the response a failing platform would give. */
import type { ServerResponse } from 'node:http';
import type { FaultTarget } from './faults.js';
import { delay, send } from './http-kit.js';
import { GOOGLE_JSON, JSON_API, sendGoogleError, sendJsonApiError } from './platform-errors.js';
import type { SandboxState } from './state.js';

const MALFORMED_BODIES: Record<FaultTarget, { shape: string; json: string }> = {
  membership: { shape: '{"data":{"type":"member"},"links":"next"}', json: '{"data":[{"type":"member","id":"' },
  video: { shape: '{"sponsorsData":{"sponsors":"none"},"cards":7}', json: '{"sponsorshipsTierData":{"tiers":[' },
};

/** Applies the injected fault, if any, for a platform request. Returns true when it answered. */
export async function applyFault(state: SandboxState, target: FaultTarget, res: ServerResponse): Promise<boolean> {
  const decision = state.faults.decide(target);
  if (!decision) return false;
  if (decision.latencyMs > 0) await delay(decision.latencyMs);
  if (decision.status !== undefined) {
    const message = `injected fault: status ${decision.status}`;
    const headers: Record<string, string> = decision.status === 503 || decision.status === 429 ? { 'retry-after': '1' } : {};
    if (target === 'membership') sendJsonApiError(res, decision.status, 'Injected fault', message, headers);
    else sendGoogleError(res, decision.status, message, undefined, headers);
    return true;
  }
  if (decision.malformed) {
    send(res, 200, target === 'membership' ? JSON_API : GOOGLE_JSON, MALFORMED_BODIES[target][decision.malformed]);
    return true;
  }
  return false;
}
