import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { NO_COMPRESSION, type Compression } from '../lib/compression.js';
import { createSecondOccurrenceGate } from '../lib/second-occurrence.js';
import { TaggedBody } from '../lib/tagged-body.js';
import { utf8Bytes } from '../lib/utf8-bytes.js';
import type { ChannelGraphStore } from './context.js';
import { isReplayable, KEYED_REQUEST_HEADERS, writeAnswer, type AnswerRequest, type GraphAnswer } from './graph-answer.js';
import { acceptsWholeAnswer, isBoundedJsonPost, withReadBody, type NodeListener } from './read-body-listener.js';
import { createYogaAnswers, type FetchClasses, type FetchHandler } from './yoga-answers.js';

export type { FetchHandler } from './yoga-answers.js';
export type { NodeListener } from './read-body-listener.js';

/**
 * The response cache, in front of the GraphQL server at the HTTP level: a repeated request (same
 * method, URL, body and the request headers the answer varies on) is answered with the bytes of the
 * first answer, without parsing, validating or executing anything. Every response is derived from
 * the snapshots, so it forgets everything whenever the store reports a change (refresh or webhook)
 * — including responses that list no entity, which entity-based invalidation would miss.
 *
 * What is kept: 200 answers without `errors`, in JSON, of a query operation (a mutation is never
 * replayed instead of being executed), whose `Vary` names only request headers that are part of the
 * key. The key is the method, the URL, the body and the request headers `Accept`, `Origin`,
 * `Access-Control-Request-Headers` and `Access-Control-Request-Method`: yoga's CORS answer echoes
 * the Origin (with `Vary: Origin`), so each origin gets its own entry and no client ever receives
 * the CORS headers computed for another. Entries are evicted least recently used
 * first, bounded in count and in bytes.
 *
 * An answer is kept from its request's second occurrence on: the first leaves only its key (a
 * hash) in a bounded list of recently seen keys. A stream of distinct requests (bench/memory sends
 * 2,000 distinct documents; one of them answers 176 KB) therefore fills nothing and cannot evict
 * the answers clients do repeat; a repeated request is executed twice, then answered from memory.
 *
 * A kept answer is compressed in a coding when a request first asks for it, and kept in it too
 * (TaggedBody): a hit in any coding writes ready bytes. Those bytes count against `maxBytes` like
 * the answer's own, so the bound holds whatever the clients accept.
 *
 * A hit runs none of the GraphQL server's plugins: the channel graph puts the cache in front only
 * when every one of its plugins says a replayed answer may skip it (skippable-plugins.ts).
 */
export interface ResponseCacheOptions {
  /** How long an entry may live even without a change (ms). */
  ttlMs: number;
  /** Entries kept (default 1000); each holds its headers besides the body and its key (the request). */
  maxEntries?: number;
  /**
   * Response body bytes and key characters (the request's body, URL and keyed headers) kept over
   * all entries (default 32 MiB); the least recently used go first, and a larger response is not
   * kept at all. Bounds the cache's memory whatever the dataset: over 100,000 patrons one
   * `supporters` answer alone is megabytes.
   */
  maxBytes?: number;
  /** Requests with larger bodies (or without Content-Length) are passed through uncached. */
  maxRequestBytes?: number;
  /** Told the result of every lookup (true: a hit), for the hit/miss metrics. */
  onLookup?: (hit: boolean) => void;
  /** How answers are compressed; default never. */
  compression?: Compression;
}

/** Keys of requests answered once, remembered per entry allowed (each key ~100 bytes of heap). */
const SEEN_KEYS_PER_ENTRY = 4;

/**
 * GraphQL-over-HTTP requests whose answer is a single JSON document: POST JSON of a declared length
 * up to `maxRequestBytes` (so the body read to make the key is bounded; anything else goes to yoga
 * and its body limit), or GET with a query or document id. Never GraphiQL's HTML page, and never a
 * streamed answer (server-sent events, incremental delivery in multipart/mixed): those go straight
 * to yoga, which streams them.
 */
function isCacheable(request: IncomingMessage, maxRequestBytes: number): boolean {
  if (!acceptsWholeAnswer(request)) return false;
  if (request.method === 'POST') return isBoundedJsonPost(request, maxRequestBytes);
  return request.method === 'GET' && /[?&](query|documentId)=/.test(request.url ?? '');
}

/**
 * The key: the method, the URL, the keyed request headers and the body, as one string (the body's
 * bytes one character each, so different requests never share a key). A hit is one map lookup, with
 * no hash computed; the entries count their keys' length in their bytes, and the list of keys seen
 * once keeps only a SHA-256 of each (`seenOnceKey`), so neither grows with the bodies sent.
 */
function cacheKey(request: IncomingMessage, body: Buffer): string {
  let key = `${request.method ?? ''} ${request.url ?? ''}\n`;
  for (const name of KEYED_REQUEST_HEADERS) key += `${request.headers[name] ?? ''}\n`;
  return key + body.toString('latin1');
}

function seenOnceKey(key: string): string {
  return createHash('sha256').update(key, 'latin1').digest('base64url');
}

/** `store` is only asked for change notifications: any graph with an `onChange` can use this cache. */
export function createResponseCache(store: Pick<ChannelGraphStore, 'onChange'>, options: ResponseCacheOptions) {
  const maxRequestBytes = options.maxRequestBytes ?? 64 * 1024;
  const maxEntries = options.maxEntries ?? 1000;
  const compression = options.compression ?? NO_COMPRESSION;
  /**
   * An entry holds the answer in every coding made so far. When one is added, a new holder of the
   * same answer is set under the key: lru-cache counts a value's size again only when the value is
   * another object.
   */
  const entries = new LRUCache<string, { readonly answer: TaggedBody }>({
    max: maxEntries,
    maxSize: options.maxBytes ?? 32 * 2 ** 20,
    sizeCalculation: (entry, key) => entry.answer.byteLength + key.length,
    ttl: options.ttlMs,
  });
  /** True from a key's second occurrence on: the answer may be kept (4,000 keys seen once, ~0.4 MB, at the defaults). */
  const admitted = createSecondOccurrenceGate(SEEN_KEYS_PER_ENTRY * maxEntries);
  // Bumped on every change: a response computed before a change must not be stored after it.
  let generation = 0;
  const clear = (): void => {
    generation += 1;
    entries.clear();
  };
  const unsubscribe = store.onChange(clear);
  const yogaAnswers = createYogaAnswers();

  /**
   * The answer as an entry (its content type apart: the 304 leaves it out, RFC 9110 §15.4.5). A kept
   * one is compressed at the thorough level and grows its size in the cache with each coding, while
   * it is still there; one answered once is compressed at the fast level.
   */
  function entryOf(answer: GraphAnswer, key: string, kept: boolean): TaggedBody {
    const bytes = typeof answer.body === 'string' ? utf8Bytes(answer.body) : answer.body;
    const fields = [...answer.headers].filter(([name]) => name !== 'content-type');
    const contentType = answer.headers.get('content-type') ?? 'application/json';
    if (!kept) return new TaggedBody(bytes, { fields, contentType, compression, effort: 'answer' });
    const entry: TaggedBody = new TaggedBody(bytes, {
      fields,
      contentType,
      compression,
      onEncoded: () => {
        if (entries.peek(key)?.answer === entry) entries.set(key, { answer: entry }, { noUpdateTTL: true });
      },
    });
    return entry;
  }

  async function respond(produce: AnswerRequest, request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> {
    const key = cacheKey(request, body);
    const hit = entries.get(key);
    options.onLookup?.(hit !== undefined);
    if (hit) return hit.answer.send(request, response);
    const startedAt = generation;
    const answer = await produce(request, body);
    // A query's answer without errors gets an ETag (so If-None-Match is honoured) whether it is kept or not.
    if (!isReplayable(answer)) return writeAnswer(request, response, answer, compression);
    const kept = generation === startedAt && admitted(seenOnceKey(key));
    const entry = entryOf(answer, key, kept);
    if (kept) entries.set(key, { answer: entry });
    entry.send(request, response);
  }

  /**
   * Cacheable requests go through the cache (and reach `produce` on a miss), the rest go to
   * `passThrough` untouched.
   */
  function listenerFor(produce: AnswerRequest, passThrough: NodeListener, onError: (error: unknown) => void): NodeListener {
    return withReadBody((request) => isCacheable(request, maxRequestBytes), maxRequestBytes, (request, response, body) => respond(produce, request, response, body), passThrough, onError);
  }

  return {
    /**
     * Install on the GraphQL server (yoga): it notes which requests executed a query operation, the
     * only answers the cache keeps. Without it nothing is kept.
     */
    plugin: yogaAnswers.plugin,
    /** What a miss asks of the GraphQL server (`handle`, its fetch): its answer, read whole. */
    answerer: (handle: FetchHandler, classes?: FetchClasses): AnswerRequest => yogaAnswers.answerWith(handle, classes),
    listenerFor,
    /** listenerFor(answerer(handle), …): a cache straight in front of the GraphQL server. */
    listener: (handle: FetchHandler, passThrough: NodeListener, onError: (error: unknown) => void): NodeListener => listenerFor(yogaAnswers.answerWith(handle), passThrough, onError),
    /** Forgets every answer: the schema that made them was replaced (development). */
    clear,
    close: unsubscribe,
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
