/**
 * The floor of every HTTP benchmark: a raw `node:http` server that answers every request with the
 * same fixed bytes, so a table can show how close a real server gets to doing no work at all.
 */
import { createServer } from 'node:http';
import { listen, type Listening } from '../../src/lib/listen.js';

export interface FloorOptions {
  /** The exact response body (e.g. the JSON bytes the server under test returns). */
  body: string | Uint8Array;
  /** Content-Type of the body (default `application/json; charset=utf-8`). */
  contentType?: string;
}

export function startFloorServer(options: FloorOptions): Promise<Listening> {
  const body = typeof options.body === 'string' ? Buffer.from(options.body) : Buffer.from(options.body);
  const headers = {
    'content-type': options.contentType ?? 'application/json; charset=utf-8',
    'content-length': String(body.byteLength),
  };
  const server = createServer((request, response) => {
    // Drain the request body (a POST) before answering, as any real server must.
    request.resume();
    request.on('end', () => {
      response.writeHead(200, headers);
      response.end(body);
    });
  });
  return listen(server);
}
