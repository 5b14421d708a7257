import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocumentNode } from 'graphql';
import type { Plugin, YogaInitialContext, YogaLogger, YogaServerInstance } from 'graphql-yoga';
import { createChannelGraphContext, createSnapshotIndexes, type ChannelGraphContext, type ChannelGraphStore } from './context.js';
import type { GraphSettings } from './graph-settings.js';
import type { ExecutionObserver } from './execution-observer.js';
import { createGraphiQLAssets } from './graphiql-assets.js';
import { useGraphiQLOffPage } from './graphiql-off.js';
import { withValidHost } from './host-header.js';
import { useLimits } from './limits.js';
import { usePartialErrors } from './partial-errors.js';
import { createDocumentCache } from './document-cache.js';
import type { AnswerRequest } from './graph-answer.js';
import { acceptsWholeAnswer, isBoundedJsonPost, withReadBody } from './read-body-listener.js';
import { skippableByRepeats, type RepeatPaths } from './skippable-plugins.js';
import { createYogaAnswers } from './yoga-answers.js';
import { useCompressedAnswers } from './compressed-answers.js';
import { NO_COMPRESSION, type Compression } from '../lib/compression.js';
import type { Execution } from './jit.js';
import { createPreparedOperations } from './prepared-operations.js';
import { requestBodyLimitFor, requestHeadLimitFor } from './document-limit.js';
import { createResponseCache } from './response-cache.js';
import { createSharedSubscriptions } from './shared-subscriptions.js';
import { useStreamedResponses } from './streamed-responses.js';
import { ChannelEventLog } from '../channel/supporter-events.js';
import type { ChannelHistory } from '../history/history-service.js';
import type { Notifications } from '../notifications/notifications.js';
import { createChannelResolvers, type ChannelEvents } from './resolvers.js';
import { createGraphServer, type ReloadSchema } from './server.js';
import { CODEGEN_PERSISTED_DOCUMENTS, useTrustedDocuments, type PersistedDocuments } from './trusted-documents.js';

export { DEFAULT_GRAPH_SETTINGS, readGraphSettings, type GraphSettings } from './graph-settings.js';
export { PERSISTED_DOCUMENTS_PATH } from './trusted-documents.js';
export { UPSTREAM_UNAVAILABLE } from './upstream-error.js';
export type { ReloadSchema } from './server.js';

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
  /** The channel over time (history, changes, goals); without it those fields answer unavailable. */
  history?: ChannelHistory;
  /** The notifications' deliveries (notificationDeliveries); without it the list is empty. */
  notifications?: Notifications;
  /** The trusted documents; default: the codegen manifest generated/client/persisted-documents.json. */
  persistedDocuments?: PersistedDocuments;
  /**
   * More plugins, after the graph's own. A plugin declares which answers to a repeated request may
   * skip it (skippable-plugins.ts); one that declares nothing sees every request, and the graph then
   * answers every request through yoga: no prepared operations, no response cache.
   */
  plugins?: Array<Plugin | Plugin<YogaInitialContext>>;
  /** Where yoga logs (unexpected errors); default yoga's console logger. */
  logger?: YogaLogger;
  /**
   * Told of every execution (metrics, spans); an execution whose list fields resolved partially
   * (ChannelGraphContext.partialErrors) is reported with those errors in its result, as answered.
   */
  executionObserver?: ExecutionObserver;
  /** Told the result of every response-cache lookup (true: a hit). */
  onResponseCacheLookup?: (hit: boolean) => void;
  /**
   * Development only (default false): the handler gets `reloadSchema()`, which serves the SDL under
   * schema/ as it is now without a restart (server.ts `onReloadSchema`). Off, nothing of it is built.
   */
  reloadableSchema?: boolean;
  /**
   * How answers are compressed (src/lib/compression.ts): yoga's own answers, the prepared ones, the
   * response cache's (each kept answer once per coding) and GraphiQL's files. Default never.
   */
  compression?: Compression;
}

/**
 * The parts of the graph a variant may leave out or replace: bench/graph measures what each one is
 * worth by composing the graph without it. The service runs CHANNEL_GRAPH_PARTS.
 */
export interface ChannelGraphParts {
  /**
   * The plugins that refuse a request before anything else runs, first in the graph's list: the
   * depth, alias, directive, cost and token limits of the settings (useLimits). An authentication or
   * a rate limit goes here too, and declares nothing (skippable-plugins.ts): it then sees every request.
   */
  guards: (settings: GraphSettings) => Plugin[];
  /**
   * Answers repeated queries from their prepared operation (createPreparedOperations), with
   * graphql-jit and plugins that all allow it (skippable-plugins.ts); undefined: yoga answers them.
   */
  preparedOperations: typeof createPreparedOperations | undefined;
}

export const CHANNEL_GRAPH_PARTS: ChannelGraphParts = { guards: useLimits, preparedOperations: createPreparedOperations };

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
export function createChannelGraph(options: ChannelGraphOptions, parts: ChannelGraphParts = CHANNEL_GRAPH_PARTS): ChannelGraph {
  return createChannelGraphWith(options, parts, () => ({ front: undefined })).graph;
}

/** The graph, with what the layers in front of it run its compiled operations with. */
interface GraphWithExecution<Front> {
  graph: ChannelGraph;
  /** The layers in front of yoga, as `frontOf` made them. */
  front: Front;
  /** The executor (graphql-jit, the observer); undefined when neither is on. */
  execution: Execution | undefined;
  documentOf: (text: string) => DocumentNode | undefined;
  context: () => ChannelGraphContext;
  /** With `reloadableSchema`: serves the SDL as it is now (server.ts). */
  reloadSchema: ReloadSchema | undefined;
}

/**
 * The graph (yoga) with its plugins: the graph's own, then the caller's, then the compression of what
 * they answered; and the plugin of the layers in front of yoga, which `frontOf` makes knowing which
 * answers to a repeated request every plugin of the server allows (server.ts `frontPlugin`).
 */
function createChannelGraphWith<Front>(
  options: ChannelGraphOptions,
  parts: ChannelGraphParts,
  frontOf: (paths: RepeatPaths) => { front: Front; plugin?: Plugin<YogaInitialContext> },
): GraphWithExecution<Front> {
  const { store, settings } = options;
  const indexes = createSnapshotIndexes(store);
  // The graph's own log (when none is given) is closed with the graph.
  const ownEvents = options.events === undefined ? new ChannelEventLog({ store }) : undefined;
  const events: ChannelEvents = options.events ?? (ownEvents as ChannelEventLog);
  const compression = options.compression ?? NO_COMPRESSION;
  const graphiql = settings.graphiql ? createGraphiQLAssets(GRAPHQL_ENDPOINT, { codings: compression.codings }) : undefined;
  // Every plugin here declares which answers to a repeated request may skip it (skippable-plugins.ts);
  // one that declares nothing (an authentication, a rate limit) turns prepared and replayed answers off.
  const plugins: GraphPlugin[] = [
    ...parts.guards(settings),
    ...useTrustedDocuments(options.persistedDocuments ?? CODEGEN_PERSISTED_DOCUMENTS, { only: settings.trustedDocumentsOnly }),
    usePartialErrors(),
    useStreamedResponses(),
    // After the plugins that refuse a subscription: one execution per distinct subscription.
    createSharedSubscriptions().plugin,
    graphiql ? graphiql.plugin : useGraphiQLOffPage(GRAPHQL_ENDPOINT),
    skippableByRepeats({
      onDispose: () => {
        indexes.close();
        ownEvents?.close();
      },
    }),
    ...(options.plugins ?? []),
    // Last: it compresses what every other plugin has answered.
    ...(compression.codings.length > 0 ? [useCompressedAnswers(compression)] : []),
  ].map(withAnyContext);
  let front: { made: Front } | undefined;

  if (SCHEMA_DIR === undefined) throw new Error('schema/channel.graphql not found beside the package');
  const documentCache = createDocumentCache();
  const context = (): ChannelGraphContext => createChannelGraphContext(store, indexes);
  let execution: Execution | undefined;
  let reloadSchema: ReloadSchema | undefined;
  const graph = createGraphServer<ChannelGraphContext>({
    schemaDir: SCHEMA_DIR,
    resolvers: createChannelResolvers(indexes, events, options.history, options.notifications),
    plugins,
    frontPlugin: (paths) => {
      const made = frontOf(paths);
      front = { made: made.front };
      return made.plugin;
    },
    context,
    documentCache,
    onExecution: (made) => {
      execution = made;
    },
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    maxDocumentBytes: settings.maxDocumentBytes,
    jit: settings.jit,
    ...(options.executionObserver && { executionObserver: withPartialErrors(options.executionObserver) }),
    development: settings.development,
    maskedErrors: settings.maskErrors,
    // A field added to the SDL without a resolver: production refuses to start, development warns.
    missingResolvers: settings.development ? 'warn' : 'error',
    ...(options.reloadableSchema === true && {
      onReloadSchema: (made: ReloadSchema) => {
        reloadSchema = made;
      },
    }),
    extraParamNames: ['documentId'],
    graphiql: graphiql ? { title: 'Channel graph', defaultQuery: GRAPHIQL_DEFAULT_QUERY } : false,
    ...(graphiql && { renderGraphiQL: graphiql.render }),
    landingPage: false,
    ...(options.logger && { logging: options.logger }),
  });
  // createGraphServer calls frontPlugin before it returns.
  if (front === undefined) throw new Error('the graph server did not ask for the plugin of the layers in front of it');
  return { graph, front: front.made, execution, documentOf: documentCache.documentOf, context, reloadSchema };
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
  /**
   * With `reloadableSchema` (development): serves the SDL as it is now, keeping the process, the
   * store and open subscriptions; the cached answers of the old schema are dropped. Throws, and the
   * served schema stays, when the SDL does not build (or a resolver names a field it lacks).
   */
  reloadSchema?: ReloadSchema;
  dispose(): Promise<void>;
}

/**
 * The channel graph with the response cache (GraphSettings.responseCache) in front of it at the
 * HTTP level: a repeated request is answered from memory without entering yoga at all, which is
 * what lets a cached answer approach a raw node:http server (see bench/graph). A repeated query the
 * cache does not answer is answered by its prepared operation (with graphql-jit). Both skip every
 * plugin's hooks, so each is on only when every plugin of the graph says it may be skipped by it
 * (skippable-plugins.ts).
 */
export function createChannelGraphHandler(options: ChannelGraphOptions, parts: ChannelGraphParts = CHANNEL_GRAPH_PARTS): ChannelGraphHandler {
  const { settings, store } = options;
  const compression = options.compression ?? NO_COMPRESSION;
  const maxHeaderBytes = requestHeadLimitFor(settings.maxDocumentBytes);
  const maxRequestBytes = requestBodyLimitFor(settings.maxDocumentBytes);
  // The layers in front of yoga answer only what every plugin allows them to (skippable-plugins.ts).
  const { graph, front, execution, documentOf, context, reloadSchema } = createChannelGraphWith(options, parts, (paths) => {
    const prepare = paths.prepared && settings.jit ? parts.preparedOperations : undefined;
    const cache = settings.responseCache && paths.replayed
      ? createResponseCache(store, { ttlMs: settings.responseCacheTtlSeconds * 1000, compression, ...(options.onResponseCacheLookup && { onLookup: options.onResponseCacheLookup }) })
      : undefined;
    const yogaAnswers = cache === undefined && prepare !== undefined ? createYogaAnswers() : undefined;
    const plugin = cache?.plugin ?? yogaAnswers?.plugin;
    return { front: { paths, prepare, cache, yogaAnswers }, ...(plugin && { plugin }) };
  });
  const { paths, prepare, cache, yogaAnswers } = front;
  if (!paths.replayed) graph.logger.warn('a plugin of the graph does not say which answers may skip it (skippable-plugins.ts): yoga answers every request, without the response cache or prepared operations');
  const passThrough = (request: IncomingMessage, response: ServerResponse): void => void graph.requestListener(request, response);
  const onError = (error: unknown): void => graph.logger.error(error);
  // Requests made with yoga's own fetch classes: its parser reads their string body without a web stream.
  const handle = (request: Request): Promise<Response> | Response => graph.fetch(request);
  const fromYoga: AnswerRequest | undefined = cache?.answerer(handle, graph.fetchAPI) ?? yogaAnswers?.answerWith(handle, graph.fetchAPI);
  const prepared = prepare !== undefined && execution !== undefined && fromYoga !== undefined ? prepare({ documentOf, prepared: execution.prepared, context }) : undefined;

  let requestListener: (request: IncomingMessage, response: ServerResponse) => void = passThrough;
  if (cache !== undefined && fromYoga !== undefined) requestListener = cache.listenerFor(prepared?.answerer(fromYoga) ?? fromYoga, passThrough, onError);
  else if (prepared !== undefined && fromYoga !== undefined) {
    // No response cache: only the requests a prepared operation may answer are read here.
    const preparable = (request: IncomingMessage): boolean => request.url === GRAPHQL_ENDPOINT && isBoundedJsonPost(request, maxRequestBytes) && acceptsWholeAnswer(request);
    requestListener = withReadBody(preparable, maxRequestBytes, prepared.writer(fromYoga, compression), passThrough, onError);
  }
  return {
    graph,
    requestListener: withValidHost(requestListener),
    maxHeaderBytes,
    ...(reloadSchema !== undefined && {
      reloadSchema: () => {
        const result = reloadSchema();
        if (result === 'swapped') cache?.clear();
        return result;
      },
    }),
    async dispose() {
      cache?.close();
      await graph.dispose();
    },
  };
}
