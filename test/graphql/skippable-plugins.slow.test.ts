/**
 * The plugins of the channel graph and the answers that skip them (src/graphql/skippable-plugins.ts),
 * over real HTTP, with the response cache on and off:
 * - a plugin that does not say which answers may skip it (an authentication), in the graph's own
 *   list or the caller's, sees every request: it refuses the first and the thousandth identical
 *   request without its token, and lets through the first and the thousandth with it, where a
 *   prepared or a replayed answer would not have asked it;
 * - one that says repeats may skip it is skipped by them (which is what the first would be, without
 *   the rule): with the graph's own plugins a repeated query is answered by its prepared operation
 *   or from the cache, as in production;
 * - one that acts on executions only (a tracer's spans) sees every execution: replayed answers,
 *   which execute nothing, skip it, prepared ones are off.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_GRAPH_PARTS, createChannelGraphHandler, type ChannelGraphParts } from '../../src/graphql/channel-graph.js';
import type { GraphSettings } from '../../src/graphql/graph-settings.js';
import { skippableByRepeats, skippableByReplays } from '../../src/graphql/skippable-plugins.js';
import { listen } from '../../src/lib/listen.js';
import { testConfig } from '../http/harness.js';
import { startGraphApp } from './graph-harness.js';

const TOKEN = 'Bearer let-me-in';
const BODY = JSON.stringify({ query: '{ supporters { __typename id name amountCents tier { title } } }' });

interface Counts {
  requests: number;
  executions: number;
}

/** Refuses (401) a request without TOKEN, before yoga parses it; counts the requests it sees. */
function requireToken(counts: Counts): Plugin {
  return {
    onRequest(payload) {
      counts.requests += 1;
      if (payload.request.headers.get('authorization') === TOKEN) return;
      const body = JSON.stringify({ errors: [{ message: 'Unauthorized: send a bearer token.' }] });
      payload.endResponse(new payload.fetchAPI.Response(body, { status: 401, headers: { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer' } }));
    },
  };
}

/** Counts the executions it sees (as a tracer opens a span around each). */
function countExecutions(counts: Counts): Plugin {
  return {
    onExecute() {
      counts.executions += 1;
    },
  };
}

interface Answer {
  status: number;
  body: string;
}

/** Where a plugin is added: to the graph's own list (first, with the limits) or to the caller's plugins. */
type Placement = 'own' | 'caller';

/**
 * A graph handler over `store` with `plugin` added where `placement` says, on its own server; `ask`
 * sends the same query every time, with the headers given.
 */
async function serveGraph(store: Parameters<typeof createChannelGraphHandler>[0]['store'], settings: GraphSettings, plugin?: Plugin, placement: Placement = 'own') {
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn: (message: unknown) => void warnings.push(String(message)), error() {} };
  const parts: ChannelGraphParts = plugin !== undefined && placement === 'own'
    ? { ...CHANNEL_GRAPH_PARTS, guards: (graphSettings) => [plugin, ...CHANNEL_GRAPH_PARTS.guards(graphSettings)] }
    : CHANNEL_GRAPH_PARTS;
  const plugins = plugin !== undefined && placement === 'caller' ? [plugin] : [];
  const handler = createChannelGraphHandler({ store, settings, plugins, logger }, parts);
  const server = await listen((request, response) => handler.requestListener(request, response));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ask = (headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(`${server.url}/graphql`, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(BODY), ...headers } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      outgoing.on('error', reject);
      outgoing.end(BODY);
    });
  return {
    ask,
    warnings,
    async close() {
      agent.destroy();
      await server.close();
      await handler.dispose();
    },
  };
}

describe.each([
  ['the response cache off (repeats are prepared)', { responseCache: false }],
  ['the response cache on (repeats are replayed)', { responseCache: true }],
])('plugins of the channel graph and the answers that skip them, %s', (_name, overrides) => {
  const settings: GraphSettings = { ...testConfig('').graph, jit: true, ...overrides };
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let data: string;
  beforeAll(async () => {
    started = await startGraphApp(settings);
    const graph = await serveGraph(started.app.store, settings);
    try {
      data = (await graph.ask()).body;
    } finally {
      await graph.close();
    }
    expect(JSON.parse(data)).toMatchObject({ data: { supporters: expect.any(Array) as unknown } });
  });
  afterAll(() => started.close());

  it.each([
    ['the graph\'s own list', 'own'],
    ['the caller\'s plugins', 'caller'],
  ] as const)('an authentication in %s that declares nothing runs on every identical request: it lets the first and the thousandth through with its token, and refuses them without', async (_where, placement) => {
    const counts: Counts = { requests: 0, executions: 0 };
    const graph = await serveGraph(started.app.store, settings, requireToken(counts), placement);
    try {
      // The same request each time, with the token and then without it: the shape is answered with
      // data from the first request on, which is what prepared and replayed answers repeat.
      for (let sent = 1; sent <= 1000; sent += 1) {
        expect(await graph.ask({ authorization: TOKEN }), `request ${sent} with the token`).toEqual({ status: 200, body: data });
        const refused = await graph.ask();
        expect(refused.status, `request ${sent} without the token`).toBe(401);
        expect(JSON.parse(refused.body)).toEqual({ errors: [{ message: 'Unauthorized: send a bearer token.' }] });
      }
      expect(counts.requests).toBe(2000);
      expect(graph.warnings).toEqual([expect.stringMatching(/does not say which answers may skip it/) as unknown]);
    } finally {
      await graph.close();
    }
  });

  it('a plugin that says repeats may skip it is skipped by them: the graph\'s own plugins keep prepared and replayed answers', async () => {
    const counts: Counts = { requests: 0, executions: 0 };
    const graph = await serveGraph(started.app.store, settings, skippableByRepeats(requireToken(counts)));
    try {
      for (let sent = 1; sent <= 20; sent += 1) expect(await graph.ask({ authorization: TOKEN })).toEqual({ status: 200, body: data });
      // The first requests of the shape go to yoga (the document cached and compiled, the answer kept); the rest do not.
      expect(counts.requests).toBeLessThanOrEqual(3);
      // Which is why a plugin that must see every request says nothing.
      expect((await graph.ask()).status).toBe(200);
      expect(graph.warnings).toEqual([]);
    } finally {
      await graph.close();
    }
  });

  it('a plugin of executions sees every execution: replayed answers skip it, and nothing is prepared', async () => {
    const counts: Counts = { requests: 0, executions: 0 };
    const graph = await serveGraph(started.app.store, settings, skippableByReplays(countExecutions(counts)), 'caller');
    try {
      for (let sent = 1; sent <= 20; sent += 1) expect(await graph.ask()).toEqual({ status: 200, body: data });
      if (settings.responseCache) expect(counts.executions).toBeLessThanOrEqual(2);
      else expect(counts.executions).toBe(20);
      expect(graph.warnings).toEqual([]);
    } finally {
      await graph.close();
    }
  });
});
