import { afterAll, beforeAll } from 'vitest';
import type { ChannelConfig } from '../../src/config.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { untilFetched } from '../graphql/graph-harness.js';
import { sandboxControl, startSandboxApp } from '../http/harness.js';

type StartedSandboxApp = Awaited<ReturnType<typeof startSandboxApp>>;

/**
 * The app in sandbox mode for the tests of one file: started (every source fetched) before them,
 * closed after them. Call at the top of the file; read `app` and `url` inside the tests.
 */
export function useSandboxApp(overrides: Partial<ChannelConfig> = {}): { readonly app: StartedSandboxApp['app']; readonly url: string } {
  let started: StartedSandboxApp | undefined;
  beforeAll(async () => {
    started = await startSandboxApp({}, overrides);
    await untilFetched(started.app);
  });
  afterAll(() => started?.close());
  const running = (): StartedSandboxApp => {
    if (started === undefined) throw new Error('useSandboxApp: the app runs only inside the tests');
    return started;
  };
  return {
    get app() {
      return running().app;
    },
    get url() {
      return running().app.url;
    },
  };
}

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
