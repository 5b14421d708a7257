/**
 * The Star Wars example graph as a yoga server: SDL from `schema/`, resolvers typed by the
 * generated types, one data access object per server (no global state).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin, YogaInitialContext, YogaServerInstance } from 'graphql-yoga';
import type { MissingResolvers } from '../../src/graphql/schema/resolver-coverage.js';
import { createGraphServer, type ReloadSchema } from '../../src/graphql/server.js';
import { createStarWarsData, type StarWarsContext, type StarWarsData } from './context.js';
import { resolvers } from './resolvers.js';

/**
 * The example's SDL, read where it is edited: beside this module, or from a build (dist/examples/starwars/)
 * three levels up, in the project. A build copies no SDL, so a regenerated SDL is what a built server
 * swaps in (the dev loop runs a build too).
 */
const schemaDirs = [new URL('schema', import.meta.url), new URL('../../../examples/starwars/schema', import.meta.url)].map((url) => fileURLToPath(url));
export const starWarsSchemaDir = schemaDirs.find((dir) => existsSync(join(dir, 'starwars.graphql'))) ?? schemaDirs[0]!;

export interface StarWarsServerOptions {
  /** The data access object (default: a fresh one over the canonical data). */
  data?: StarWarsData;
  /** Extra envelop/yoga plugins, e.g. a response cache. */
  plugins?: Array<Plugin<YogaInitialContext & StarWarsContext> | Plugin>;
  /** Serve GraphiQL on GET /graphql from a browser (default true). */
  graphiql?: boolean;
  /** Yoga's request logging (default false). */
  logging?: boolean;
  /** A schema field without a resolver: `error` (default) refuses to start, `warn` prints it and serves null. */
  missingResolvers?: MissingResolvers;
  /** Development: given what serves the SDL as it is now, without a restart (default: the start-up schema for good). */
  onReloadSchema?: (reload: ReloadSchema) => void;
}

export type StarWarsServer = YogaServerInstance<Record<string, never>, StarWarsContext>;

export function createStarWarsServer(options: StarWarsServerOptions = {}): StarWarsServer {
  const data = options.data ?? createStarWarsData();
  return createGraphServer<StarWarsContext>({
    schemaDir: starWarsSchemaDir,
    resolvers,
    plugins: options.plugins ?? [],
    context: () => ({ starWars: data }),
    graphiql: options.graphiql ?? true,
    logging: options.logging ?? false,
    missingResolvers: options.missingResolvers ?? 'error',
    ...(options.onReloadSchema && { onReloadSchema: options.onReloadSchema }),
  });
}
