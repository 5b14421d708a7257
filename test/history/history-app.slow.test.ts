/**
 * The channel over time through the whole app (createChannelApp over the sandbox), on PGlite and on
 * PostgreSQL: the graph's and the REST API's history, changes, totals and pages of supporters, every
 * REST answer validated against openapi/channel-api.yaml; bad input answered 4xx with a message; the
 * database down (PostgreSQL): the current data served, history null with an error, REST 503 with
 * Retry-After, /readyz degraded, and nothing lost once it is back.
 */
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { makeDataDir, request, silentLogger, testConfig } from '../http/harness.js';
import { describeOnDatabases } from '../support/databases.js';
import { eventually } from '../support/eventually.js';

interface Running {
  app: ChannelApp & { sandbox: RunningSandbox; history: NonNullable<ChannelApp['history']> };
  graphql<T>(query: string, variables?: Record<string, unknown>): Promise<{ data?: T; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }>;
  close(): Promise<void>;
}

describeOnDatabases('history through the app', (backend) => {
  const running: Running[] = [];
  afterEach(async () => {
    for (const each of running.splice(0)) await each.close();
  });

  async function start(): Promise<Running> {
    const dataDir = await makeDataDir();
    const database = await backend.fresh();
    if (database.dataDir !== undefined) {
      await mkdir(join(dataDir.path, 'sandbox'), { recursive: true });
      await cp(database.dataDir, join(dataDir.path, 'sandbox', 'database'), { recursive: true });
    }
    const app = await createChannelApp(testConfig(dataDir.path, { mode: 'sandbox' }, { history: true, ...(database.url === undefined ? {} : { databaseUrl: database.url }) }), { logger: silentLogger, sandbox: { patrons: 40 } });
    const started: Running = {
      app: app as Running['app'],
      async graphql(query, variables) {
        const response = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query, variables }) });
        return (await response.json()) as never;
      },
      async close() {
        await app.close();
        await dataDir.remove();
      },
    };
    running.push(started);
    const { history } = started.app;
    await eventually('the history database to open', () => history.health().state === 'open', { timeoutMs: 60_000 });
    await eventually('the first snapshots to be recorded', async () => {
      await history.recorder.settled();
      return history.recorder.backlog.length === 0 && app.store.current('membership') !== null;
    });
    return started;
  }

  /** A patron leaves and another moves to the top tier; the membership source is refreshed and recorded. */
  async function changeSupporters(app: Running['app'], first: number): Promise<void> {
    app.sandbox.datasets.membership.override(first, { patronStatus: 'former_patron' });
    app.sandbox.datasets.membership.override(first + 1, { entitledTierIds: ['8100004'], currentlyEntitledAmountCents: 2500, patronStatus: 'active_patron' });
    await app.store.refresh('membership');
    await app.history.recorder.settled();
  }

  it('serves the changes, the history and the totals in the graph and in REST, and pages with stable cursors', async () => {
    const { app, graphql } = await start();
    const since = new Date(Date.now() - 60_000).toISOString();
    await changeSupporters(app, 0);
    const changes = await graphql<{ supporterChanges: { edges: Array<{ node: { kind: string; supporterId: string; before: unknown; after: unknown } }>; pageInfo: { hasNextPage: boolean } } }>(
      'query ($since: DateTime!) { supporterChanges(since: $since) { edges { node { kind supporterId before { amountCents } after { amountCents tierTitle } } } pageInfo { hasNextPage } } }',
      { since },
    );
    expect(changes.errors).toBeUndefined();
    const kinds = changes.data?.supporterChanges.edges.map((edge) => edge.node.kind).sort();
    expect(kinds?.length).toBeGreaterThanOrEqual(1);
    expect(kinds).toContain('LEFT');

    // REST: one change a page, the Link header leads to the next, and the pages together are the list.
    const seen: string[] = [];
    let next: string | undefined = `/changes?since=${encodeURIComponent(since)}&limit=1`;
    while (next !== undefined) {
      const page = await request(app.url, 'GET', next);
      expect(page.status).toBe(200);
      seen.push(...page.json<{ changes: Array<{ id: string }> }>().changes.map((change) => change.id));
      const link = page.headers.get('link');
      next = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    }
    expect(seen).toHaveLength(kinds?.length ?? 0);

    const totals = await request(app.url, 'GET', '/totals?platform=membership');
    const membership = app.store.current('membership')?.data;
    expect(totals.json<{ members: number; monthly_cents: number }>()).toMatchObject({
      members: membership?.supporters.length,
      monthly_cents: membership?.supporters.reduce((sum, supporter) => sum + supporter.amountCents, 0),
    });
    const graphTotals = await graphql<{ totals: { members: number } }>('{ totals(platform: MEMBERSHIP) { members monthlyCents platforms { tiers { tierId members } } } }');
    expect(graphTotals.data?.totals.members).toBe(membership?.supporters.length);

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const history = await request(app.url, 'GET', `/history?from=${encodeURIComponent(from)}&interval=hour&platform=membership`);
    expect(history.status).toBe(200);
    const points = history.json<{ points: Array<{ members: number }> }>().points;
    expect(points.at(-1)?.members).toBe(membership?.supporters.length);

    // Pages of supporters: the union of the pages is the list, in its order, while a supporter leaves between two pages.
    const list = await graphql<{ supporters: Array<{ id: string }> }>('{ supporters(platform: MEMBERSHIP, orderBy: AMOUNT) { id } }');
    const ids = list.data?.supporters.map((supporter) => supporter.id) ?? [];
    const paged: string[] = [];
    let after: string | null = null;
    let left: string | undefined;
    do {
      const page: { data?: { supportersConnection: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } } = await graphql(
        'query ($after: String) { supportersConnection(platform: MEMBERSHIP, orderBy: AMOUNT, first: 7, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } totalCount } }',
        { after },
      );
      const connection = page.data?.supportersConnection;
      paged.push(...(connection?.edges.map((edge) => edge.node.id) ?? []));
      after = connection?.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
      if (left === undefined && after !== null) {
        // One of the supporters already listed leaves: the next page neither repeats nor skips anyone.
        left = paged[0];
        const index = app.sandbox.datasets.membership.indexOf(left as string);
        app.sandbox.datasets.membership.override(index as number, { patronStatus: 'former_patron' });
        await app.store.refresh('membership');
      }
    } while (after !== null);
    expect(paged).toEqual(ids);

    const rest = await request(app.url, 'GET', '/membership/pledges?sort=amount&limit=5');
    expect(rest.json<{ users: unknown[] }>().users).toHaveLength(5);
    expect(rest.headers.get('link')).toMatch(/^<\/membership\/pledges\?sort=amount&limit=5&cursor=[^>]+>; rel="next"$/);
  }, 120_000);

  it('answers bad input with a 4xx that says what was wrong', async () => {
    const { app, graphql } = await start();
    const bad = async (path: string, says: RegExp) => {
      const answer = await request(app.url, 'GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.json<{ detail: string }>().detail).toMatch(says);
    };
    await bad('/history?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z', /is after/);
    await bad('/history?from=2023-01-01T00:00:00Z&to=2025-01-01T00:00:00Z&interval=hour', /too fine/);
    await bad('/history?from=yesterday', /date-time/);
    await bad('/history', /"from" is required/);
    await bad('/changes?since=2025-01-01T00:00:00Z&cursor=abc.def', /cursor/);
    await bad('/changes?since=2025-01-01T00:00:00Z&limit=501', /limit/);
    await bad('/changes?since=2025-01-01T00:00:00Z&kinds=joined,vanished', /kinds/);
    await bad('/membership/pledges?limit=5&cursor=Wy0xXQ.tampered0000', /cursor/);
    const page = await request(app.url, 'GET', '/membership/pledges?limit=5&sort=since');
    const cursor = /cursor=([^>&]+)/.exec(page.headers.get('link') ?? '')?.[1] ?? '';
    // A cursor of another order is refused rather than read as some other place.
    await bad(`/membership/pledges?limit=5&sort=amount&cursor=${cursor}`, /cursor/);
    const graph = await graphql('{ supportersConnection(first: 3, after: "Wy0xXQ.tampered0000") { totalCount } history(from: "2025-02-01T00:00:00Z", to: "2025-01-01T00:00:00Z") { at } }');
    expect(graph.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT']);
    // `first` over its bound: refused before execution (its cost), or by the field.
    const over = await graphql('{ supporterChanges(since: "2025-01-01T00:00:00Z", first: 501) { pageInfo { hasNextPage } } }');
    expect(over.errors?.[0]?.message).toMatch(/first|cost/i);
  }, 60_000);

  if (backend.name === 'PostgreSQL') {
    it('serves the current data while the database is down, and records what changed meanwhile once it is back', async () => {
      const { app, graphql } = await start();
      const server = backend.server;
      if (server === undefined) throw new Error('no server');
      const since = new Date(Date.now() - 60_000).toISOString();
      await server.stop();
      try {
        await changeSupporters(app, 10);
        const answer = await graphql<{ history: unknown; supporters: unknown[] }>(
          'query ($since: DateTime!) { supporters(platform: MEMBERSHIP) { id } history(from: $since) { at } }',
          { since },
        );
        expect(answer.data?.history).toBeNull();
        expect(answer.data?.supporters.length).toBeGreaterThan(0);
        expect(answer.errors?.[0]?.extensions?.code).toBe('HISTORY_UNAVAILABLE');
        const rest = await request(app.url, 'GET', `/history?from=${encodeURIComponent(since)}`);
        expect(rest.status).toBe(503);
        expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await request(app.url, 'GET', '/membership/pledges')).status).toBe(200);
        const ready = await fetch(`${app.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as { degraded?: string[] }).degraded?.[0]).toMatch(/history/);
      } finally {
        await server.start();
      }
      await eventually('the backlog to be recorded', async () => {
        await app.history.recorder.settled();
        return app.history.recorder.backlog.length === 0 && app.history.health().state === 'open';
      }, { timeoutMs: 60_000 });
      const changes = await request(app.url, 'GET', `/changes?since=${encodeURIComponent(since)}`);
      const recorded = changes.json<{ changes: Array<{ kind: string; supporter_id: string }> }>().changes;
      expect(recorded.filter((change) => change.kind === 'left')).toHaveLength(1);
      expect(new Set(recorded.map((change) => change.supporter_id)).size).toBe(recorded.length);
    }, 120_000);
  }
});
