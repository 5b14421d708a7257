/** Turns a fault decision into the response a failing platform would give. */
import type { ServerResponse } from 'node:http';
import type { FaultTarget, Stall } from './faults.js';
import { delay, send } from './http-kit.js';
import { GOOGLE_JSON, JSON_API, sendGoogleError, sendJsonApiError } from './platform-errors.js';
import type { SandboxState } from './state.js';

const MALFORMED_BODIES: Record<Exclude<FaultTarget, 'token'>, { shape: string; json: string }> = {
  membership: { shape: '{"data":{"type":"member"},"links":"next"}', json: '{"data":[{"type":"member","id":"' },
  video: { shape: '{"sponsorsData":{"sponsors":"none"},"cards":7}', json: '{"sponsorshipsTierData":{"tiers":[' },
};

/**
 * A platform that hangs: the request is never answered ('headers'), or its headers and the first
 * byte of a body that never completes are sent ('body'). Resolves when the client gives up.
 */
export async function stallResponse(res: ServerResponse, stall: Stall, contentType: string): Promise<void> {
  const closed = new Promise((resolve) => res.once('close', resolve));
  if (stall === 'body') {
    res.writeHead(200, { 'content-type': contentType, 'content-length': '1024' });
    res.write('{');
  }
  await closed;
}

/** Applies the injected fault, if any, for a platform request. Returns true when it answered. */
export async function applyFault(state: SandboxState, target: Exclude<FaultTarget, 'token'>, res: ServerResponse): Promise<boolean> {
  const decision = state.faults.decide(target);
  if (!decision) return false;
  if (decision.latencyMs > 0) await delay(decision.latencyMs);
  if (decision.stall !== undefined) {
    await stallResponse(res, decision.stall, target === 'membership' ? JSON_API : GOOGLE_JSON);
    return true;
  }
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
