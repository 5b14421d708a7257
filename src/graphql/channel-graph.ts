import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin, YogaInitialContext, YogaLogger, YogaServerInstance } from 'graphql-yoga';
import { createChannelGraphContext, createSnapshotIndexes, type ChannelGraphContext, type ChannelGraphStore } from './context.js';
import { requestHeadLimitFor } from './document-limit.js';
import type { GraphSettings } from './graph-settings.js';
import type { ExecutionObserver } from './execution-observer.js';
import { createGraphiQLAssets } from './graphiql-assets.js';
import { withValidHost } from './host-header.js';
import { useLimits } from './limits.js';
import { usePartialErrors } from './partial-errors.js';
import { createResponseCache } from './response-cache.js';
import { createSharedSubscriptions } from './shared-subscriptions.js';
import { useStreamedResponses } from './streamed-responses.js';
import { ChannelEventLog } from '../channel/supporter-events.js';
import { createChannelResolvers, type ChannelEvents } from './resolvers.js';
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
  /**
   * Where the subscriptions' events come from; default a log of the graph's own over `store`
   * (the app passes the one GET /events also streams, so both give the same ids).
   */
  events?: ChannelEvents;
  /** The trusted documents; default: the codegen manifest generated/client/persisted-documents.json. */
  persistedDocuments?: PersistedDocuments;
  /** More plugins, after the graph's own (the response cache's, for one). */
  plugins?: Array<Plugin | Plugin<YogaInitialContext>>;
  /** Where yoga logs (unexpected errors); default yoga's console logger. */
  logger?: YogaLogger;
  /**
   * The depth, alias, directive, cost and token limits of `settings` (default true). Off only to
   * measure what they cost (bench/graph): a server exposed to anyone keeps them.
   */
  limits?: boolean;
  /**
   * Told of every execution (metrics, spans); an execution whose list fields resolved partially
   * (ChannelGraphContext.partialErrors) is reported with those errors in its result, as answered.
   */
  executionObserver?: ExecutionObserver;
  /** Told the result of every response-cache lookup (true: a hit). */
  onResponseCacheLookup?: (hit: boolean) => void;
}

/** Where the graph is served. */
const GRAPHQL_ENDPOINT = '/graphql';

export type ChannelGraph = YogaServerInstance<Record<string, never>, ChannelGraphContext>;

type GraphPlugin = Plugin<YogaInitialContext & ChannelGraphContext>;

/** A plugin that never reads the context works with any context (its hooks only widen the type). */
function withAnyContext(plugin: Plugin | Plugin<ChannelGraphContext> | Plugin<YogaInitialContext>): GraphPlugin {
  return plugin as GraphPlugin;
}

/** The observer, told of the partial errors usePartialErrors adds to the answer after execution. */
function withPartialErrors(observer: ExecutionObserver): ExecutionObserver {
  return {
    operation(document, operationName) {
      const operation = observer.operation(document, operationName);
      return {
        ...(operation.started && { started: () => operation.started?.() }),
        done(result, contextValue, seconds) {
          const { partialErrors } = contextValue as ChannelGraphContext;
          operation.done(partialErrors.length === 0 || result.errors !== undefined ? result : { ...result, errors: partialErrors }, contextValue, seconds);
        },
      };
    },
  };
}

/**
 * The channel graph over HTTP (yoga at `/graphql`): schema/channel.graphql with typed resolvers over
 * the snapshot store, and the production plugins of GraphSettings. Stops listening to the store when
 * the yoga instance is disposed (`await yoga.dispose()`).
 */
export function createChannelGraph(options: ChannelGraphOptions): ChannelGraph {
  const { store, settings } = options;
  const indexes = createSnapshotIndexes(store);
  // The graph's own log (when none is given) is closed with the graph.
  const ownEvents = options.events === undefined ? new ChannelEventLog({ store }) : undefined;
  const events: ChannelEvents = options.events ?? (ownEvents as ChannelEventLog);
  const graphiql = settings.graphiql ? createGraphiQLAssets(GRAPHQL_ENDPOINT) : undefined;
  const plugins: GraphPlugin[] = [
    ...(options.limits === false ? [] : useLimits(settings)),
    ...useTrustedDocuments(options.persistedDocuments ?? CODEGEN_PERSISTED_DOCUMENTS, { only: settings.trustedDocumentsOnly }),
    usePartialErrors(),
    useStreamedResponses(),
    // After the plugins that refuse a subscription: one execution per distinct subscription.
    createSharedSubscriptions().plugin,
    ...(graphiql ? [graphiql.plugin] : []),
    {
      onDispose: () => {
        indexes.close();
        ownEvents?.close();
      },
    },
    ...(options.plugins ?? []),
  ].map(withAnyContext);

  if (SCHEMA_DIR === undefined) throw new Error('schema/channel.graphql not found beside the package');
  return createGraphServer<ChannelGraphContext>({
    schemaDir: SCHEMA_DIR,
    resolvers: createChannelResolvers(indexes, events),
    plugins,
    context: () => createChannelGraphContext(store, indexes),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    maxDocumentBytes: settings.maxDocumentBytes,
    jit: settings.jit,
    ...(options.executionObserver && { executionObserver: withPartialErrors(options.executionObserver) }),
    development: settings.development,
    maskedErrors: settings.maskErrors,
    // A field added to the SDL without a resolver: production refuses to start, development warns.
    missingResolvers: settings.development ? 'warn' : 'error',
    extraParamNames: ['documentId'],
    graphiql: graphiql ? { title: 'Channel graph', defaultQuery: GRAPHIQL_DEFAULT_QUERY } : false,
    ...(graphiql && { renderGraphiQL: graphiql.render }),
    landingPage: false,
    ...(options.logger && { logging: options.logger }),
  });
}

/** What the app mounts at /graphql: the graph, behind the response cache when it is on. */
export interface ChannelGraphHandler {
  graph: ChannelGraph;
  requestListener(request: IncomingMessage, response: ServerResponse): void;
  /**
   * The request-head limit (node:http `maxHeaderSize`) the server should have, so that a GET can carry
   * a document of the maximum size (and one over it is answered 414 with a GraphQL error).
   */
  maxHeaderBytes: number;
  dispose(): Promise<void>;
}

/**
 * The channel graph with the response cache (GraphSettings.responseCache) in front of it at the
 * HTTP level: a repeated request is answered from memory without entering yoga at all, which is
 * what lets a cached answer approach a raw node:http server (see bench/graph).
 */
export function createChannelGraphHandler(options: ChannelGraphOptions): ChannelGraphHandler {
  const { settings, store } = options;
  const maxHeaderBytes = requestHeadLimitFor(settings.maxDocumentBytes);
  if (!settings.responseCache) {
    const graph = createChannelGraph(options);
    return {
      graph,
      requestListener: withValidHost((request, response) => void graph.requestListener(request, response)),
      maxHeaderBytes,
      dispose: async () => graph.dispose(),
    };
  }
  const cache = createResponseCache(store, { ttlMs: settings.responseCacheTtlSeconds * 1000, ...(options.onResponseCacheLookup && { onLookup: options.onResponseCacheLookup }) });
  const graph = createChannelGraph({ ...options, plugins: [...(options.plugins ?? []), cache.plugin] });
  const requestListener = cache.listener(
    (request) => graph.fetch(request),
    (request, response) => void graph.requestListener(request, response),
    (error) => graph.logger.error(error),
  );
  return {
    graph,
    requestListener: withValidHost(requestListener),
    maxHeaderBytes,
    async dispose() {
      cache.close();
      await graph.dispose();
    },
  };
}
