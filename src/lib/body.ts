/**
 * Bounded request bodies (raw-body underneath): a body is refused as soon as it is known to pass
 * the limit — before a byte is read when the declared Content-Length is larger, otherwise at the
 * chunk that passes it — so no more than `limitBytes` is ever kept in memory.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import getRawBody from 'raw-body';

/** The body is larger than the limit: answer 413 Content Too Large (RFC 9110 §15.5.14). */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly status = 413;
  constructor(readonly limitBytes: number) {
    super(`the request body is larger than ${limitBytes} bytes`);
  }
}

function isTooLarge(error: unknown): boolean {
  return (error as { type?: unknown } | null)?.type === 'entity.too.large';
}

/**
 * The whole body of a request as the bytes sent (a webhook signature is computed over them, so they
 * are not decoded). Over the limit, the rest of the body is read and dropped rather than left
 * unread: a server that closes a connection with unread input makes the kernel reset it, and the
 * 413 would never reach the client. Answer such a request with `Connection: close`.
 */
export async function readRequestBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(request, { length: request.headers['content-length'], limit: limitBytes });
  } catch (error) {
    if (!isTooLarge(error)) throw error;
    request.resume();
    throw new BodyTooLargeError(limitBytes);
  }
}

/** The chunks of a web stream; stopping the iteration early cancels the stream. */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel();
  }
}

/**
 * A body of unknown length from a fetch API request body. Over the limit, the stream is cancelled.
 * The bytes are a Buffer over a plain ArrayBuffer (as `Buffer.concat` allocates), usable as a
 * fetch body.
 */
export async function readStreamBody(body: ReadableStream<Uint8Array>, limitBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const stream = Readable.from(chunksOf(body), { objectMode: false });
  try {
    return (await getRawBody(stream, { limit: limitBytes })) as Uint8Array<ArrayBuffer>;
  } catch (error) {
    stream.destroy();
    throw isTooLarge(error) ? new BodyTooLargeError(limitBytes) : error;
  }
}
