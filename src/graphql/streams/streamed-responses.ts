/**
 * The streamed answers of /graphql (GraphQL over SSE, `Accept: text/event-stream`; incremental
 * delivery, `multipart/mixed`): a bound on how many are open at once, and a yoga plugin that makes
 * their refusals readable by the clients that speak the protocol.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';

/** Seconds a client refused for lack of streams is told to wait (the same as GET /events). */
const RETRY_AFTER_SECONDS = 5;

/** The code of the refusal, in `errors[0].extensions.code`. */
export const TOO_MANY_STREAMS = 'TOO_MANY_STREAMS';

/** Whether yoga may answer the request with a stream (it streams only when the client accepts one). */
export function acceptsStream(request: IncomingMessage): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && (accept.includes('text/event-stream') || accept.includes('multipart/mixed'));
}

export interface GraphStreamLimit {
  /** `listener`, except that a request that may stream is refused (503) while `maxStreams` are open. */
  wrap(listener: RequestListener): RequestListener;
  /** Requests that may stream, open now (a subscription holds its slot until its response closes). */
  readonly openStreams: number;
  /** Refuses new streams from now on (the server is shutting down). */
  close(): void;
}

function refuse(response: ServerResponse, message: string): void {
  // A GraphQL-over-HTTP error body: graphql-sse and fetch-based clients read it from a non-2xx answer.
  const body = JSON.stringify({ errors: [{ message, extensions: { code: TOO_MANY_STREAMS } }] });
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
  response.end(body);
}

/**
 * Bounds the open streamed answers of /graphql, as EVENTS_MAX_STREAMS bounds GET /events and the
 * WebSocket connections: each subscription holds a listener and a response until its client leaves.
 * Counted at the HTTP level, before yoga parses anything, so a refused request costs nothing.
 */
export function createGraphStreamLimit(maxStreams: number): GraphStreamLimit {
  let open = 0;
  let closed = false;
  return {
    wrap(listener) {
      return (request, response) => {
        if (!acceptsStream(request)) {
          listener(request, response);
          return;
        }
        if (closed) {
          refuse(response, 'The server is shutting down: no new subscriptions.');
          return;
        }
        if (open >= maxStreams) {
          refuse(response, `${maxStreams} streams are open on /graphql, the most this server keeps; try again later.`);
          return;
        }
        open += 1;
        response.once('close', () => {
          open -= 1;
        });
        listener(request, response);
      };
    },
    get openStreams() {
      return open;
    },
    close() {
      closed = true;
    },
  };
}

const isEventStream = (response: Response): boolean => response.headers.get('content-type')?.startsWith('text/event-stream') === true;
const isStreamed = (response: Response): boolean => isEventStream(response) || response.headers.get('content-type')?.startsWith('multipart/mixed') === true;

/**
 * Two corrections to yoga's streamed answers:
 * - A request refused before execution (a validation error, a limit, trusted-documents mode) is
 *   answered 200 with the errors in a `next` event, as the GraphQL over SSE protocol requires
 *   (graphql-sse PROTOCOL.md, "Distinct connections mode": "Validation steps that run before
 *   execution … MUST report errors through an accepted SSE connection"); yoga answers 400, which
 *   makes EventSource and graphql-sse fail the connection without reading the errors.
 * - yoga writes `Connection: keep-alive` on every streamed answer, even when the connection is about
 *   to close (the client sent `Connection: close`, or the server is shutting down): the header is
 *   dropped, so node:http writes the one that is true.
 */
export function useStreamedResponses(): Plugin {
  return {
    onResponse(payload) {
      const { response, fetchAPI } = payload;
      if (!isStreamed(response)) return;
      // Copied name by name: the ponyfill's Headers keeps yoga's capitalised names, which delete() misses.
      const headers: Array<[string, string]> = [];
      response.headers.forEach((value, name) => {
        if (name.toLowerCase() !== 'connection') headers.push([name, value]);
      });
      const status = response.status === 400 && isEventStream(response) ? 200 : response.status;
      payload.setResponse(new fetchAPI.Response(response.body, { status, statusText: status === 200 ? 'OK' : response.statusText, headers }));
    },
  };
}
