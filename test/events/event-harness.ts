import type { RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxControl } from '../http/harness.js';

/**
 * The sandbox's webhook robot sends correctly signed membership webhooks to the app: one create, one
 * update and one delete give a JOINED, an UPDATED and a LEFT event.
 */
export type WebhookEvent = 'members:pledge:create' | 'members:pledge:update' | 'members:pledge:delete';

export async function sendWebhook(sandbox: RunningSandbox, appUrl: string, event: WebhookEvent, memberId: string, tierId?: string): Promise<void> {
  const answer = await sandboxControl<{ status: number }>(sandbox, 'POST', 'webhook', {
    url: `${appUrl}/membership/webhook`,
    event,
    memberId,
    ...(tierId === undefined ? {} : { tierId }),
  });
  if (answer.status !== 204) throw new Error(`the app answered the ${event} webhook with ${answer.status}`);
}

export function memberWithStatus(sandbox: RunningSandbox, status: 'active_patron' | 'former_patron', skip = 0) {
  const dataset = sandbox.datasets.membership;
  const found = dataset.slice(0, dataset.size).filter((candidate) => candidate.patronStatus === status)[skip];
  if (found === undefined) throw new Error(`the sandbox dataset has no ${status} #${skip}`);
  return found;
}

/**
 * create (a former patron comes back at tier 1) → update (to tier 3) → delete (leaves again): what
 * the three webhooks should produce, as [change, supporter id, previous amount]. Repeatable: the
 * patron is gone again at the end.
 */
export async function sendCreateUpdateDelete(sandbox: RunningSandbox, appUrl: string) {
  const newcomer = memberWithStatus(sandbox, 'former_patron');
  const { tiers } = sandbox.datasets.membership;
  const [tier1, tier3] = [tiers[1]!, tiers[3]!];
  await sendWebhook(sandbox, appUrl, 'members:pledge:create', newcomer.id, tier1.id);
  await sendWebhook(sandbox, appUrl, 'members:pledge:update', newcomer.id, tier3.id);
  await sendWebhook(sandbox, appUrl, 'members:pledge:delete', newcomer.id);
  return {
    newcomer,
    expected: [
      ['joined', newcomer.id, null],
      ['updated', newcomer.id, tier1.amountCents],
      ['left', newcomer.id, tier3.amountCents],
    ],
  };
}

/** Polls `check` until it is true (generous deadline: the machine is shared). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
