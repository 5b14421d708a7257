/**
 * The requests the layers in front of yoga take (a POST of a bounded JSON body, whose answer is one
 * JSON document), and the listener that reads their body before answering them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequestBody } from '../lib/body.js';
import { writeGraphQLError } from './graphql-error-answer.js';

export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Whether the client takes the answer as one JSON document: never GraphiQL's HTML page, and never a
 * streamed answer (server-sent events, incremental delivery in multipart/mixed), which yoga streams.
 */
export function acceptsWholeAnswer(request: IncomingMessage): boolean {
  return !/text\/html|text\/event-stream|multipart\/mixed/i.test(request.headers.accept ?? '');
}

/** Whether the request is a POST of a JSON body of a declared length up to `maxRequestBytes`. */
export function isBoundedJsonPost(request: IncomingMessage, maxRequestBytes: number): boolean {
  if (request.method !== 'POST') return false;
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  return declared <= maxRequestBytes && (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/** The refusals of a client's body (too large, incomplete: src/lib/body.ts): 4xx. */
function clientStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * A listener that reads the body of the requests `handles` selects (bounded: they declare their
 * length) and gives it to `answer`; every other request goes to `passThrough` untouched, its body
 * unread (yoga streams what it streams). A client's broken body is a 4xx; only our own failure is a
 * 500, and its body says no more than "Unexpected error.".
 */
export function withReadBody(
  handles: (request: IncomingMessage) => boolean,
  limitBytes: number,
  answer: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void | Promise<void>,
  passThrough: NodeListener,
  onError: (error: unknown) => void,
): NodeListener {
  return (request, response) => {
    if (!handles(request)) {
      passThrough(request, response);
      return;
    }
    const body = request.method === 'POST' ? readRequestBody(request, limitBytes) : Promise.resolve(Buffer.alloc(0));
    body
      .then((read) => answer(request, response, read))
      .catch((error: unknown) => {
        const status = clientStatusOf(error);
        if (status !== undefined) return writeGraphQLError(response, status, 'The request body could not be read (its length does not match Content-Length, or the upload stopped).');
        onError(error);
        writeGraphQLError(response, 500, 'Unexpected error.');
      });
  };
}
