import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ChannelStatisticsDocument,
  GraphQLRequestError,
  MemberByIdDocument,
  request,
  SupportersDocument,
  TiersWithSupportersDocument,
  TopSupporterDocument,
  type SupportersQuery,
  type TypedDocumentNode,
} from '@channel-graph/client/graphql';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxControl } from '../http/harness.js';
import { listOf, query, startGraphApp, startLiveApp } from './graph-harness.js';

/** `@channel-graph/client/graphql`: the typed documents and `request`, against the running app. */
describe('request with the generated documents', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let endpoint: string;
  beforeAll(async () => {
    started = await startGraphApp({ trustedDocumentsOnly: true });
    endpoint = `${started.app.url}/graphql`;
  });
  afterAll(() => started.close());

  it('runs each operation by its document id (so it works on a trusted-documents-only server), typed by the document', async () => {
    const { supporters } = await request(endpoint, SupportersDocument, { platform: 'VIDEO', orderBy: 'AMOUNT' });
    expectTypeOf(supporters).toEqualTypeOf<SupportersQuery['supporters']>();
    expect(supporters.length).toBeGreaterThan(0);
    for (const supporter of supporters) {
      expect(supporter.__typename).toBe('ChannelMember');
      if (supporter.__typename === 'ChannelMember') expectTypeOf(supporter.daysAtTier).toEqualTypeOf<number | null>();
    }
    const amounts = supporters.map((s) => s.amountCents);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));

    const { topSupporter } = await request(endpoint, TopSupporterDocument);
    expect(topSupporter?.amountCents).toBe(Math.max(...(await request(endpoint, SupportersDocument)).supporters.map((s) => s.amountCents)));

    const { tiers } = await request(endpoint, TiersWithSupportersDocument, { platform: 'MEMBERSHIP' });
    expect(tiers.every((tier) => tier.platform === 'MEMBERSHIP')).toBe(true);

    const { stats } = await request(endpoint, ChannelStatisticsDocument);
    expectTypeOf(stats).toEqualTypeOf<{ subscribers: number | null; fetchedAt: string; stale: boolean } | null>();
    expect(stats?.stale).toBe(false);

    const { member } = await request(endpoint, MemberByIdDocument, { id: 'nobody' });
    expect(member).toBeNull();
  });

  it('persisted: false sends the text made by `print`, which a trusted-documents-only server refuses with a GraphQLRequestError', async () => {
    const error = await request(endpoint, ChannelStatisticsDocument, {}, { persisted: false, print }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GraphQLRequestError);
    expect((error as GraphQLRequestError).errors[0]?.extensions?.code).toBe('TRUSTED_DOCUMENTS_ONLY');
  });

  it('persisted: false without `print` on a generated document (no source text): a TypeError before anything is sent', async () => {
    const failing = await request(endpoint, ChannelStatisticsDocument, {}, { persisted: false, fetch: () => Promise.reject(new Error('sent')) }).catch((caught: unknown) => caught);
    expect(failing).toBeInstanceOf(TypeError);
    expect((failing as Error).message).toContain('pass `print`');
  });

  it('sends a parsed document without an id as its source text, no `print` needed', async () => {
    const open = await startGraphApp();
    try {
      const document: TypedDocumentNode<{ stats: { stale: boolean } | null }, Record<string, never>> = parse('query Staleness { stats { stale } }');
      expect(await request(`${open.app.url}/graphql`, document)).toEqual({ stats: { stale: false } });
    } finally {
      await open.close();
    }
  });

  it('gives the same data as the raw query text', async () => {
    const typed = await request(endpoint, SupportersDocument, { platform: 'MEMBERSHIP' });
    const open = await startGraphApp();
    try {
      const raw = await query(open.app.url, '{ supporters(platform: MEMBERSHIP) { id } }');
      expect(typed.supporters.map((s) => s.id)).toEqual(listOf<{ id: string }>(raw.data!.supporters).map((s) => s.id));
    } finally {
      await open.close();
    }
  });
});

describe('request when a source is unavailable', () => {
  let sandbox: RunningSandbox;
  let started: Awaited<ReturnType<typeof startLiveApp>>;
  beforeAll(async () => {
    sandbox = await startSandbox();
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'membership', status: 500 });
    started = await startLiveApp(sandbox);
  });
  afterAll(async () => {
    await started.close();
    await sandbox.close();
  });

  it('rejects with the UPSTREAM_UNAVAILABLE errors and keeps the partial data', async () => {
    const error = await request(`${started.app.url}/graphql`, SupportersDocument).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GraphQLRequestError);
    const failure = error as GraphQLRequestError<{ supporters: Array<{ __typename: string }> }>;
    expect(failure.errors.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(failure.data?.supporters.length).toBeGreaterThan(0);
    expect(failure.data?.supporters.every((s) => s.__typename === 'ChannelMember')).toBe(true);
  });
});
