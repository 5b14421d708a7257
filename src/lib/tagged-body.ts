/**
 * A body kept as bytes and answered many times (a REST representation, a cached GraphQL answer, an
 * overlay file): its entity tag and the heads of its 200 and its 304 are built once, so a warm GET
 * writes ready buffers, and a client polling with the tag it holds gets a bodiless 304. The heads are
 * flat [name, value, …] lists, which node:http's writeHead takes as they are: given an object, it
 * merges it header by header when anything else was set on the response first (the request id is).
 *
 * When compression negotiates it (compression.ts: 1 KiB or more of a compressible type), the body in
 * a content coding is made on the first request for that coding and kept beside the identity bytes:
 * compressed once per coding, never per request. Each coding is a representation with its own tag
 * (codedEntityTag: `"<identity tag>-br"`), and every answer, in whatever coding, says
 * `Vary: Accept-Encoding`. HEAD is answered with the identity head.
 *
 * If-None-Match is answered 304 when it names the body in any coding, not only in the one this
 * request would get: the content is the same, and the 304 carries the tag the client named (the
 * coding it negotiated first), so the cache freshens the very response it stored (RFC 9111 §4.3.4).
 * That is the weak comparison of RFC 9110 §13.1.2 across codings which nginx gets by weakening the
 * tags of the bodies it compresses; here the tags stay strong.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Coding, Compression, CompressionEffort, ContentCoding } from './compression.js';
import { codedEntityTag, entityTag, ifNoneMatchMatches } from './etag.js';

export interface TaggedBodyOptions {
  /**
   * The fields of both the 200 and the 304 (RFC 9110 §15.4.5: caching, CORS, Vary…), names in lower
   * case; not ETag or the content's own fields (Content-Type, Content-Length, Content-Encoding).
   */
  fields: Iterable<readonly [name: string, value: string]>;
  /** The Content-Type of the 200. */
  contentType: string;
  /** How the body may be compressed; without it, it never is. */
  compression?: Compression;
  /** `kept` (default): answered many times; `answer`: built for one request (a cache may still keep it). */
  effort?: CompressionEffort;
  /** Told when a coding's bytes are added (byteLength grew): a cache bounded in bytes counts them. */
  onEncoded?: () => void;
}

/** The body in one coding, ready to write: its bytes and the head of its 200. */
interface Encoded {
  readonly bytes: Buffer;
  readonly okHeaders: readonly string[];
}

function write(response: ServerResponse, encoded: Encoded): void {
  response.writeHead(200, encoded.okHeaders as string[]);
  response.end(encoded.bytes);
}

/** The fields as a flat list, with Accept-Encoding added to their Vary (or a Vary of its own). */
function withVary(fields: Iterable<readonly [string, string]>, negotiated: boolean): string[] {
  const flat: string[] = [];
  let varied = !negotiated;
  for (const [name, value] of fields) {
    if (name === 'vary' && !varied) {
      flat.push(name, `${value}, Accept-Encoding`);
      varied = true;
    } else flat.push(name, value);
  }
  if (!varied) flat.push('vary', 'Accept-Encoding');
  return flat;
}

export class TaggedBody {
  /** The identity bytes. */
  readonly bytes: Buffer;
  /** The identity bytes' tag. */
  readonly etag: string;
  /** Head of the identity 200 (flat list). */
  readonly okHeaders: readonly string[];
  /** Head of the identity 304: the 200's metadata without the content's own fields. */
  readonly notModifiedHeaders: readonly string[];
  readonly #identity: Encoded;
  /** Set when compression negotiates this body. */
  readonly #compression: Compression | undefined;
  readonly #effort: CompressionEffort;
  readonly #onEncoded: (() => void) | undefined;
  readonly #fields: readonly string[];
  readonly #contentType: string;
  /** Each coding's 304 head, made when a request first needs it (no bytes needed: the tag is derived). */
  readonly #notModified = new Map<ContentCoding, readonly string[]>();
  /** Each coding's bytes, or their compression in progress (on the thread pool), shared by the requests that wait. */
  readonly #encoded = new Map<ContentCoding, Encoded | Promise<Encoded>>();
  #encodedBytes = 0;

  constructor(bytes: Buffer, options: TaggedBodyOptions) {
    const negotiated = options.compression?.negotiates(bytes.length, options.contentType) ?? false;
    this.bytes = bytes;
    this.etag = entityTag(bytes);
    this.#fields = withVary(options.fields, negotiated);
    this.#contentType = options.contentType;
    this.#compression = negotiated ? options.compression : undefined;
    this.#effort = options.effort ?? 'kept';
    this.#onEncoded = options.onEncoded;
    this.notModifiedHeaders = [...this.#fields, 'etag', this.etag];
    this.okHeaders = [...this.notModifiedHeaders, 'content-type', this.#contentType, 'content-length', String(bytes.length)];
    this.#identity = { bytes, okHeaders: this.okHeaders };
  }

  /** Bytes held: the identity bytes and every coding made so far. */
  get byteLength(): number {
    return this.bytes.length + this.#encodedBytes;
  }

  /**
   * Answers a GET or HEAD: a bodiless 304 when the client already holds the body (in any coding),
   * else a 200 in the coding the request negotiates — at once, or once a large body's compression,
   * made on the thread pool for the first request of its coding, is done.
   */
  send(request: IncomingMessage, response: ServerResponse): void {
    const compression = this.#compression;
    const coding: Coding = compression === undefined ? 'identity' : compression.codingOf(request.headers['accept-encoding'], this.#effort);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined) {
      const held = this.#notModifiedFor(ifNoneMatch, coding);
      if (held !== undefined) {
        response.writeHead(304, held as string[]);
        response.end();
        return;
      }
    }
    if (coding === 'identity' || request.method === 'HEAD') return write(response, this.#identity);
    const encoded = this.#encodedIn(coding);
    if (encoded instanceof Promise) void encoded.then((ready) => write(response, ready));
    else write(response, encoded);
  }

  /** The 304 head when If-None-Match names the body in the negotiated coding, in identity, or in another coding offered. */
  #notModifiedFor(ifNoneMatch: string, coding: Coding): readonly string[] | undefined {
    if (coding !== 'identity' && ifNoneMatchMatches(ifNoneMatch, codedEntityTag(this.etag, coding))) return this.#notModifiedIn(coding);
    if (ifNoneMatchMatches(ifNoneMatch, this.etag)) return this.notModifiedHeaders;
    for (const other of this.#compression?.codings ?? []) {
      if (other !== coding && ifNoneMatchMatches(ifNoneMatch, codedEntityTag(this.etag, other))) return this.#notModifiedIn(other);
    }
    return undefined;
  }

  #notModifiedIn(coding: ContentCoding): readonly string[] {
    let head = this.#notModified.get(coding);
    if (head === undefined) {
      head = [...this.#fields, 'etag', codedEntityTag(this.etag, coding)];
      this.#notModified.set(coding, head);
    }
    return head;
  }

  /** The body in `coding`, made on first demand; its promise never rejects (a failed compression answers identity, and the next request tries again). */
  #encodedIn(coding: ContentCoding): Encoded | Promise<Encoded> {
    const known = this.#encoded.get(coding);
    if (known !== undefined) return known;
    let compressed: Buffer | Promise<Buffer>;
    try {
      compressed = (this.#compression as Compression).compress(coding, this.bytes, this.#effort);
    } catch {
      return this.#identity;
    }
    if (!(compressed instanceof Promise)) return this.#keep(coding, compressed);
    const pending = compressed.then(
      (done) => this.#keep(coding, done),
      () => {
        this.#encoded.delete(coding);
        return this.#identity;
      },
    );
    this.#encoded.set(coding, pending);
    return pending;
  }

  /** Keeps the compressed bytes, or the identity bytes for this coding when compressing did not make them smaller. */
  #keep(coding: ContentCoding, compressed: Buffer): Encoded {
    if (compressed.length >= this.bytes.length) {
      this.#encoded.set(coding, this.#identity);
      return this.#identity;
    }
    const encoded: Encoded = {
      bytes: compressed,
      okHeaders: [...this.#notModifiedIn(coding), 'content-type', this.#contentType, 'content-encoding', coding, 'content-length', String(compressed.length)],
    };
    this.#encoded.set(coding, encoded);
    this.#encodedBytes += compressed.length;
    this.#onEncoded?.();
    return encoded;
  }
}
