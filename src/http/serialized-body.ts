import type { Compression, CompressionEffort } from '../lib/compression.js';
import { TaggedBody } from '../lib/tagged-body.js';

export interface SerializeOptions {
  /** Fields of every answer (CORS), names in lower case. */
  headers: Readonly<Record<string, string>>;
  compression?: Compression;
  /** `kept` for a body answered many times (a snapshot's), `answer` for one built per request. */
  effort: CompressionEffort;
}

/**
 * JSON bodies serialised once per snapshot and kept with their entity tag and response headers, so
 * a warm GET writes a ready buffer (TaggedBody, src/lib/tagged-body.ts), compressed once per coding
 * a client asks for, and an overlay that polls with If-None-Match gets a bodiless 304 while nothing
 * changed.
 */
export function serialize(value: unknown, options: SerializeOptions): TaggedBody {
  return new TaggedBody(Buffer.from(JSON.stringify(value)), {
    // RFC 9110 §15.4.5: a 304 carries the validator and the caching headers of the 200, no content.
    fields: [...Object.entries(options.headers), ['cache-control', 'no-cache']],
    contentType: 'application/json; charset=utf-8',
    effort: options.effort,
    compression: options.compression,
  });
}

/**
 * Bodies per snapshot object and variant (snapshots are immutable: a change is a new object). What a
 * body holds in compressed codings (at most one per coding, each smaller than the JSON itself) lives
 * and dies with it, so the cache holds at most (1 + codings) × the JSON of the snapshots the store
 * still serves.
 */
export class SerializedBodyCache {
  readonly #bodies = new WeakMap<object, Map<string, TaggedBody>>();

  constructor(
    readonly headers: Readonly<Record<string, string>>,
    readonly compression?: Compression,
  ) {}

  get(snapshot: object, variant: string, build: () => unknown): TaggedBody {
    let variants = this.#bodies.get(snapshot);
    if (variants === undefined) {
      variants = new Map();
      this.#bodies.set(snapshot, variants);
    }
    let body = variants.get(variant);
    if (body === undefined) {
      body = serialize(build(), { headers: this.headers, effort: 'kept', compression: this.compression });
      variants.set(variant, body);
    }
    return body;
  }
}
