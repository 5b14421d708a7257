/**
 * One path through the graph: a plugin added to the channel graph's list runs on every request,
 * whatever the transport and whether the response cache holds the answer. An authentication-like
 * plugin refuses the 1st and the 1,000th of 1,000 identical requests (and lets the others through)
 * over POST, GET, a persisted document id, server-sent events and a WebSocket, with the response
 * cache on and off; with it on, the requests in between are answered from the cache (its lookups
 * are counted), so the refusal of the 1,000th is one of a cached answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLError } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { StatsSnapshot, SupportersSnapshot } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { createChannelGraph, type ChannelGraph } from '../../src/graphql/channel-graph.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { CODEGEN_PERSISTED_DOCUMENTS } from '../../src/graphql/plugins/trusted-documents.js';
import { createGraphWebSocketServer, type GraphWebSocketServer } from '../../src/graphql/streams/websocket.js';
import { silentLogger } from '../http/harness.js';

const REQUESTS = 1000;
const REFUSED = new Set([1, REQUESTS]);
const QUERY = 'query ChannelStatistics { stats { fetchedAt stale subscribers } }';
const DOCUMENT_ID = Object.entries(CODEGEN_PERSISTED_DOCUMENTS).find(([, text]) => text === QUERY)?.[0] as string;

const fetchedAt = new Date().toISOString();
const membership: UpstreamSource<SupportersSnapshot> = { name: 'membership', fetch: () => Promise.resolve({ platform: 'membership', supporters: [], tiers: [], fetchedAt }) };
const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: () => Promise.resolve({ platform: 'video', supporters: [], tiers: [], fetchedAt }) };
const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: () => Promise.resolve({ subscribers: 7, fetchedAt }) };
const ANSWER = { data: { stats: { fetchedAt, stale: false, subscribers: 7 } } };
const REFUSAL = { errors: [{ message: 'Not allowed.', extensions: { code: 'FORBIDDEN' } }] };

/** What an authentication would be: a decision for each request, here by its number. */
function useRefusals(counter: { requests: number }): Plugin {
  return {
    onExecute({ setResultAndStopExecution }) {
      counter.requests += 1;
      if (REFUSED.has(counter.requests)) setResultAndStopExecution({ errors: [new GraphQLError('Not allowed.', { extensions: { code: 'FORBIDDEN' } })] });
    },
  };
}

interface Served {
  url: string;
  counter: { requests: number };
  hits: number;
  sockets: GraphWebSocketServer;
  graph: ChannelGraph;
  server: Server;
}

async function serve(store: SnapshotStore, responseCache: boolean): Promise<Served> {
  const counter = { requests: 0 };
  const served = { counter, hits: 0 } as Served;
  const settings = { ...DEFAULT_GRAPH_SETTINGS, responseCache };
  served.graph = createChannelGraph({ store, settings, plugins: [useRefusals(counter)], onResponseCacheLookup: (hit) => void (served.hits += hit ? 1 : 0), logger: silentLogger });
  served.sockets = createGraphWebSocketServer({ graph: served.graph.yoga, settings, persistedDocuments: CODEGEN_PERSISTED_DOCUMENTS });
  served.server = createServer(served.graph.requestListener);
  served.server.on('upgrade', (request, socket, head) => served.sockets.handleUpgrade(request, socket, head));
  await new Promise<void>((resolve) => served.server.listen(0, '127.0.0.1', resolve));
  served.url = `http://127.0.0.1:${(served.server.address() as AddressInfo).port}/graphql`;
  return served;
}

async function close(served: Served): Promise<void> {
  await served.sockets.close();
  await new Promise((resolve) => served.server.close(resolve));
  await served.graph.dispose();
}

const json = { 'content-type': 'application/json', accept: 'application/json' };

/** Each transport: one request, its answer as a GraphQL result. */
const TRANSPORTS: Record<string, (served: Served, socket: () => Client) => Promise<unknown>> = {
  POST: async ({ url }) => (await fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ query: QUERY }) })).json(),
  GET: async ({ url }) => (await fetch(`${url}?query=${encodeURIComponent(QUERY)}`, { headers: { accept: 'application/json' } })).json(),
  'a persisted document id': async ({ url }) => (await fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ documentId: DOCUMENT_ID }) })).json(),
  'server-sent events': async ({ url }) => {
    const text = await (await fetch(url, { method: 'POST', headers: { ...json, accept: 'text/event-stream' }, body: JSON.stringify({ query: QUERY }) })).text();
    const next = /^event: next\ndata: (.*)$/m.exec(text);
    if (next === null) throw new Error(`no next event in ${text}`);
    return JSON.parse(next[1] as string) as unknown;
  },
  'a WebSocket': async (_served, socket) => {
    for await (const result of socket().iterate({ query: QUERY })) return result;
    throw new Error('the operation completed without a result');
  },
};

let store: SnapshotStore;
beforeAll(async () => {
  store = new SnapshotStore({ sources: { membership, video, stats }, refreshIntervalMs: 0, logger: silentLogger });
  await store.start();
  await store.read('stats');
});
afterAll(() => store.close());

describe.each([
  { cache: 'on', responseCache: true },
  { cache: 'off', responseCache: false },
])('with the response cache $cache', ({ responseCache }) => {
  let served: Served;
  let client: Client | undefined;
  beforeAll(async () => {
    served = await serve(store, responseCache);
  });
  afterAll(async () => {
    await client?.dispose();
    await close(served);
  });
  const socket = (): Client => (client ??= createClient({ url: served.url.replace('http', 'ws'), webSocketImpl: WebSocket, retryAttempts: 0 }));

  it.each(Object.keys(TRANSPORTS))('an authentication-like plugin refuses the 1st and the 1,000th identical request over %s', async (transport) => {
    const send = TRANSPORTS[transport] as (typeof TRANSPORTS)[string];
    served.counter.requests = 0;
    const hitsBefore = served.hits;
    const answers: unknown[] = [];
    for (let request = 1; request <= REQUESTS; request += 1) answers.push(await send(served, socket));
    expect(served.counter.requests).toBe(REQUESTS);
    expect(answers[0]).toEqual(REFUSAL);
    expect(answers[REQUESTS - 1]).toEqual(REFUSAL);
    for (const answer of answers.slice(1, -1)) expect(answer).toEqual(ANSWER);
    // The cache answered the requests in between (its key's second occurrence is kept, the rest are hits).
    expect(served.hits - hitsBefore).toBeGreaterThanOrEqual(responseCache ? REQUESTS - 4 : 0);
    if (!responseCache) expect(served.hits).toBe(0);
  });
});
