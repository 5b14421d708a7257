/**
 * Child process of bench/channel/run.ts: one cold fetch of the membership snapshot from the sandbox
 * at SANDBOX_URL through the real adapter and OAuth2 token keeper, so that its wall time, peak RSS
 * and retained heap are this process's alone (the sandbox runs in the parent). Prints one JSON line.
 * Run with --expose-gc so the retained heap is measured after a full collection.
 */
import { performance } from 'node:perf_hooks';
import { createMembershipSource } from '../../src/channel/membership.js';
import { MemoryTokenStore, OAuth2Client, TokenKeeper } from '@channel-graph/oauth2';
import { sandboxCredentials } from '../../src/sandbox/credentials.js';

const MB = 1024 * 1024;
const apiBase = process.env.SANDBOX_URL;
if (apiBase === undefined) throw new Error('SANDBOX_URL is required');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const credentials = sandboxCredentials();
const client = new OAuth2Client(credentials.clientId, credentials.clientSecret, { site: apiBase, tokenUrl: '/api/oauth2/token', authScheme: 'request_body' });
const keeper = new TokenKeeper(client, {
  initial: { access_token: credentials.accessToken, refresh_token: credentials.refreshToken },
  store: new MemoryTokenStore(),
});
const source = createMembershipSource({ apiBase, campaignId: credentials.campaignId, keeper });

gc();
const before = process.memoryUsage();
const started = performance.now();
const snapshot = await source.fetch();
const wallMs = performance.now() - started;
const peakRssMb = (process.resourceUsage().maxRSS * 1024) / MB;
gc();
const after = process.memoryUsage();
const jsonBytes = Buffer.byteLength(JSON.stringify(snapshot));

console.log(
  JSON.stringify({
    supporters: snapshot.supporters.length,
    wallMs: Math.round(wallMs),
    rssBeforeMb: Math.round((before.rss / MB) * 10) / 10,
    peakRssMb: Math.round(peakRssMb * 10) / 10,
    retainedHeapMb: Math.round(((after.heapUsed - before.heapUsed) / MB) * 10) / 10,
    snapshotJsonMb: Math.round((jsonBytes / MB) * 10) / 10,
  }),
);
