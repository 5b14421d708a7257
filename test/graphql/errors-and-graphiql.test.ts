import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatsSnapshot, SupportersSnapshot } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { createChannelGraph } from '../../src/graphql/channel-graph.js';
import { DEFAULT_GRAPH_SETTINGS, type GraphSettings } from '../../src/graphql/graph-settings.js';
import { silentLogger } from '../http/harness.js';
import { listOf, postGraph, startGraphApp } from './graph-harness.js';

/**
 * Error masking (production: "Unexpected error."; development: the original error too) and GraphiQL.
 * A bug is provoked with an upstream source that returns a corrupt snapshot (tiers: null), which
 * the resolvers do not expect: the one way to get an unexpected error through a correct server.
 */
const fetchedAt = new Date().toISOString();
const corruptMembership: UpstreamSource<SupportersSnapshot> = {
  name: 'membership',
  fetch: () => Promise.resolve({ platform: 'membership', supporters: [], tiers: null, fetchedAt } as unknown as SupportersSnapshot),
};
const emptyVideo: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: () => Promise.resolve({ platform: 'video', supporters: [], tiers: [], fetchedAt }) };
const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: () => Promise.resolve({ subscribers: 7, fetchedAt }) };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/**
 * The corrupt graph's URL, and the errors its yoga logged: an unexpected error is logged with its
 * stack (for the operator) whatever the answer shows, so the tests read it here, not on stderr.
 */
async function serveCorruptGraph(settings: Partial<GraphSettings>): Promise<{ url: string; loggedErrors: unknown[][] }> {
  const store = new SnapshotStore({ sources: { membership: corruptMembership, video: emptyVideo, stats }, refreshIntervalMs: 0, logger: silentLogger });
  await store.start();
  const loggedErrors: unknown[][] = [];
  const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (...args: unknown[]) => void loggedErrors.push(args) };
  const graph = createChannelGraph({ store, settings: { ...DEFAULT_GRAPH_SETTINGS, ...settings }, logger });
  const server: Server = createServer(graph.requestListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    await new Promise((resolve) => server.close(resolve));
    await graph.dispose();
    await store.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, loggedErrors };
}

/** The one error the server logged for the corrupt snapshot: the original TypeError, with its stack. */
function expectOriginalErrorLogged(loggedErrors: unknown[][]): void {
  expect(loggedErrors).toHaveLength(1);
  expect(loggedErrors[0]?.[0]).toMatchObject({ message: expect.stringMatching(/Cannot read properties of null/), stack: expect.stringMatching(/indexSnapshot/) });
}

describe('error masking', () => {
  it('in production an unexpected error is "Unexpected error." with nothing of the original, and the rest resolves', async () => {
    const { url, loggedErrors } = await serveCorruptGraph({ development: false, maskErrors: true });
    const { body } = await postGraph(url, { query: '{ topSupporter(platform: MEMBERSHIP) { id } stats { subscribers } }' });
    expect(body.data).toEqual({ topSupporter: null, stats: { subscribers: 7 } });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({ message: 'Unexpected error.', path: ['topSupporter'] });
    expect(JSON.stringify(body.errors)).not.toMatch(/Cannot read|stack|originalError/);
    expectOriginalErrorLogged(loggedErrors);
  });

  it('in development the original error (message and stack) is in extensions.originalError', async () => {
    const { url, loggedErrors } = await serveCorruptGraph({ development: true, maskErrors: false });
    const { body } = await postGraph(url, { query: '{ topSupporter(platform: MEMBERSHIP) { id } }' });
    expect(body.errors![0]!.extensions!.originalError).toMatchObject({ message: expect.stringMatching(/Cannot read properties of null/), stack: expect.any(String) });
    expectOriginalErrorLogged(loggedErrors);
  });

  it('in production with GRAPHQL_MASK_ERRORS=false an unexpected error keeps its message, but no stack or path', async () => {
    const { url, loggedErrors } = await serveCorruptGraph({ development: false, maskErrors: false });
    const { body } = await postGraph(url, { query: '{ topSupporter(platform: MEMBERSHIP) { id } }' });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({ message: expect.stringMatching(/Cannot read properties of null/), path: ['topSupporter'], extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(JSON.stringify(body)).not.toMatch(/stack|originalError|\.ts:\d|file:/);
    expectOriginalErrorLogged(loggedErrors);
  });

  it('field suggestions follow introspection: both are given in production (the npm start defaults) as in development', async () => {
    const production = await startGraphApp();
    const development = await startGraphApp({ development: true, maskErrors: false, graphiql: false });
    cleanups.push(() => production.close(), () => development.close());
    const typo = { query: '{ stats { subscriber } }' };
    const introspection = { query: '{ __type(name: "ChannelStats") { fields { name } } }' };
    for (const { app } of [production, development]) {
      const refused = await postGraph(app.url, typo);
      expect(refused.body.errors![0]!.message).toBe('Cannot query field "subscriber" on type "ChannelStats". Did you mean "subscribers"?');
      const described = await postGraph(app.url, introspection);
      expect(listOf<{ name: string }>(described.body.data?.__type?.fields).map((field) => field.name)).toContain('subscribers');
    }
  });
});

describe('GraphiQL', () => {
  it('is served on GET /graphql to a browser, and not when GRAPHQL_GRAPHIQL=false', async () => {
    const on = await startGraphApp({ graphiql: true });
    const off = await startGraphApp({ graphiql: false });
    cleanups.push(() => on.close(), () => off.close());
    const asBrowser = { headers: { accept: 'text/html,application/xhtml+xml' } };
    const page = await fetch(`${on.app.url}/graphql`, asBrowser);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('<title>Channel graph</title>');
    // Self-contained: the page loads nothing from a CDN.
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    const disabled = await fetch(`${off.app.url}/graphql?query=%7B__typename%7D`, asBrowser);
    expect(disabled.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
  });

  it('off (the production default), a browser opening /graphql gets a 400 page saying why and how to turn it on; queries still get JSON', async () => {
    const production = await startGraphApp();
    cleanups.push(() => production.close());
    // What Chromium sends when a person opens the URL.
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    for (const [path, accept] of [['/graphql', browserAccept], ['/graphql/', browserAccept], ['/graphql', 'text/html']] as const) {
      const page = await fetch(`${production.app.url}${path}`, { headers: { accept } });
      expect(page.status, `${path} (${accept})`).toBe(400);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('vary')).toMatch(/accept/i);
      const html = await page.text();
      expect(html).toContain('<title>GraphiQL is off</title>');
      expect(html).toContain('GRAPHQL_GRAPHIQL=true');
      expect(html).toContain('npm run dev');
      // No stack, no path of the server's files.
      expect(html).not.toMatch(/\bat \S+ \(|\/src\/|\.ts\b|node_modules|file:/);
    }
    // A link with a query in it, and a client that does not ask for HTML, get the JSON answers as before.
    const linked = await fetch(`${production.app.url}/graphql?query=%7B__typename%7D`, { headers: { accept: browserAccept } });
    expect(linked.status).toBe(200);
    expect(await linked.json()).toEqual({ data: { __typename: 'Query' } });
    const bare = await fetch(`${production.app.url}/graphql`, { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(400);
    expect(bare.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
