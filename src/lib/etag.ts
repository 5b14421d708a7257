/**
 * Entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2) for bodies kept as bytes: a client that
 * polls with the tag it holds gets a bodiless 304 while the bytes have not changed.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import fresh from 'fresh';

/** Headers as node:http's writeHead takes them: an object, or a flat [name, value, …] list. */
export type ResponseHeaders = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * Headers as the flat [name, value, …] list writeHead takes as it is (an array value becomes one
 * pair per value): built once for bytes answered many times. Given an object, node:http merges it
 * header by header when anything else was set on the response first (the request id is).
 */
export function flatHeaders(headers: OutgoingHttpHeaders): string[] {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) flat.push(name, String(one));
  }
  return flat;
}

/** Bytes kept with their entity tag and the headers of both answers, built once. */
export interface TaggedBody {
  bytes: Buffer;
  etag: string;
  /** Headers of the 200 (content type and length, etag included). */
  okHeaders: ResponseHeaders;
  /** Headers of the 304: the 200's metadata without content headers (RFC 9110 §15.4.5). */
  notModifiedHeaders: ResponseHeaders;
}

/**
 * Strong entity tag of the bytes: their SHA-1 in base64url, quoted. The published contract
 * (openapi/channel-api.yaml, `ETag`) promises this alphabet, so the `etag` package's
 * `"<length>-<base64>"` form (with `+` and `/`) is not used.
 */
export function entityTag(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * Whether If-None-Match matches `tag`, so that a GET is answered 304 Not Modified: `*`, or any tag
 * of the list compared weakly (a `W/` prefix on either side is ignored), RFC 9110 §13.1.2.
 * Only this header is consulted: a `Cache-Control: no-cache` request still gets its 304, since
 * validating with the origin is exactly what that directive asks for (RFC 9111 §5.2.1.4).
 */
export function ifNoneMatchMatches(header: string | undefined, tag: string): boolean {
  return header !== undefined && fresh({ 'if-none-match': header }, { etag: tag });
}

/** Answers a GET with the bytes, or with a bodiless 304 when the client already holds them. */
export function sendTaggedBody(request: IncomingMessage, response: ServerResponse, body: TaggedBody): void {
  if (ifNoneMatchMatches(request.headers['if-none-match'], body.etag)) {
    response.writeHead(304, body.notModifiedHeaders);
    response.end();
    return;
  }
  response.writeHead(200, body.okHeaders);
  response.end(body.bytes);
}
