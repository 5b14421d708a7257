/**
 * `@channel-graph/client/graphql`: the channel graph's typed operations (generated from
 * packages/client/operations/*.graphql by the codegen client preset) and a small typed `request`
 * helper, which sends a document by its persisted id: no graphql-js at run time unless the caller
 * brings it (`print`, for documents sent as text).
 *
 *   const { supporters } = await request(url, SupportersDocument, { platform: 'VIDEO' });
 *   //      ^? Array<{ __typename: 'ChannelMember'; daysAtTier?: number | null; … } | { __typename: 'Patron'; … }>
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { DocumentNode } from 'graphql';

export * from '../../../generated/client/graphql.js';
export type { TypedDocumentNode } from '@graphql-typed-document-node/core';

/** One entry of a GraphQL response's `errors` (GraphQL spec §7.1.2). */
export interface GraphQLErrorPayload {
  message: string;
  path?: ReadonlyArray<string | number>;
  locations?: ReadonlyArray<{ line: number; column: number }>;
  /** For example `{ code: 'UPSTREAM_UNAVAILABLE', source: 'membership', retryAfterSeconds: 5 }`. */
  extensions?: Record<string, unknown>;
}

/** The server answered with errors (the data it could resolve is kept), or not with GraphQL at all. */
export class GraphQLRequestError<TData = unknown> extends Error {
  override readonly name = 'GraphQLRequestError';
  constructor(
    message: string,
    /** The HTTP status of the response. */
    readonly status: number,
    readonly errors: readonly GraphQLErrorPayload[],
    /** Whatever part of the data resolved (null when nothing did). */
    readonly data: TData | null,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Send the document's id from the persisted-documents manifest instead of its text (default true
   * when the document carries one, as every generated document does). Required by a server running
   * with GRAPHQL_TRUSTED_DOCUMENTS_ONLY=true.
   */
  persisted?: boolean;
  /**
   * Turns a document sent as text into that text: `print` of graphql. Needed only for a document
   * sent with `persisted: false` that was not parsed from a source (generated documents carry no
   * source; parsed ones send `loc.source.body`). Not imported here, so that sending by id costs
   * no graphql-js in a bundle.
   */
  print?: (document: DocumentNode) => string;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
}

/** Variables may be left out when the operation has no required variable. */
type VariablesArguments<TVariables> = Record<string, never> extends TVariables
  ? [variables?: TVariables, options?: RequestOptions]
  : [variables: TVariables, options?: RequestOptions];

type DocumentWithId = { __meta__?: { hash?: string } };

function operationNameOf(document: DocumentNode): string | undefined {
  for (const definition of document.definitions) {
    // The string of Kind.OPERATION_DEFINITION: comparing with it needs no graphql-js at run time.
    if ((definition.kind as string) === 'OperationDefinition' && 'operation' in definition) return definition.name?.value;
  }
  return undefined;
}

/** The text of a document sent as text: its parsed source, or what `print` makes of it. */
function documentText(document: DocumentNode, print: RequestOptions['print']): string {
  if (print !== undefined) return print(document);
  const source = document.loc?.source.body;
  if (source === undefined) {
    throw new TypeError('this document has no source text to send: pass `print` (from graphql) in the options, or send it by id (persisted)');
  }
  return source;
}

function isResponseBody(value: unknown): value is { data?: unknown; errors?: GraphQLErrorPayload[] } {
  return value !== null && typeof value === 'object' && ('data' in value || 'errors' in value);
}

/**
 * Runs one typed operation against a channel graph endpoint (GraphQL over HTTP, POST JSON) and
 * resolves with its data, typed by the document. Rejects with GraphQLRequestError when the response
 * has errors (keeping any partial data) or is not a GraphQL response.
 */
export async function request<TData, TVariables>(
  url: string | URL,
  document: TypedDocumentNode<TData, TVariables>,
  ...[variables, options = {}]: VariablesArguments<TVariables>
): Promise<TData> {
  const id = (document as DocumentWithId).__meta__?.hash;
  const operationName = operationNameOf(document);
  const body =
    id !== undefined && options.persisted !== false
      ? { documentId: id, operationName, variables }
      : { query: documentText(document, options.print), operationName, variables };
  const response = await (options.fetch ?? fetch)(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...options.headers,
    },
    body: JSON.stringify(body),
    signal: options.signal ?? null,
  });
  const text = await response.text();
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  if (!isResponseBody(payload)) {
    throw new GraphQLRequestError(`Not a GraphQL response (HTTP ${response.status}): ${text.slice(0, 200)}`, response.status, [], null);
  }
  const data = (payload.data ?? null) as TData | null;
  if (payload.errors?.length) {
    const messages = payload.errors.map((error) => error.message).join('; ');
    throw new GraphQLRequestError(messages, response.status, payload.errors, data);
  }
  if (data === null) throw new GraphQLRequestError(`No data (HTTP ${response.status})`, response.status, [], null);
  return data;
}
