import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { getVariableValues, Kind, type ExecutionArgs } from 'graphql';
import type { Plugin, YogaInitialContext, YogaServerInstance } from 'graphql-yoga';
import { createChannelGraphContext, createSnapshotIndexes, type ChannelGraphContext, type ChannelGraphStore } from './context.js';
import type { GraphSettings } from './graph-settings.js';
import { usePartialErrors } from './partial-errors.js';
import { createResponseCache } from './response-cache.js';
import { createChannelResolvers } from './resolvers.js';
import { createGraphServer } from './server.js';
import { CODEGEN_PERSISTED_DOCUMENTS, useTrustedDocuments, type PersistedDocuments } from './trusted-documents.js';

export { DEFAULT_GRAPH_SETTINGS, readGraphSettings, type GraphSettings } from './graph-settings.js';
export { PERSISTED_DOCUMENTS_PATH } from './trusted-documents.js';
export { UPSTREAM_UNAVAILABLE } from './upstream-error.js';

/** schema/ at the package root: two levels up from src/graphql/, three from dist/src/graphql/. */
const SCHEMA_DIR = [new URL('../../schema', import.meta.url), new URL('../../../schema', import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, 'channel.graphql')));

/** What GraphiQL shows first: one query touching every part of the graph. */
const GRAPHIQL_DEFAULT_QUERY = `# The channel graph. Press the run button (or Ctrl+Enter).
{
  topSupporter {
    __typename
    name
    amountCents
    tier { title }
  }
  tiers(platform: MEMBERSHIP) {
    title
    amountCents
    supporters { name since }
  }
  stats { subscribers fetchedAt stale }
}
`;

export interface ChannelGraphOptions {
  /** The snapshot store (or anything that reads snapshots and reports changes the same way). */
  store: ChannelGraphStore;
  settings: GraphSettings;
  /** The trusted documents; default: the codegen manifest generated/client/persisted-documents.json. */
  persistedDocuments?: PersistedDocuments;
}

export type ChannelGraph = YogaServerInstance<Record<string, never>, ChannelGraphContext>;

type GraphPlugin = Plugin<YogaInitialContext & ChannelGraphContext>;

/** A plugin that never reads the context works with any context (its hooks only widen the type). */
function withAnyContext(plugin: Plugin | Plugin<ChannelGraphContext>): GraphPlugin {
  return plugin as GraphPlugin;
}

/**
 * Which executions graphql-jit may run; the rest run on yoga's executor, which follows the spec.
 * - @envelop/graphql-jit caches the compiled query by document only, not by operationName: a document
 *   holding several operations would run whichever one was compiled first for every operationName.
 *   So only documents with one operation are compiled (yoga has already refused an operationName that
 *   does not select it).
 * - A compiled query reports variables that fail coercion (a missing non-null variable, a wrong type)
 *   as an execution result, so yoga would answer 200; graphql-js raises them as a request error, which
 *   GraphQL over HTTP answers with 400 under `application/graphql-response+json`. Coercing first
 *   (cheap, and only for operations that declare variables) keeps that behaviour.
 */
function jitCanRun({ schema, document, variableValues }: ExecutionArgs): boolean {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const [operation] = operations;
  if (operations.length !== 1 || operation === undefined) return false;
  const variables = operation.variableDefinitions ?? [];
  return variables.length === 0 || getVariableValues(schema, variables, variableValues ?? {}).errors === undefined;
}

/** graphql-armor's five limits; each rejection names the limit and the value found. */
function useLimits(settings: GraphSettings): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: settings.maxDepth },
    maxAliases: { n: settings.maxAliases },
    maxTokens: { n: settings.maxTokens },
    maxDirectives: { n: settings.maxDirectives },
    costLimit: { maxCost: settings.maxCost },
    // "Did you mean …?" hints leak the schema; keep them for developers only.
    blockFieldSuggestion: { enabled: settings.production },
  });
}

/**
 * The channel graph over HTTP (yoga at `/graphql`): schema/channel.graphql with typed resolvers over
 * the snapshot store, and the production plugins of GraphSettings. Stops listening to the store when
 * the yoga instance is disposed (`await yoga.dispose()`).
 */
export function createChannelGraph(options: ChannelGraphOptions): ChannelGraph {
  const { store, settings } = options;
  const indexes = createSnapshotIndexes(store);
  const plugins: GraphPlugin[] = [
    useLimits(settings),
    ...useTrustedDocuments(options.persistedDocuments ?? CODEGEN_PERSISTED_DOCUMENTS, { only: settings.trustedDocumentsOnly }),
    usePartialErrors(),
    { onDispose: () => indexes.close() },
  ].map(withAnyContext);
  if (settings.jit) plugins.push(withAnyContext(useGraphQlJit({}, { enableIf: jitCanRun }) as Plugin));

  if (SCHEMA_DIR === undefined) throw new Error('schema/channel.graphql not found beside the package');
  return createGraphServer<ChannelGraphContext>({
    schemaDir: SCHEMA_DIR,
    resolvers: createChannelResolvers(indexes),
    plugins,
    context: () => createChannelGraphContext(store, indexes),
    maskedErrors: settings.maskErrors ? true : { isDev: true },
    // A field added to the SDL without a resolver: production refuses to start, development warns.
    missingResolvers: settings.production ? 'error' : 'warn',
    extraParamNames: ['documentId'],
    graphiql: settings.graphiql ? { title: 'Channel graph', defaultQuery: GRAPHIQL_DEFAULT_QUERY } : false,
    renderGraphiQL: async (graphiqlOptions) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(graphiqlOptions),
    landingPage: false,
  });
}

/** What the app mounts at /graphql: the graph, behind the response cache when it is on. */
export interface ChannelGraphHandler {
  graph: ChannelGraph;
  requestListener(request: IncomingMessage, response: ServerResponse): void;
  dispose(): Promise<void>;
}

/**
 * The channel graph with the response cache (GraphSettings.responseCache) in front of it at the
 * HTTP level: a repeated request is answered from memory without entering yoga at all, which is
 * what lets a cached answer approach a raw node:http server (see bench/graph).
 */
export function createChannelGraphHandler(options: ChannelGraphOptions): ChannelGraphHandler {
  const graph = createChannelGraph(options);
  const { settings, store } = options;
  if (!settings.responseCache) {
    return { graph, requestListener: (request, response) => void graph.requestListener(request, response), dispose: async () => graph.dispose() };
  }
  const cache = createResponseCache(store, { ttlMs: settings.responseCacheTtlSeconds * 1000 });
  const requestListener = cache.listener(
    (request) => graph.fetch(request),
    (request, response) => void graph.requestListener(request, response),
    (error) => graph.logger.error(error),
  );
  return {
    graph,
    requestListener,
    async dispose() {
      cache.close();
      await graph.dispose();
    },
  };
}
