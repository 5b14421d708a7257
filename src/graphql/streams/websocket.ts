import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { ChannelGraphYoga } from '../channel-graph.js';
import type { GraphSettings } from '../graph-settings.js';
import { DOCUMENT_TOO_LARGE, requestBodyLimitFor } from '../plugins/document-limit.js';
import { createDocumentResolver, type PersistedDocuments } from '../plugins/trusted-documents.js';

/**
 * GraphQL over WebSocket (the graphql-ws protocol, subprotocol `graphql-transport-ws`) on the
 * graph's endpoint: `ws` accepts the upgrades the node:http server hands over, graphql-ws speaks
 * the protocol, and every operation runs through the graph's own envelop pipeline (yoga's
 * `getEnveloped`), so the limits, the document cache, error masking and the executors are the ones
 * of HTTP. Trusted-documents mode is applied here, since it is a step of yoga's HTTP pipeline.
 */
export interface GraphWebSocketOptions {
  graph: ChannelGraphYoga;
  settings: Pick<GraphSettings, 'maxDocumentBytes' | 'trustedDocumentsOnly' | 'development'>;
  persistedDocuments: PersistedDocuments;
  /** Connections open at once; one more is refused (HTTP 503 before the upgrade). Default 1,000. */
  maxConnections?: number;
}

export interface GraphWebSocketServer {
  /** For the node:http server's 'upgrade' event on the graph's endpoint. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly openConnections: number;
  /** Closes every connection (1001 Going Away after ending the subscriptions) and refuses new ones. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_WEBSOCKET_CONNECTIONS = 1000;
/** The protocol's close code for a server going down (RFC 6455 §7.4.1). */
const GOING_AWAY = 1001;
/** How long close() lets the Complete messages of ended subscriptions go out before closing the sockets. */
const COMPLETE_GRACE_MS = 50;

/** The executors envelop made for this operation, carried to graphql-ws's execute/subscribe in rootValue. */
type OperationResult = ReturnType<NonNullable<ServerOptions['execute']>>;
interface Executors {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
}

/** What `getEnveloped` returns, typed (@envelop/types resolves it to any in this tree). */
interface Enveloped extends Executors {
  schema: GraphQLSchema;
  contextFactory: () => unknown;
  parse: (source: string) => DocumentNode;
  validate: (schema: GraphQLSchema, document: DocumentNode) => readonly GraphQLError[];
}

/** By name too: the limit plugins' errors may come from another copy of graphql than ours. */
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError || (error instanceof Error && error.name === 'GraphQLError');
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

export function createGraphWebSocketServer(options: GraphWebSocketOptions): GraphWebSocketServer {
  const { graph, settings } = options;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_WEBSOCKET_CONNECTIONS;
  const resolveDocument = createDocumentResolver(options.persistedDocuments, { only: settings.trustedDocumentsOnly });
  // A message carries one document plus variables: the same bound as an HTTP POST body.
  const wss = new WebSocketServer({ noServer: true, maxPayload: requestBodyLimitFor(settings.maxDocumentBytes) });
  let closing = false;

  const protocol = useServer<Record<string, unknown>, Record<string, never>>(
    {
      isProd: !settings.development,
      execute: (args) => (args.rootValue as Executors).execute(args),
      subscribe: (args) => (args.rootValue as Executors).subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const document = resolveDocument(payload);
        if (typeof document !== 'string') return [document];
        if (Buffer.byteLength(document, 'utf8') > settings.maxDocumentBytes) {
          return [new GraphQLError(`The GraphQL document is larger than ${settings.maxDocumentBytes} bytes, the most this server accepts.`, { extensions: { code: DOCUMENT_TOO_LARGE } })];
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = graph.getEnveloped({ ...ctx, params: payload }) as Enveloped;
        let parsed: DocumentNode;
        try {
          parsed = parse(document);
        } catch (error) {
          // The token limit and syntax errors are GraphQLErrors; anything else is a bug.
          if (isGraphQLError(error)) return [error];
          throw error;
        }
        let errors: readonly GraphQLError[];
        try {
          errors = validate(schema, parsed);
        } catch (error) {
          // The limits refuse a document by throwing from validation (limits.ts).
          if (isGraphQLError(error)) return [error];
          throw error;
        }
        if (errors.length > 0) return errors;
        const executors: Executors = { execute, subscribe };
        return {
          schema,
          operationName: payload.operationName,
          document: parsed,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          rootValue: executors,
        };
      },
    },
    wss,
  );

  return {
    handleUpgrade(request, socket, head) {
      if (closing || wss.clients.size >= maxConnections) {
        refuseUpgrade(socket, 503, 'Service Unavailable');
        return;
      }
      wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request));
    },
    get openConnections() {
      return wss.clients.size;
    },
    async close() {
      closing = true;
      // The subscriptions ended by the event log send their Complete message on the next turns.
      await new Promise((resolve) => setTimeout(resolve, COMPLETE_GRACE_MS));
      for (const client of wss.clients) client.close(GOING_AWAY, 'server shutting down');
      await protocol.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
