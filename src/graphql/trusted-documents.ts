import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import codegenManifest from '../../generated/client/persisted-documents.json' with { type: 'json' };

/** Document id → document text, as emitted by the codegen client preset (ids `sha256:<hex>`). */
export type PersistedDocuments = Readonly<Record<string, string>>;

/** Ids are compared without their optional `sha256:` prefix: clients send either form. */
function bareId(id: string): string {
  return id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
}

/** Where the manifest is served, beside the endpoint, for clients and gateways to fetch. */
export const PERSISTED_DOCUMENTS_PATH = '/graphql/persisted-documents.json';

/**
 * The codegen manifest (generated/client/persisted-documents.json). Imported rather than read from
 * disk so that the compiler copies it into dist/ beside the code that serves it.
 */
export const CODEGEN_PERSISTED_DOCUMENTS: PersistedDocuments = codegenManifest;

/**
 * The document id of a request, in either convention:
 * - `documentId` (GraphQL-over-HTTP persisted documents: a POST body field or a GET query parameter),
 *   bare or prefixed `sha256:`;
 * - `extensions.persistedQuery.sha256Hash` (the Automatic Persisted Queries convention).
 */
function extractDocumentId(params: GraphQLParams & { documentId?: unknown }, request: Request): string | null {
  const documentId = params.documentId ?? new URL(request.url).searchParams.get('documentId');
  if (typeof documentId === 'string' && documentId !== '') return bareId(documentId);
  const persistedQuery: unknown = params.extensions?.['persistedQuery'];
  if (persistedQuery !== null && typeof persistedQuery === 'object' && 'sha256Hash' in persistedQuery) {
    const hash = persistedQuery.sha256Hash;
    if (typeof hash === 'string') return bareId(hash);
  }
  return null;
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
      notFound: { message: 'Unknown document id: it is not in the persisted-documents manifest.', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } } },
      keyNotFound: { message: 'Send a query, or a documentId from the persisted-documents manifest.', extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } } },
      persistedQueryOnly: { message: `Only trusted documents run on this server: send a documentId from ${PERSISTED_DOCUMENTS_PATH} instead of a query.`, extensions: { code: 'TRUSTED_DOCUMENTS_ONLY', http: { status: 400 } } },
    },
  });
  return [serveManifest, runPersisted];
}
