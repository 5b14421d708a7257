import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin, YogaInitialContext, YogaLogger, YogaServerInstance } from 'graphql-yoga';
import { ChannelEventLog } from '../channel/supporter-events.js';
import { NO_COMPRESSION, type Compression } from '../lib/compression.js';
import type { ChannelHistory } from '../history/history-service.js';
import type { Notifications } from '../notifications/notifications.js';
import type { GraphSettings } from './graph-settings.js';
import { createGraphiQLAssets } from './graphiql/graphiql-assets.js';
import { useGraphiQLOffPage } from './graphiql/graphiql-off.js';
import { useCompressedAnswers } from './plugins/compressed-answers.js';
import { requestHeadLimitFor } from './plugins/document-limit.js';
import { withValidHost } from './plugins/host-header.js';
import { useLimits } from './plugins/limits.js';
import { usePartialErrors } from './plugins/partial-errors.js';
import { CODEGEN_PERSISTED_DOCUMENTS, useTrustedDocuments, type PersistedDocuments } from './plugins/trusted-documents.js';
import { createChannelGraphContext, createSnapshotIndexes, type ChannelGraphContext, type ChannelGraphStore } from './schema/context.js';
import { createChannelResolvers, type ChannelEvents } from './schema/resolvers.js';
import { createGraphServer, type ReloadSchema } from './server.js';
import { createResponseCache } from './speed/response-cache.js';
import { createSharedSubscriptions } from './streams/shared-subscriptions.js';
import { useStreamedResponses } from './streams/streamed-responses.js';

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

/** Where the graph is served. */
const GRAPHQL_ENDPOINT = '/graphql';

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
   * More plugins (metrics, spans, an authentication…), after the graph's own and the response
   * cache: every one of them runs on every request, a cached answer's included.
   */
  plugins?: Array<Plugin | Plugin<YogaInitialContext> | Plugin<ChannelGraphContext>>;
  /**
   * What of the caller an answer depends on, for the response cache's key (speed/response-cache.ts);
   * undefined: that answer is not kept. Default nothing: the graph's resolvers read only the
   * snapshots, so every caller gets the same answer. A plugin that makes answers depend on the caller
   * (through the context) gives this with it.
   */
  responseCacheScope?: (context: ChannelGraphContext) => string | undefined;
  /** Where yoga logs (unexpected errors); default yoga's console logger. */
  logger?: YogaLogger;
  /** Told the result of every response-cache lookup (true: a hit). */
  onResponseCacheLookup?: (hit: boolean) => void;
  /**
   * Development only (default false): the graph gets `reloadSchema()`, which serves the SDL under
   * schema/ as it is now without a restart (server.ts `onReloadSchema`). Off, nothing of it is built.
   */
  reloadableSchema?: boolean;
  /** How answers are compressed (src/lib/compression.ts): yoga's, the response cache's and GraphiQL's files. Default never. */
  compression?: Compression;
}

export type ChannelGraphYoga = YogaServerInstance<Record<string, never>, ChannelGraphContext>;

/** What the app mounts at /graphql. */
export interface ChannelGraph {
  /** The yoga server: every request goes through its plugins (graphql-ws uses its `getEnveloped`). */
  readonly yoga: ChannelGraphYoga;
  /** yoga's node:http listener, behind the Host check (plugins/host-header.ts). */
  requestListener(request: IncomingMessage, response: ServerResponse): void;
  /**
   * The request-head limit (node:http `maxHeaderSize`) the server should have, so that a GET can carry
   * a document of the maximum size (and one over it is answered 414 with a GraphQL error).
   */
  readonly maxHeaderBytes: number;
  /**
   * With `reloadableSchema` (development): serves the SDL as it is now, keeping the process, the
   * store and open subscriptions (the response cache keys on the schema: no answer of the old one is
   * given again). Throws, and the served schema stays, when the SDL does not build (or a resolver
   * names a field it lacks).
   */
  readonly reloadSchema?: ReloadSchema;
  /** Stops listening to the store and ends the graph's own event log. */
  dispose(): Promise<void>;
}

/**
 * The channel graph over HTTP (yoga at `/graphql`): schema/channel.graphql with typed resolvers over
 * the snapshot store, and the production plugins of GraphSettings: the limits, trusted documents,
 * graphql-jit, the response cache (forgotten at every snapshot change), then the caller's plugins,
 * then compression.
 */
export function createChannelGraph(options: ChannelGraphOptions): ChannelGraph {
  const { store, settings } = options;
  if (SCHEMA_DIR === undefined) throw new Error('schema/channel.graphql not found beside the package');
  const indexes = createSnapshotIndexes(store);
  // The graph's own log (when none is given) is closed with the graph.
  const ownEvents = options.events === undefined ? new ChannelEventLog({ store }) : undefined;
  const events: ChannelEvents = options.events ?? (ownEvents as ChannelEventLog);
  const compression = options.compression ?? NO_COMPRESSION;
  const graphiql = settings.graphiql ? createGraphiQLAssets(GRAPHQL_ENDPOINT, { codings: compression.codings }) : undefined;
  const { responseCacheScope: scope, onResponseCacheLookup: onLookup } = options;
  const cache = settings.responseCache
    ? createResponseCache({
        ttlMs: settings.responseCacheTtlSeconds * 1000,
        compression,
        ...(scope && { scope: (context) => scope(context as ChannelGraphContext) }),
        ...(onLookup && { onLookup }),
      })
    : undefined;
  const stopClearing = cache === undefined ? undefined : store.onChange(() => cache.clear());
  const plugins = [
    ...useLimits(settings),
    ...useTrustedDocuments(options.persistedDocuments ?? CODEGEN_PERSISTED_DOCUMENTS, { only: settings.trustedDocumentsOnly }),
    // Before the response cache: it sees the partial errors, and keeps no partial answer.
    usePartialErrors(),
    useStreamedResponses(),
    // After the plugins that refuse a subscription: one execution per distinct subscription.
    createSharedSubscriptions().plugin,
    graphiql ? graphiql.plugin : useGraphiQLOffPage(GRAPHQL_ENDPOINT),
    ...(cache === undefined ? [] : [cache.plugin]),
    ...(options.plugins ?? []),
    // Last: it compresses what every other plugin has answered.
    ...(compression.codings.length > 0 ? [useCompressedAnswers(compression)] : []),
  ] as Array<Plugin<YogaInitialContext & ChannelGraphContext>>;

  let reloadSchema: ReloadSchema | undefined;
  const yoga = createGraphServer<ChannelGraphContext>({
    schemaDir: SCHEMA_DIR,
    resolvers: createChannelResolvers(indexes, events, options.history, options.notifications),
    plugins,
    context: () => createChannelGraphContext(store, indexes),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    maxDocumentBytes: settings.maxDocumentBytes,
    jit: settings.jit,
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
  return {
    yoga,
    requestListener: withValidHost((request, response) => void yoga.requestListener(request, response)),
    maxHeaderBytes: requestHeadLimitFor(settings.maxDocumentBytes),
    ...(reloadSchema !== undefined && { reloadSchema }),
    async dispose() {
      stopClearing?.();
      indexes.close();
      ownEvents?.close();
      await yoga.dispose();
    },
  };
}
