/**
 * Entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2) for bodies kept as bytes: a client that
 * polls with the tag it holds gets a bodiless 304 while the bytes have not changed.
 */
import { createHash } from 'node:crypto';

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
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (entityTag: string): string => (entityTag.startsWith('W/') ? entityTag.slice(2) : entityTag);
  // The tags compared here (entityTag, codedEntityTag) hold no comma, so the list splits at each one.
  return header.split(',').some((listed) => opaque(listed.trim()) === opaque(tag));
}

/**
 * The tag of the body sent in a content coding: its identity tag with `-<coding>` inside the quotes
 * (`"Qx3…-br"`). A compressed body is a representation of its own and needs its own strong tag
 * (RFC 9110 §8.8.3: a cache may store both, and must not mistake one for the other); derived from
 * the identity tag, it is known without compressing anything, and it tells which content it encodes.
 * It stays in the alphabet the contract promises. Its strength is that of the content: the same
 * content is always the same decoded bytes (a newer zlib might produce other compressed bytes under
 * the same tag; nothing here serves byte ranges, where that would matter).
 */
export function codedEntityTag(tag: string, coding: string): string {
  return `${tag.slice(0, -1)}-${coding}"`;
}
