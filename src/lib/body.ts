/**
 * Bounded request bodies (raw-body): a body is refused as soon as it is known to pass the limit —
 * before a byte is read when the declared Content-Length is larger, otherwise at the chunk that
 * passes it — so no more than `limitBytes` is ever kept in memory.
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

/**
 * The client stopped before its body was complete (the connection closed or failed first, or fewer
 * bytes came than its Content-Length declared): a client's failure, 400 (the client is usually gone).
 */
export class BodyIncompleteError extends Error {
  override readonly name = 'BodyIncompleteError';
  readonly status = 400;
  /** `receivedBytes`: undefined when the connection failed before the reader could count them. */
  constructor(readonly receivedBytes: number | undefined, readonly declaredBytes: number | undefined, options?: ErrorOptions) {
    const after = receivedBytes === undefined ? 'early' : `after ${receivedBytes} bytes`;
    super(`the request body ended ${after}${declaredBytes === undefined ? '' : ` of the ${declaredBytes} its Content-Length declared`}`, options);
  }
}

/** What raw-body's errors carry (http-errors with raw-body's `type` and byte counts). */
interface RawBodyError {
  type?: unknown;
  received?: unknown;
}

const isTooLarge = (error: unknown): boolean => (error as RawBodyError | null)?.type === 'entity.too.large';

/** raw-body's refusals of a stream it cannot read (an encoding set on it, or already read): our mistake, not the client's. */
const PROGRAMMING_ERRORS = new Set(['stream.encoding.set', 'stream.not.readable']);

/**
 * The whole body of a request as the bytes sent (a webhook signature is computed over them, so they
 * are not decoded). Over the limit, the rest of the body is read and dropped rather than left
 * unread: a server that closes a connection with unread input makes the kernel reset it, and the
 * 413 would never reach the client. Answer such a request with `Connection: close`.
 */
export function readRequestBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const header = request.headers['content-length'];
  // node's parser has refused a Content-Length that is not a number.
  const declared = header === undefined ? undefined : Number(header);
  // A connection already gone never says 'end' or 'close' again.
  if (request.destroyed) return Promise.reject(new BodyIncompleteError(0, declared));
  return getRawBody(request, { limit: limitBytes, ...(declared !== undefined && { length: declared }) }).catch((error: unknown) => {
    if (isTooLarge(error)) {
      // raw-body pauses the request on a refusal: flowing without a data listener, the rest is read and dropped.
      request.resume();
      throw new BodyTooLargeError(limitBytes);
    }
    const { type, received } = error as RawBodyError;
    if (typeof type === 'string' && PROGRAMMING_ERRORS.has(type)) throw error;
    // The connection closed or failed first, or ended short of its Content-Length.
    throw new BodyIncompleteError(typeof received === 'number' ? received : undefined, declared, { cause: error });
  });
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
