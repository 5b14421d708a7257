/**
 * Yoga's answers, read whole through its fetch API, for the layers in front of it (the response
 * cache, prepared operations): a node request whose body is already read is handed to yoga as a
 * fetch-API Request, and its Response read back as a GraphAnswer.
 */
import type { IncomingMessage } from 'node:http';
import { getOperationAST, OperationTypeNode, type ExecutionArgs } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import type { AnswerRequest } from './graph-answer.js';
import { skippableByRepeats } from './skippable-plugins.js';

/** The GraphQL server's side: answer one fetch-API request. */
export type FetchHandler = (request: Request) => Promise<Response> | Response;

/**
 * Response headers never replayed (compared in lower case): the hop-by-hop fields of RFC 9110
 * §7.6.1, which describe one connection, and the framing recomputed for the bytes written.
 */
const NOT_REPLAYED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'date']);

/** The headers to write again, names in lower case, without the fields the Connection header lists. */
function replayableHeaders(headers: Headers): Map<string, string> {
  const connectionFields = new Set((headers.get('connection') ?? '').split(',').map((field) => field.trim().toLowerCase()));
  const kept = new Map<string, string>();
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (!NOT_REPLAYED.has(lower) && !connectionFields.has(lower)) kept.set(lower, value);
  });
  return kept;
}

/**
 * The fetch-API classes requests are built with: yoga's own (`yoga.fetchAPI`, the @whatwg-node
 * ponyfill, which keeps a string body as it is and hands it back to yoga's parser without a web
 * stream), or the platform's.
 */
export interface FetchClasses {
  Request: new (input: string, init: { method: string; headers: Headers; body?: string }) => Request;
  Headers: new () => Headers;
}

function toFetchRequest(request: IncomingMessage, body: Buffer, classes: FetchClasses): Request {
  const headers = new classes.Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  const url = `http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`;
  return new classes.Request(url, { method: request.method ?? 'GET', headers, ...(request.method === 'POST' && { body: body.toString('utf8') }) });
}

export interface YogaAnswers {
  /** Install on the yoga server: notes which requests executed a query operation. */
  readonly plugin: Plugin<YogaInitialContext>;
  /** Answers through `handle` (the yoga server's fetch, given requests made with `classes`), as a GraphAnswer. */
  answerWith(handle: FetchHandler, classes?: FetchClasses): AnswerRequest;
}

export function createYogaAnswers(): YogaAnswers {
  /** The requests (the fetch API objects handed to the server) that executed a query operation. */
  const queries = new WeakSet<Request>();
  return {
    // It notes what the layers in front of yoga read; they need it only from requests they send (skippable-plugins.ts).
    plugin: skippableByRepeats({
      onExecute({ args }) {
        // @envelop/types resolves ExecutionArgs to any in this tree: name the fields' real types.
        const { document, operationName } = args as Pick<ExecutionArgs, 'document' | 'operationName'>;
        if (getOperationAST(document, operationName)?.operation === OperationTypeNode.QUERY) queries.add(args.contextValue.request);
      },
    }),
    answerWith: (handle, classes = globalThis) => async (request, requestBody) => {
      const fetchRequest = toFetchRequest(request, requestBody, classes);
      const answered = await handle(fetchRequest);
      const body = Buffer.from(await answered.arrayBuffer());
      return { status: answered.status, headers: replayableHeaders(answered.headers), body, query: queries.has(fetchRequest) };
    },
  };
}
