import { OAuth2Client, TokenKeeper, type TokenStore } from '@channel-graph/oauth2';
import type { RunningSandbox } from '../../src/sandbox/index.js';

/** A token keeper seeded with the sandbox's test credentials, as src/main.ts builds one from .env. */
export function sandboxKeeper(sandbox: RunningSandbox, options: { store?: TokenStore; refreshToken?: string } = {}): TokenKeeper {
  const { clientId, clientSecret, accessToken, refreshToken } = sandbox.credentials;
  const client = new OAuth2Client(clientId, clientSecret, { site: sandbox.url, tokenUrl: '/api/oauth2/token' });
  return new TokenKeeper(client, {
    initial: { access_token: accessToken, refresh_token: options.refreshToken ?? refreshToken, expires_in: 3600 },
    ...(options.store && { store: options.store }),
  });
}

export async function sandboxRequests(sandbox: RunningSandbox): Promise<Record<string, number>> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: Record<string, number> }).requests;
}

export async function setFault(sandbox: RunningSandbox, fault: Record<string, unknown> | null): Promise<void> {
  const response = await fetch(`${sandbox.url}/__sandbox/faults`, {
    method: fault ? 'POST' : 'DELETE',
    ...(fault && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) }),
  });
  if (!response.ok) throw new Error(`setting the fault failed: HTTP ${response.status}`);
}
