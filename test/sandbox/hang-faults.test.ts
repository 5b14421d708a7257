import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { eventually } from '../support/eventually.js';

/**
 * The sandbox's hang knobs, used by the deadline and shutdown tests: the token endpoint takes
 * `status`, `latencyMs` and `stall`, and its latency comes AFTER the grant (the refresh token is
 * already retired while the answer is late, as on a real server that is slow to answer); every
 * platform endpoint takes `stall: 'headers' | 'body'`.
 */
const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
});

async function sandbox(): Promise<RunningSandbox> {
  const started = await startSandbox({ seed: 12 });
  sandboxes.push(started);
  return started;
}

async function setFault(target: RunningSandbox, fault: Record<string, unknown>): Promise<{ status: number; body: { detail?: string } }> {
  const response = await fetch(`${target.url}/__sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) });
  return { status: response.status, body: (await response.json()) as { detail?: string } };
}

function refresh(target: RunningSandbox, refreshToken: string, signal?: AbortSignal): Promise<Response> {
  const { clientId, clientSecret } = target.credentials;
  return fetch(`${target.url}/api/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret }),
    ...(signal && { signal }),
  });
}

async function requestCount(target: RunningSandbox, endpoint: 'token' | 'campaign' | 'dashboard'): Promise<number> {
  return ((await (await fetch(`${target.url}/__sandbox/stats`)).json()) as { requests: Record<string, number> }).requests[endpoint] ?? 0;
}

/**
 * A request left to hang: `state()` is what it has got so far — 'nothing', '<status> headers only'
 * (its body not complete), or '<status> <body>' — and `abort()` gives up on it.
 */
function hanging(send: (signal: AbortSignal) => Promise<Response>): { state(): string; abort(): void } {
  const controller = new AbortController();
  let state = 'nothing';
  send(controller.signal)
    .then(async (response) => {
      state = `${response.status} headers only`;
      state = `${response.status} ${await response.text()}`;
    })
    .catch(() => undefined);
  return { state: () => state, abort: () => controller.abort() };
}

/**
 * What a stalled request has got once the sandbox has counted it (`endpoint`) and, for a body
 * stall, its headers have arrived — checked after one more request to the sandbox was answered in
 * full, so that an answer the stall failed to hold would have come first. The stalled request is
 * then abandoned.
 */
async function stalledState(target: RunningSandbox, endpoint: 'token' | 'campaign' | 'dashboard', stall: 'headers' | 'body', send: (signal: AbortSignal) => Promise<Response>): Promise<string> {
  const before = await requestCount(target, endpoint);
  const request = hanging(send);
  try {
    await eventually(`the ${endpoint} request at the sandbox`, async () => (await requestCount(target, endpoint)) > before);
    if (stall === 'body') await eventually(`the headers of the ${endpoint} answer`, () => request.state() !== 'nothing');
    await requestCount(target, endpoint); // one more exchange, answered in full
    return request.state();
  } finally {
    request.abort();
  }
}

describe('token endpoint faults', () => {
  it('latencyMs: the grant is carried out first — the old refresh token is refused while the answer is late', async () => {
    const target = await sandbox();
    expect((await setFault(target, { target: 'token', latencyMs: 1_000 })).status).toBe(200);
    const slow = refresh(target, target.credentials.refreshToken);
    // Counted on arrival; its grant is carried out as soon as its (one-packet) body is read, before
    // the sandbox answers the stats request that shows the count.
    await eventually('the slow refresh at the sandbox', async () => (await requestCount(target, 'token')) === 1);
    await setFault(target, { target: 'token', latencyMs: 0 });
    const reused = await refresh(target, target.credentials.refreshToken);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    const answer = await slow;
    expect(answer.status).toBe(200);
    const issued = (await answer.json()) as { refresh_token: string };
    expect((await refresh(target, issued.refresh_token)).status).toBe(200); // the late answer's token is the valid one
  });

  it("stall 'headers': never answered, and the grant is not carried out", async () => {
    const target = await sandbox();
    await setFault(target, { target: 'token', stall: 'headers' });
    expect(await stalledState(target, 'token', 'headers', (signal) => refresh(target, target.credentials.refreshToken, signal))).toBe('nothing');
    await fetch(`${target.url}/__sandbox/faults`, { method: 'DELETE' });
    expect((await refresh(target, target.credentials.refreshToken)).status).toBe(200);
  });

  it("stall 'body': headers, a body that never completes, and the refresh token retired", async () => {
    const target = await sandbox();
    await setFault(target, { target: 'token', stall: 'body' });
    expect(await stalledState(target, 'token', 'body', (signal) => refresh(target, target.credentials.refreshToken, signal))).toBe('200 headers only');
    await fetch(`${target.url}/__sandbox/faults`, { method: 'DELETE' });
    expect((await refresh(target, target.credentials.refreshToken)).status).toBe(400);
  });

  it('status: an OAuth error answer, the grant not carried out', async () => {
    const target = await sandbox();
    await setFault(target, { target: 'token', status: 503 });
    const down = await refresh(target, target.credentials.refreshToken);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'injected fault: status 503' });
    await fetch(`${target.url}/__sandbox/faults`, { method: 'DELETE' });
    expect((await refresh(target, target.credentials.refreshToken)).status).toBe(200);
  });
});

describe('platform stall faults', () => {
  it("membership stall 'headers' and video stall 'body'", async () => {
    const target = await sandbox();
    const { accessToken, campaignId, members } = target.credentials;
    await setFault(target, { target: 'membership', stall: 'headers' });
    await setFault(target, { target: 'video', stall: 'body' });
    const campaign = (signal: AbortSignal) => fetch(`${target.url}/api/oauth2/v2/campaigns/${campaignId}`, { headers: { authorization: `Bearer ${accessToken}` }, signal });
    const dashboard = (signal: AbortSignal) =>
      fetch(`${target.url}/youtubei/v1/creator/get_channel_dashboard?alt=json&key=${members.key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal });
    expect(await stalledState(target, 'campaign', 'headers', campaign)).toBe('nothing');
    expect(await stalledState(target, 'dashboard', 'body', dashboard)).toBe('200 headers only');
  });

  it('refuses contradictory or unsupported hang faults', async () => {
    const target = await sandbox();
    for (const fault of [
      { target: 'token', malformed: 'json' },
      { target: 'video', stall: 'body', status: 500 },
      { target: 'membership', stall: 'forever' },
    ]) {
      const result = await setFault(target, fault);
      expect(result.status, JSON.stringify(fault)).toBe(400);
      expect(result.body.detail).toEqual(expect.any(String));
    }
  });
});
