import { createGraphQLError, type Plugin } from 'graphql-yoga';

/** Largest document (UTF-8 bytes) by default: the longest operation the package ships is 323 bytes. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024;

/**
 * What a request may carry besides its document: variables, extensions, operationName, and the JSON
 * escaping of all of them. The POST body limit is the document limit plus this.
 */
export const REQUEST_ALLOWANCE_BYTES = 64 * 1024;

/** Node's default request-head limit (URL and headers), `--max-http-header-size`. */
const NODE_DEFAULT_HEAD_BYTES = 16 * 1024;

/** `extensions.code` of a document over the limit. */
export const DOCUMENT_TOO_LARGE = 'DOCUMENT_TOO_LARGE';

/** The POST body limit that follows from a document limit. */
export function requestBodyLimitFor(maxDocumentBytes: number): number {
  return maxDocumentBytes + REQUEST_ALLOWANCE_BYTES;
}

/**
 * The request-head limit (node:http's `maxHeaderSize`) a server needs so that a GET can carry a
 * document of the maximum size, percent-encoded (at most 3 bytes per byte), with the usual headers;
 * below it, a GET over the document limit is answered 414 with a GraphQL error (above it, Node
 * answers 431 itself).
 */
export function requestHeadLimitFor(maxDocumentBytes: number): number {
  return 3 * maxDocumentBytes + NODE_DEFAULT_HEAD_BYTES;
}

/**
 * Refuses a document over `maxDocumentBytes` before it is lexed: 413 for a POST, 414 (URI Too Long)
 * for a GET. The body limit has already bounded what was read (src/graphql/request-body-limit.ts).
 */
export function useDocumentLimit(maxDocumentBytes: number): Plugin {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit: shorter texts are within the limit uncounted.
  const surelyWithin = Math.floor(maxDocumentBytes / 3);
  return {
    onParams({ params, request }) {
      const { query } = params;
      if (typeof query !== 'string' || query.length <= surelyWithin) return;
      const bytes = Buffer.byteLength(query, 'utf8');
      if (bytes <= maxDocumentBytes) return;
      throw createGraphQLError(`The GraphQL document is ${bytes} bytes; this server accepts documents of up to ${maxDocumentBytes} bytes.`, {
        extensions: { code: DOCUMENT_TOO_LARGE, http: { status: request.method === 'GET' ? 414 : 413 } },
      });
    },
  };
}
