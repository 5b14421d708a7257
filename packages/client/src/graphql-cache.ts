/**
 * `@channel-graph/client/graphql-cache`: what a normalized client cache must know of the channel graph to
 * resolve fragments on the `Supporter` interface to `Patron` or `ChannelMember` (generated from
 * schema/ by codegen, so it never drifts from the SDL).
 *
 *   new InMemoryCache({ possibleTypes })              // Apollo Client
 *   cacheExchange({ schema })                         // urql's @urql/exchange-graphcache
 */
import type { IntrospectionQuery } from 'graphql';
import possibleTypesResult from '../../../generated/client/possible-types.js';
import introspection from '../../../generated/client/introspection.json' with { type: 'json' };

/** Each abstract type (interface or union) → its concrete types: Apollo Client's `possibleTypes`. */
export const possibleTypes: Record<string, string[]> = possibleTypesResult.possibleTypes;

/**
 * The schema's introspection (without descriptions): graphcache's `schema` option, or anything that
 * takes an IntrospectionQuery result (`buildClientSchema` from graphql).
 */
export const schema = introspection as unknown as IntrospectionQuery;
