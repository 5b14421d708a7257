/**
 * The answer to a request node:http cannot parse (its `clientError` event): a request head over
 * `maxHeaderSize` (a GET whose URL carries a huge document), a malformed request line or header, a
 * request that exceeded `requestTimeout`. Node's own answer is a bare status line without a body;
 * this one says what was wrong. The parser stopped before the request's path was known, so the body
 * is read by both kinds of clients the server has: an RFC 9457 problem (`detail`) that also carries
 * a GraphQL-over-HTTP `errors` list (a problem may have extension members, RFC 9457 §3.2).
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE } from './problem.js';

/** The status and message for one parser error code (llhttp's `HPE_*`, node's `ERR_HTTP_*`). */
function describe(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'The request line and headers are too large for this server (a long query string counts: send a large GraphQL document with POST).' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request was not received completely within the time allowed.' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, message: 'The request method is not one this server understands.' };
    default:
      return { status: 400, message: 'The request is not a well-formed HTTP/1.1 request (request line, header field or framing).' };
  }
}

/**
 * Answers every request `server` cannot parse (its `clientError` event) with a body, then closes
 * the connection — unless an answer is under way on that connection, which bytes of ours would
 * corrupt: then the connection is only closed. node:http has no public way to tell (its own handler
 * reads a private property), so the latest answer of each connection is kept: answers finish in the
 * order of their requests, and node gives an answer its `socket` only once every earlier one has
 * finished.
 */
export function answerClientErrors(server: Server): void {
  const latestAnswers = new WeakMap<Socket | Duplex, { answer: ServerResponse }>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const latest = latestAnswers.get(request.socket);
    if (latest === undefined) latestAnswers.set(request.socket, { answer: response });
    else latest.answer = response;
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const latest = latestAnswers.get(socket)?.answer;
    // Idle: no answer yet, every answer finished, or the latest is the one on the connection and has not begun (a request that timed out while its handler waited for the body).
    const idle = latest === undefined || latest.writableFinished || (latest.socket === socket && !latest.headersSent);
    if (error.code !== 'ECONNRESET' && socket.writable && idle) {
      const { status, message } = describe(error.code);
      const body = JSON.stringify({ type: 'about:blank', title: STATUS_CODES[status], status, detail: message, errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  });
}
