import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * The executable schema of a running server, replaceable (development only: `npm run dev` swaps in
 * the schema of a regenerated SDL without a restart, so the snapshots, open subscriptions and the
 * sandbox stay). A server made without it keeps its start-up schema for its lifetime and pays
 * nothing for this.
 *
 * envelop's `setSchema` in `onEnveloped` is how a plugin chooses the schema of a request (the way
 * yoga's own schema factory does it); envelop ignores a schema that is already the current one, so
 * between two swaps this costs a comparison per request. Every request enveloped after `replace`,
 * over HTTP or a WebSocket, parses, validates and executes against the new schema; an operation
 * already executing (an open subscription) goes on with the schema it started with.
 */
export interface SchemaSwap {
  /** The plugin that serves the current schema; install once, on one server. */
  readonly plugin: Plugin;
  /** Serves `schema` from the next request on. */
  replace(schema: GraphQLSchema): void;
}

export function createSchemaSwap(initial: GraphQLSchema): SchemaSwap {
  let current = initial;
  return {
    plugin: {
      onEnveloped({ setSchema }) {
        setSchema(current);
      },
    },
    replace(schema) {
      current = schema;
    },
  };
}
