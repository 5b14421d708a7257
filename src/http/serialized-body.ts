import type { OutgoingHttpHeaders } from 'node:http';
import { entityTag, flatHeaders, type TaggedBody } from '../lib/etag.js';

/**
 * JSON bodies serialised once per snapshot and kept with their entity tag and response headers, so
 * a warm GET writes a ready buffer (sendTaggedBody, src/lib/etag.ts), and an overlay that polls
 * with If-None-Match gets a bodiless 304 while nothing changed.
 */
export function serialize(value: unknown, headers: OutgoingHttpHeaders): TaggedBody {
  const bytes = Buffer.from(JSON.stringify(value));
  const etag = entityTag(bytes);
  // RFC 9110 §15.4.5: a 304 carries the validator and the caching headers of the 200, no content.
  const notModifiedHeaders = { ...headers, etag, 'cache-control': 'no-cache' };
  const okHeaders = { ...notModifiedHeaders, 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.length) };
  return { bytes, etag, okHeaders: flatHeaders(okHeaders), notModifiedHeaders: flatHeaders(notModifiedHeaders) };
}

/** Bodies per snapshot object and variant (snapshots are immutable: a change is a new object). */
export class SerializedBodyCache {
  readonly #bodies = new WeakMap<object, Map<string, TaggedBody>>();

  constructor(readonly headers: OutgoingHttpHeaders) {}

  get(snapshot: object, variant: string, build: () => unknown): TaggedBody {
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
