import type { GraphQLError, GraphQLResolveInfo } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { UpstreamUnavailableError } from '../../channel/snapshot-store.js';

/** `extensions.code` of a field whose source has never been fetched and whose upstream is down. */
export const UPSTREAM_UNAVAILABLE = 'UPSTREAM_UNAVAILABLE';

/**
 * Turns the store's "no snapshot and upstream down" into a GraphQL error a client can act on (it
 * survives error masking because it is a GraphQLError). Anything else is rethrown unchanged: it is a
 * bug, and masking hides its details in production.
 */
export function toUpstreamUnavailable(error: unknown, info: GraphQLResolveInfo): GraphQLError {
  if (!(error instanceof UpstreamUnavailableError)) throw error;
  // Created by yoga's graphql-tools, so that yoga recognises it as a GraphQL error (and does not
  // mask it) even where two copies of `graphql` are loaded (ESM and CJS builds, as under vitest).
  return createGraphQLError(
    `The ${error.source} data is unavailable: it has not been fetched yet and its upstream is down. Retry in ${error.retryAfterSeconds} s.`,
    {
      nodes: info.fieldNodes,
      path: pathOf(info),
      extensions: { code: UPSTREAM_UNAVAILABLE, source: error.source, retryAfterSeconds: error.retryAfterSeconds },
    },
  );
}

function pathOf(info: GraphQLResolveInfo): Array<string | number> {
  const path: Array<string | number> = [];
  for (let step: GraphQLResolveInfo['path'] | undefined = info.path; step; step = step.prev) path.unshift(step.key);
  return path;
}
