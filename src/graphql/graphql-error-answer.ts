import type { ServerResponse } from 'node:http';

/**
 * A GraphQL-over-HTTP error answer of the layers in front of yoga: `{ errors: [{ message }] }`,
 * never a stack trace. A client's mistake (4xx) closes the connection, whose request may not have
 * been read to its end. When the head is already out, the connection is cut instead.
 */
export function writeGraphQLError(response: ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ errors: [{ message }] });
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...(status < 500 && { connection: 'close' }) });
  response.end(body);
}
