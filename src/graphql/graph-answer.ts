/**
 * A GraphQL answer as the layers in front of yoga handle it (the response cache, prepared
 * operations): a status, the headers to write, the body, and whether a query operation produced
 * it; which answers may be given again to a later request, and how one is written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NO_COMPRESSION, writeNegotiated, type Compression } from '../lib/compression.js';
import { utf8Bytes } from '../lib/utf8-bytes.js';

/** A GraphQL answer, ready to write or to keep. */
export interface GraphAnswer {
  status: number;
  /** Header names in lower case; never the framing (`content-length`), `date` or hop-by-hop fields. */
  headers: ReadonlyMap<string, string>;
  /** The bytes read from yoga, or the JSON text of a prepared answer. */
  body: Buffer | string;
  /** The headers as a flat [name, value, …] list, when the producer keeps one already. */
  flatHeaders?: readonly string[];
  /** Produced by executing a query operation (never a mutation): the only answers worth replaying. */
  query: boolean;
}

/** Answers one request whose body has been read (yoga's answer, read whole through its fetch API). */
export type AnswerRequest = (request: IncomingMessage, body: Buffer) => Promise<GraphAnswer>;

/**
 * The request headers an answer may depend on, besides the method, the URL and the body: yoga's
 * media-type negotiation reads `Accept`, its CORS answer echoes the Origin (with `Vary: Origin`) and
 * answers preflights from the `Access-Control-Request-*` fields. An answer whose `Vary` names any
 * other header is never replayed.
 */
export const KEYED_REQUEST_HEADERS = ['accept', 'origin', 'access-control-request-headers', 'access-control-request-method'] as const;
const KEYED = new Set<string>(KEYED_REQUEST_HEADERS);

/** `Vary` names only request headers in KEYED_REQUEST_HEADERS (and not `*`, RFC 9110 §12.5.5). */
function variesOnKeyOnly(vary: string | undefined): boolean {
  if (vary === undefined) return true;
  return vary.split(',').every((field) => KEYED.has(field.trim().toLowerCase()));
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/(graphql-response\+)?json\b/i.test(contentType ?? '');
}

/** A JSON answer without `errors`: the whole of it is data. */
function hasNoErrors(body: Buffer | string): boolean {
  try {
    const parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as { errors?: unknown };
    return parsed.errors === undefined;
  } catch {
    return false;
  }
}

/** An answer that may be replayed to a request of the same key: a query's JSON data, 200, no errors. */
export function isReplayable(answer: GraphAnswer): boolean {
  return answer.status === 200 && answer.query && variesOnKeyOnly(answer.headers.get('vary')) && isJson(answer.headers.get('content-type')) && hasNoErrors(answer.body);
}

export function flatten(headers: Iterable<[string, string]>): string[] {
  return [...headers].flat();
}

/**
 * Writes an answer made for this request (a prepared answer, or one of yoga's not kept by the
 * response cache): compressed at the fast level when the request accepts a coding (compression.ts;
 * above 64 KiB on the thread pool). A text is encoded once: its bytes give the Content-Length and are
 * what is written (or compressed).
 */
export function writeAnswer(request: IncomingMessage, response: ServerResponse, answer: GraphAnswer, compression: Compression = NO_COMPRESSION): void {
  const bytes = typeof answer.body === 'string' ? utf8Bytes(answer.body) : answer.body;
  writeNegotiated(request, response, compression, answer.status, answer.flatHeaders ?? flatten(answer.headers), bytes, answer.headers.get('content-type'));
}
