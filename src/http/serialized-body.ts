import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * JSON bodies serialised once per snapshot and kept with their entity tag and response headers, so
 * a warm GET writes a ready buffer, and an overlay that polls with If-None-Match gets a bodiless
 * 304 while nothing changed.
 */
export interface SerializedBody {
  bytes: Buffer;
  /** Strong entity tag of the bytes (RFC 9110 §8.8.3). */
  etag: string;
  /** Headers of the 200 and of the 304 answer, built once. */
  okHeaders: OutgoingHttpHeaders;
  notModifiedHeaders: OutgoingHttpHeaders;
}

export function serialize(value: unknown, headers: OutgoingHttpHeaders): SerializedBody {
  const bytes = Buffer.from(JSON.stringify(value));
  const etag = `"${createHash('sha1').update(bytes).digest('base64url')}"`;
  // RFC 9110 §15.4.5: a 304 carries the validator and the caching headers of the 200, no content.
  const notModifiedHeaders = { ...headers, etag, 'cache-control': 'no-cache' };
  const okHeaders = { ...notModifiedHeaders, 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.length) };
  return { bytes, etag, okHeaders, notModifiedHeaders };
}

/** Bodies per snapshot object and variant (snapshots are immutable: a change is a new object). */
export class SerializedBodyCache {
  readonly #bodies = new WeakMap<object, Map<string, SerializedBody>>();

  constructor(readonly headers: OutgoingHttpHeaders) {}

  get(snapshot: object, variant: string, build: () => unknown): SerializedBody {
    let variants = this.#bodies.get(snapshot);
    if (variants === undefined) {
      variants = new Map();
      this.#bodies.set(snapshot, variants);
    }
    let body = variants.get(variant);
    if (body === undefined) {
      body = serialize(build(), this.headers);
      variants.set(variant, body);
    }
    return body;
  }
}

/** RFC 9110 §13.1.2: If-None-Match matches `*` or any listed tag, compared weakly (W/ ignored). */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

export function sendSerialized(request: IncomingMessage, response: ServerResponse, body: SerializedBody): void {
  if (ifNoneMatchMatches(request.headers['if-none-match'], body.etag)) {
    response.writeHead(304, body.notModifiedHeaders);
    response.end();
    return;
  }
  response.writeHead(200, body.okHeaders);
  response.end(body.bytes);
}
