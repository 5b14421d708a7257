import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { skippableByRepeats } from './skippable-plugins.js';
import { BodyTooLargeError, readStreamBody } from '../lib/body.js';

/**
 * The request body limit, without a stream pipeline per request. yoga's own limit
 * (`maxRequestBodySize`) pipes every POST body through a TransformStream to count its bytes; on
 * node:http that pipeline (an AbortController, a DOMException and stream plumbing per request) cost
 * half of the server's throughput in bench/starwars. Over HTTP/1.1 the counting is redundant when the
 * request declares its length: the body is then exactly Content-Length bytes (RFC 9112 §6.3, enforced
 * by Node's HTTP parser, which also refuses Content-Length together with Transfer-Encoding), so the
 * declared length is checked instead. A body without Content-Length (chunked) is read with a byte
 * count and refused as soon as it passes the limit.
 */

/** RFC 9110 §8.6: Content-Length is one non-negative decimal integer (a list is a smuggling attempt). */
const CONTENT_LENGTH = /^\d+$/;

function requestBodyTooLarge(limitBytes: number): Error {
  return createGraphQLError(`Request body too large (limit ${limitBytes} bytes)`, {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
}

function invalidContentLength(): Error {
  return createGraphQLError('Content-Length header is invalid.', {
    extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
  });
}

/** Reads a body of unknown length, refusing it (and cancelling the rest) once it passes the limit. */
async function readBoundedBody(body: ReadableStream<Uint8Array>, limitBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return await readStreamBody(body, limitBytes);
  } catch (error) {
    throw error instanceof BodyTooLargeError ? requestBodyTooLarge(limitBytes) : error;
  }
}

/**
 * Refuses request bodies over `limitBytes` with 413 (400 for a malformed Content-Length). Must come
 * after every plugin that registers a request parser, as yoga's own limit does.
 */
export function useRequestBodyLimit(limitBytes: number): Plugin {
  // The layers that answer repeated requests read bodies within the same limit (skippable-plugins.ts).
  return skippableByRepeats({
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const declared = request.headers.get('content-length');
      if (declared !== null) {
        if (!CONTENT_LENGTH.test(declared)) throw invalidContentLength();
        if (Number(declared) > limitBytes) throw requestBodyTooLarge(limitBytes);
        return;
      }
      if (requestParser === undefined || request.body === null) return;
      setRequestParser(async (unbounded) =>
        requestParser(
          new fetchAPI.Request(unbounded.url, {
            method: unbounded.method,
            headers: unbounded.headers,
            signal: unbounded.signal,
            body: unbounded.body === null ? null : await readBoundedBody(unbounded.body, limitBytes),
          }),
        ),
      );
    },
  });
}
