import { createHash } from 'node:crypto';
import { getOperationAST, OperationTypeNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { NO_COMPRESSION, type Compression, type ContentCoding } from '../../lib/compression.js';
import { codedEntityTag, entityTag, ifNoneMatchMatches } from '../../lib/etag.js';
import { createSecondOccurrenceGate } from '../../lib/second-occurrence.js';
import { utf8Bytes } from '../../lib/utf8-bytes.js';

/**
 * The response cache, as a yoga plugin: it keeps what an operation's execution returned and gives it
 * to the next request with the same key instead of running the resolvers again. Every plugin runs on
 * a hit as on a miss: yoga reads the request, parses (document cache), validates (validation cache)
 * and builds the context, and every onExecute and onExecuteDone hook runs; only the execute function
 * is the cache's. So a plugin that refuses a request (an authentication, a rate limit) refuses it
 * whatever the cache holds, and one that changes an answer after execution changes each one.
 *
 * The key holds everything that changes what the execute function returns: the schema (a development
 * server swaps it: an answer of the old schema is never given), the document's text, the operation
 * name, the variables, and `scope(context)`, what of the caller the resolvers read (default nothing:
 * the channel graph's resolvers read only the snapshots). What is kept: results of query operations
 * without errors (never a mutation, a subscription or an incremental delivery), from their key's
 * second occurrence on (src/lib/second-occurrence.ts: a stream of distinct requests fills nothing),
 * until `clear()` (the channel graph clears it on every snapshot change) or the TTL. Entries are
 * evicted least recently used first, bounded in count and in bytes.
 *
 * A kept result is serialised once: the result given to yoga carries its text as a non-enumerable
 * `stringify` (yoga's result processor writes `result.stringify(result)`, as it does for graphql-jit's
 * results), so a hit is written without JSON.stringify; a plugin that replaces the result makes a new
 * object, which yoga serialises as usual. An answer that is exactly a kept result's text carries its
 * entity tag, and is answered 304 when If-None-Match names it (RFC 9110 §13.1.2), after every plugin
 * ran. It is compressed once per coding (at the thorough level), kept beside it and counted in the
 * entry's bytes; each coding is its own representation with its own tag (etag.ts `codedEntityTag`).
 */
export interface ResponseCacheOptions {
  /** How long an entry may live even without a change (ms). */
  ttlMs: number;
  /** Entries kept (default 1000). */
  maxEntries?: number;
  /** Bytes of kept answers (every coding) and keys, over all entries (default 32 MiB); a larger answer is not kept. */
  maxBytes?: number;
  /** What of the caller (the execution's context) the answer depends on; undefined: not cached. Default: nothing. */
  scope?: (contextValue: unknown) => string | undefined;
  /** Told the result of every lookup (true: a hit), for the hit/miss metrics. */
  onLookup?: (hit: boolean) => void;
  /** How kept answers are compressed; default never. */
  compression?: Compression;
}

export interface ResponseCache {
  /** Install once, on one server, after the plugins that set the execute function (speed/jit.ts). */
  readonly plugin: Plugin;
  /** Forgets every answer (the data they were made of changed). */
  clear(this: void): void;
  /** Entries held (for tests). */
  readonly size: number;
}

/** Keys of requests answered once, remembered per entry allowed (each key ~100 bytes of heap). */
const SEEN_KEYS_PER_ENTRY = 4;

const KEPT: unique symbol = Symbol('kept answer');

/** The media types of an answer that is the kept text (yoga's regular result processor). */
const JSON_ANSWER = /^application\/(?:graphql-response\+)?json\b/i;
/** Compared in lower case: yoga's fetch API keeps the names as it wrote them. */
const CONTENT_FIELDS = new Set(['content-type', 'content-length', 'content-encoding', 'etag']);

/** A kept answer: the result given to yoga, its bytes, its tag and its codings made so far. */
interface Entry {
  readonly key: string;
  readonly result: ExecutionResult & { readonly [KEPT]?: Entry };
  readonly bytes: Buffer;
  readonly etag: string;
  readonly codings: Map<ContentCoding, Buffer | Promise<Buffer>>;
  codedBytes: number;
}

function keep(key: string, result: ExecutionResult): Entry {
  const text = JSON.stringify(result);
  const bytes = utf8Bytes(text);
  const kept = { ...result };
  const entry: Entry = { key, result: kept, bytes, etag: entityTag(bytes), codings: new Map(), codedBytes: 0 };
  Object.defineProperties(kept, { stringify: { value: () => text }, [KEPT]: { value: entry } });
  return entry;
}

/** Each schema an id of its own, for short keys. */
function idsOf<T extends object>(): (value: T) => number {
  const ids = new WeakMap<T, number>();
  let next = 0;
  return (value) => {
    let id = ids.get(value);
    if (id === undefined) ids.set(value, (id = next += 1));
    return id;
  };
}

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const { scope, onLookup } = options;
  const compression = options.compression ?? NO_COMPRESSION;
  const maxEntries = options.maxEntries ?? 1000;
  // An entry is set in a holder of its own: lru-cache weighs a value again only when it is set as another object.
  const entries = new LRUCache<string, { readonly entry: Entry }>({
    max: maxEntries,
    maxSize: options.maxBytes ?? 32 * 2 ** 20,
    sizeCalculation: ({ entry }, key) => entry.bytes.length + entry.codedBytes + key.length,
    ttl: options.ttlMs,
  });
  const admitted = createSecondOccurrenceGate(SEEN_KEYS_PER_ENTRY * maxEntries);
  const schemaId = idsOf<GraphQLSchema>();
  /** The kept answer each request was answered with, from its result's processing to its response. */
  const answered = new WeakMap<Request, Entry>();
  // Bumped on every clear: a result computed before a change must not be kept after it.
  let generation = 0;

  function keyOf(args: ExecutionArgs): string | undefined {
    const text = args.document.loc?.source.body;
    const caller = scope === undefined ? '' : scope(args.contextValue);
    if (text === undefined || caller === undefined) return undefined;
    return `${schemaId(args.schema)}\n${args.operationName ?? ''}\n${caller}\n${JSON.stringify(args.variableValues ?? null)}\n${text}`;
  }

  /** The entry's bytes in `coding`, made once (on the thread pool when large); its identity bytes when that is not smaller. */
  function coded(entry: Entry, coding: ContentCoding): Buffer | Promise<Buffer> {
    const known = entry.codings.get(coding);
    if (known !== undefined) return known;
    const settle = (bytes: Buffer): Buffer => {
      const kept = bytes.length < entry.bytes.length ? bytes : entry.bytes;
      entry.codings.set(coding, kept);
      if (kept !== entry.bytes) {
        entry.codedBytes += kept.length;
        if (entries.peek(entry.key)?.entry === entry) entries.set(entry.key, { entry }, { noUpdateTTL: true });
      }
      return kept;
    };
    let compressed: Buffer | Promise<Buffer>;
    try {
      compressed = compression.compress(coding, entry.bytes, 'kept');
    } catch {
      return entry.bytes;
    }
    if (!(compressed instanceof Promise)) return settle(compressed);
    const pending = compressed.then(settle, () => {
      entry.codings.delete(coding);
      return entry.bytes;
    });
    entry.codings.set(coding, pending);
    return pending;
  }

  const plugin: Plugin = {
    onExecute({ args, setExecuteFn }) {
      const executionArgs = args as ExecutionArgs;
      if (getOperationAST(executionArgs.document, executionArgs.operationName)?.operation !== OperationTypeNode.QUERY) return undefined;
      const key = keyOf(executionArgs);
      if (key === undefined) return undefined;
      const hit = entries.get(key)?.entry;
      onLookup?.(hit !== undefined);
      if (hit !== undefined) {
        setExecuteFn(() => hit.result);
        return undefined;
      }
      const startedAt = generation;
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || result.errors !== undefined || generation !== startedAt) return;
          if (!admitted(createHash('sha256').update(key).digest('base64url'))) return;
          const entry = keep(key, result);
          if (entry.bytes.length + key.length > entries.maxSize) return;
          entries.set(key, { entry });
          setResult(entry.result);
        },
      };
    },
    onResultProcess({ request, result }) {
      const entry = (result as Entry['result'])[KEPT];
      if (entry !== undefined) answered.set(request, entry);
    },
    onResponse(payload) {
      const { request, response, fetchAPI } = payload;
      const entry = answered.get(request);
      const contentType = response.headers.get('content-type');
      // A kept result streamed (server-sent events) is not the kept text.
      if (entry === undefined || response.status !== 200 || !JSON_ANSWER.test(contentType ?? '')) return undefined;
      const negotiated = compression.negotiates(entry.bytes.length, contentType);
      if (negotiated) response.headers.append('vary', 'Accept-Encoding');
      const ifNoneMatch = request.headers.get('if-none-match');
      // Any coding's tag names the same content: the 304 carries the tag the client named.
      const held = ifNoneMatch === null ? undefined : [entry.etag, ...compression.codings.map((other) => codedEntityTag(entry.etag, other))].find((tag) => ifNoneMatchMatches(ifNoneMatch, tag));
      if (held !== undefined) {
        // RFC 9110 §15.4.5: the 200's metadata, not its content's own fields.
        const headers: Array<[string, string]> = [['etag', held]];
        response.headers.forEach((value, name) => {
          if (!CONTENT_FIELDS.has(name.toLowerCase())) headers.push([name, value]);
        });
        payload.setResponse(new fetchAPI.Response(null, { status: 304, headers }));
        return undefined;
      }
      const coding = negotiated ? compression.codingOf(request.headers.get('accept-encoding'), 'kept') : 'identity';
      // The kept bytes, not yoga's text: a text is encoded to UTF-8 again for every answer written.
      const answer = (bytes: Buffer): void => {
        const headers = new fetchAPI.Headers(response.headers);
        if (bytes === entry.bytes) headers.set('etag', entry.etag);
        else {
          headers.set('etag', codedEntityTag(entry.etag, coding));
          headers.set('content-encoding', coding);
          headers.set('content-length', String(bytes.length));
        }
        // zlib's and Buffer.from's bytes live in an ArrayBuffer, never a SharedArrayBuffer.
        payload.setResponse(new fetchAPI.Response(bytes as Buffer<ArrayBuffer>, { status: 200, headers }));
      };
      if (coding === 'identity') return answer(entry.bytes);
      const encoded = coded(entry, coding);
      return encoded instanceof Promise ? encoded.then(answer) : answer(encoded);
    },
  };

  return {
    plugin,
    clear() {
      generation += 1;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
