/**
 * A downstream app of channel-graph, without React: urql with its normalized cache (graphcache),
 * running the package's typed operations. Everything it needs comes from the package:
 * - `@channel-graph/client/graphql`: the operations as typed documents (result and variable types inferred);
 * - `@channel-graph/client/graphql-cache`: the schema introspection graphcache needs to resolve fragments on
 *   the `Supporter` interface to `Patron` or `ChannelMember`.
 *
 * In an app: `npm install @channel-graph/client @urql/core @urql/exchange-graphcache graphql`. Here:
 * `npm start` in one terminal, `npx tsx examples/downstream/main.ts [graph URL]` in another.
 */
import { Client, fetchExchange, type AnyVariables, type TypedDocumentNode } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { ChannelStatisticsDocument, SupportersDocument, TopSupporterDocument } from '@channel-graph/client/graphql';
import { schema } from '@channel-graph/client/graphql-cache';

const url = process.argv[2] ?? 'http://localhost:4000/graphql';

const client = new Client({
  url,
  // ChannelStats has no id: it is kept inside its parent instead of being normalized.
  exchanges: [cacheExchange({ schema, keys: { ChannelStats: () => null } }), fetchExchange],
});

/** Runs one operation; its data is typed by the document. */
async function run<TData, TVariables extends AnyVariables>(document: TypedDocumentNode<TData, TVariables>, variables: TVariables): Promise<TData> {
  const { data, error } = await client.query(document, variables).toPromise();
  if (error) throw error;
  if (!data) throw new Error('no data');
  return data;
}

const { supporters } = await run(SupportersDocument, { orderBy: 'AMOUNT' });
// `__typename` narrows the union: lifetimeCents only exists on patrons, daysAtTier on members.
const patrons = supporters.flatMap((supporter) => (supporter.__typename === 'Patron' ? [supporter] : []));
const members = supporters.flatMap((supporter) => (supporter.__typename === 'ChannelMember' ? [supporter] : []));
const { topSupporter } = await run(TopSupporterDocument, {});
const { stats } = await run(ChannelStatisticsDocument, {});

console.log(
  JSON.stringify({
    supporters: supporters.length,
    patrons: patrons.map((patron) => ({ id: patron.id, lifetimeCents: patron.lifetimeCents })),
    members: members.map((member) => ({ id: member.id, daysAtTier: member.daysAtTier })),
    topSupporter: topSupporter ? { __typename: topSupporter.__typename, id: topSupporter.id, amountCents: topSupporter.amountCents } : null,
    subscribers: stats?.subscribers ?? null,
  }),
);
