import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import { persistedDocuments, type PersistedDocuments } from '@channel-graph/client/persisted-documents';

export type { PersistedDocuments };

/** Ids are compared without their optional `sha256:` prefix: clients send either form. */
function bareId(id: string): string {
  return id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
}

/** Where the manifest is served, beside the endpoint, for clients and gateways to fetch. */
export const PERSISTED_DOCUMENTS_PATH = '/graphql/persisted-documents.json';

/**
 * The codegen manifest (generated/client/persisted-documents.json), as `@channel-graph/client` ships
 * it: the documents the server trusts are those its client sends.
 */
export const CODEGEN_PERSISTED_DOCUMENTS: PersistedDocuments = persistedDocuments;

/**
 * The document id of a request, in either convention:
 * - `documentId` (GraphQL-over-HTTP persisted documents: a POST body field or a GET query parameter),
 *   bare or prefixed `sha256:`;
 * - `extensions.persistedQuery.sha256Hash` (the Automatic Persisted Queries convention).
 */
function extractDocumentId(params: GraphQLParams & { documentId?: unknown }, request: Request): string | null {
  // A POST carries it in its body (params); only a GET's URL is read for it.
  const fromUrl = params.documentId === undefined && request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null;
  return documentIdOf({ ...params, documentId: params.documentId ?? fromUrl });
}

function documentIdOf(params: { documentId?: unknown; extensions?: Record<string, unknown> | null }): string | null {
  const { documentId } = params;
  if (typeof documentId === 'string' && documentId !== '') return bareId(documentId);
  const persistedQuery: unknown = params.extensions?.['persistedQuery'];
  if (persistedQuery !== null && typeof persistedQuery === 'object' && 'sha256Hash' in persistedQuery) {
    const hash = persistedQuery.sha256Hash;
    if (typeof hash === 'string') return bareId(hash);
  }
  return null;
}

/** The refusals of trusted-documents mode, over every transport. */
const REFUSALS = {
  notFound: { message: 'Unknown document id: it is not in the persisted-documents manifest.', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } },
  keyNotFound: { message: 'Send a query, or a documentId from the persisted-documents manifest.', extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED' } },
  persistedQueryOnly: {
    message: `Only trusted documents run on this server: send a documentId from ${PERSISTED_DOCUMENTS_PATH} instead of a query.`,
    extensions: { code: 'TRUSTED_DOCUMENTS_ONLY' },
  },
} as const;

function refusal(kind: keyof typeof REFUSALS): GraphQLError {
  return createGraphQLError(REFUSALS[kind].message, { extensions: REFUSALS[kind].extensions });
}

/**
 * Trusted documents: serves the manifest at PERSISTED_DOCUMENTS_PATH and runs a document named by its
 * id. With `only`, a request carrying its own query text is refused: only the manifest's documents run.
 */
export function useTrustedDocuments(documents: PersistedDocuments, options: { only: boolean }): Plugin[] {
  const manifestBody = JSON.stringify(documents);
  const byBareId = new Map(Object.entries(documents).map(([id, document]) => [bareId(id), document]));
  const serveManifest: Plugin = {
    onRequest(payload) {
      if (payload.url.pathname !== PERSISTED_DOCUMENTS_PATH) return;
      const { method } = payload.request;
      payload.endResponse(
        method === 'GET' || method === 'HEAD'
          ? new Response(manifestBody, { headers: { 'content-type': 'application/json; charset=utf-8' } })
          : new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }),
      );
    },
  };
  const runPersisted = usePersistedOperations({
    getPersistedOperation: (id) => byBareId.get(id) ?? null,
    allowArbitraryOperations: !options.only,
    extractPersistedOperationId: extractDocumentId,
    customErrors: {
      notFound: { ...REFUSALS.notFound, extensions: { ...REFUSALS.notFound.extensions, http: { status: 400 } } },
      keyNotFound: { ...REFUSALS.keyNotFound, extensions: { ...REFUSALS.keyNotFound.extensions, http: { status: 400 } } },
      persistedQueryOnly: { ...REFUSALS.persistedQueryOnly, extensions: { ...REFUSALS.persistedQueryOnly.extensions, http: { status: 400 } } },
    },
  });
  return [serveManifest, runPersisted];
}

/** The request of a transport outside yoga's HTTP pipeline (graphql-ws's subscribe message). */
export interface DocumentRequest {
  query?: string | null;
  documentId?: unknown;
  extensions?: Record<string, unknown> | null;
}

/**
 * Trusted documents for transports that do not go through yoga's request pipeline (graphql-ws): the
 * text to run for a request, or the error the HTTP transport would give (same codes and messages).
 */
export function createDocumentResolver(documents: PersistedDocuments, options: { only: boolean }): (request: DocumentRequest) => string | GraphQLError {
  const byBareId = new Map(Object.entries(documents).map(([id, document]) => [bareId(id), document]));
  return (request) => {
    const id = documentIdOf(request);
    if (id !== null) {
      return byBareId.get(id) ?? refusal('notFound');
    }
    if (options.only) return refusal('persistedQueryOnly');
    if (typeof request.query === 'string' && request.query !== '') return request.query;
    return refusal('keyNotFound');
  };
}
