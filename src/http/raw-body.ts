import type { IncomingMessage } from 'node:http';

/** The request body exceeds the configured limit (answered with 413). */
export class PayloadTooLargeError extends Error {
  override readonly name = 'PayloadTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`the request body is larger than ${limitBytes} bytes`);
  }
}

/**
 * Reads the whole body as bytes, exactly as sent: a webhook signature is computed over the raw
 * bytes, so the body must not be decoded or re-serialised before it is verified. Once the limit is
 * passed the rest is drained and dropped (not destroyed, so that the 413 answer still reaches the
 * client) and nothing more is kept in memory.
 */
export function readRawBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    if (declared > limitBytes) {
      request.resume();
      reject(new PayloadTooLargeError(limitBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      request.off('data', onData);
      request.resume();
      reject(new PayloadTooLargeError(limitBytes));
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
  });
}
