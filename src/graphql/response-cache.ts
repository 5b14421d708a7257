import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, OperationTypeNode, type ExecutionArgs } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { readRequestBody } from '../lib/body.js';
import { entityTag, sendTaggedBody, type TaggedBody } from '../lib/etag.js';
import { createSecondOccurrenceGate } from '../lib/second-occurrence.js';
import type { ChannelGraphStore } from './context.js';

/**
 * The response cache, in front of the GraphQL server at the HTTP level: a repeated request (same
 * method, URL, body and the request headers the answer varies on) is answered with the bytes of the
 * first answer, without parsing, validating or executing anything. Every response is derived from
 * the snapshots, so it forgets everything whenever the store reports a change (refresh or webhook)
 * — including responses that list no entity, which entity-based invalidation would miss.
 *
 * What is kept: 200 answers without `errors`, in JSON, of a query operation (a mutation is never
 * replayed instead of being executed), whose `Vary` names only request headers that are part of the
 * key. The key is a SHA-256 of the method, the URL, the body and the request headers `Accept`,
 * `Origin`, `Access-Control-Request-Headers` and `Access-Control-Request-Method`: yoga's CORS
 * answer echoes the Origin (with `Vary: Origin`), so each origin gets its own entry and no client
 * ever receives the CORS headers computed for another. Entries are evicted least recently used
 * first, bounded in count and in bytes.
 *
 * An answer is kept from its request's second occurrence on: the first leaves only its key (a
 * hash) in a bounded list of recently seen keys. A stream of distinct requests (bench/memory sends
 * 2,000 distinct documents; one of them answers 176 KB) therefore fills nothing and cannot evict
 * the answers clients do repeat; a repeated request is executed twice, then answered from memory.
 */
export interface ResponseCacheOptions {
  /** How long an entry may live even without a change (ms). */
  ttlMs: number;
  /** Entries kept (default 1000); each holds its headers and key besides the body, under 1 KiB. */
  maxEntries?: number;
  /**
   * Response body bytes kept over all entries (default 32 MiB); the least recently used go first,
   * and a larger response is not kept at all. Bounds the cache's memory whatever the dataset: over
   * 100,000 patrons one `supporters` answer alone is megabytes.
   */
  maxBytes?: number;
  /** Requests with larger bodies (or without Content-Length) are passed through uncached. */
  maxRequestBytes?: number;
  /** Told the result of every lookup (true: a hit), for the hit/miss metrics. */
  onLookup?: (hit: boolean) => void;
}

/** Keys of requests answered once, remembered per entry allowed (each key ~100 bytes of heap). */
const SEEN_KEYS_PER_ENTRY = 4;

/** Headers as flat [name, value, …] lists, written as they are on every hit. */
type Entry = TaggedBody & { okHeaders: string[]; notModifiedHeaders: string[] };

/** The GraphQL server's side: answer one fetch-API request. */
export type FetchHandler = (request: Request) => Promise<Response> | Response;
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Response headers never replayed (compared in lower case): the hop-by-hop fields of RFC 9110
 * §7.6.1, which describe one connection, and the framing recomputed for the bytes kept.
 */
const NOT_REPLAYED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'date']);

/** Request headers in the key: a response that varies on anything else is not kept. */
const KEYED_REQUEST_HEADERS = ['accept', 'origin', 'access-control-request-headers', 'access-control-request-method'] as const;
const KEYED = new Set<string>(KEYED_REQUEST_HEADERS);

/** RFC 9110 §15.4.5: a 304 carries the 200's metadata except what describes the content itself. */
const NOT_IN_NOT_MODIFIED = new Set(['content-type', 'content-length']);

/**
 * GraphQL-over-HTTP requests whose answer is a single JSON document: POST JSON of a declared length
 * up to `maxRequestBytes` (so the body read to make the key is bounded; anything else goes to yoga
 * and its body limit), or GET with a query or document id. Never GraphiQL's HTML page, and never a
 * streamed answer (server-sent events, incremental delivery in multipart/mixed): those go straight
 * to yoga, which streams them.
 */
function isCacheable(request: IncomingMessage, maxRequestBytes: number): boolean {
  if (/text\/html|text\/event-stream|multipart\/mixed/i.test(request.headers.accept ?? '')) return false;
  if (request.method === 'POST') {
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    return declared <= maxRequestBytes && (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
  }
  return request.method === 'GET' && /[?&](query|documentId)=/.test(request.url ?? '');
}

function cacheKey(request: IncomingMessage, body: Buffer): string {
  const hash = createHash('sha256').update(`${request.method ?? ''} ${request.url ?? ''}\n`);
  for (const name of KEYED_REQUEST_HEADERS) hash.update(`${request.headers[name] ?? ''}\n`);
  return hash.update(body).digest('base64url');
}

/** The headers to write again, names in lower case, without the fields the Connection header lists. */
function replayableHeaders(headers: Headers): Map<string, string> {
  const connectionFields = new Set((headers.get('connection') ?? '').split(',').map((field) => field.trim().toLowerCase()));
  const kept = new Map<string, string>();
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (!NOT_REPLAYED.has(lower) && !connectionFields.has(lower)) kept.set(lower, value);
  });
  return kept;
}

/** `Vary` names only request headers in the key (and not `*`, RFC 9110 §12.5.5). */
function variesOnKeyOnly(vary: string | undefined): boolean {
  if (vary === undefined) return true;
  return vary.split(',').every((field) => KEYED.has(field.trim().toLowerCase()));
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/(graphql-response\+)?json\b/i.test(contentType ?? '');
}

function hasNoErrors(body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: unknown };
    return parsed.errors === undefined;
  } catch {
    return false;
  }
}

function flatten(headers: Iterable<[string, string]>): string[] {
  return [...headers].flat();
}

/** `store` is only asked for change notifications: any graph with an `onChange` can use this cache. */
export function createResponseCache(store: Pick<ChannelGraphStore, 'onChange'>, options: ResponseCacheOptions) {
  const maxRequestBytes = options.maxRequestBytes ?? 64 * 1024;
  const maxEntries = options.maxEntries ?? 1000;
  const entries = new LRUCache<string, Entry>({
    max: maxEntries,
    maxSize: options.maxBytes ?? 32 * 2 ** 20,
    sizeCalculation: (entry) => Math.max(1, entry.bytes.length),
    ttl: options.ttlMs,
  });
  /** True from a key's second occurrence on: the answer may be kept (4,000 keys seen once, ~0.4 MB, at the defaults). */
  const admitted = createSecondOccurrenceGate(SEEN_KEYS_PER_ENTRY * maxEntries);
  // Bumped on every change: a response computed before a change must not be stored after it.
  let generation = 0;
  const unsubscribe = store.onChange(() => {
    generation += 1;
    entries.clear();
  });
  /** The requests (the fetch API objects handed to the server) that executed a query operation. */
  const queries = new WeakSet<Request>();
  const plugin: Plugin<YogaInitialContext> = {
    onExecute({ args }) {
      // @envelop/types resolves ExecutionArgs to any in this tree: name the fields' real types.
      const { document, operationName } = args as Pick<ExecutionArgs, 'document' | 'operationName'>;
      if (getOperationAST(document, operationName)?.operation === OperationTypeNode.QUERY) queries.add(args.contextValue.request);
    },
  };

  function entryOf(headers: Map<string, string>, body: Buffer): Entry {
    const etag = entityTag(body);
    headers.set('etag', etag);
    const notModified = [...headers].filter(([name]) => !NOT_IN_NOT_MODIFIED.has(name));
    return { okHeaders: flatten([...headers, ['content-length', String(body.length)]]), notModifiedHeaders: flatten(notModified), bytes: body, etag };
  }

  function toFetchRequest(request: IncomingMessage, body: Buffer): Request {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(', '));
    }
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
    return new Request(url, { method: request.method ?? 'GET', headers, ...(request.method === 'POST' && { body: body.toString('utf8') }) });
  }

  async function answer(handle: FetchHandler, request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> {
    const key = cacheKey(request, body);
    const hit = entries.get(key);
    options.onLookup?.(hit !== undefined);
    if (hit) return sendTaggedBody(request, response, hit);
    const startedAt = generation;
    const fetchRequest = toFetchRequest(request, body);
    const answered = await handle(fetchRequest);
    const bytes = Buffer.from(await answered.arrayBuffer());
    const headers = replayableHeaders(answered.headers);
    // A query's answer without errors gets an ETag (so If-None-Match is honoured) whether it is kept or not.
    const cacheable =
      answered.status === 200 &&
      generation === startedAt &&
      queries.has(fetchRequest) &&
      variesOnKeyOnly(headers.get('vary')) &&
      isJson(headers.get('content-type')) &&
      hasNoErrors(bytes);
    if (cacheable) {
      const entry = entryOf(headers, bytes);
      if (admitted(key)) entries.set(key, entry);
      return sendTaggedBody(request, response, entry);
    }
    response.writeHead(answered.status, flatten([...headers, ['content-length', String(bytes.length)]]));
    response.end(bytes);
  }

  return {
    /**
     * Install on the GraphQL server (yoga): it notes which requests executed a query operation, the
     * only answers the cache keeps. Without it nothing is kept.
     */
    plugin,
    /**
     * Wraps the server: cacheable requests go through the cache (and reach `handle` on a miss), the
     * rest go to `passThrough` untouched.
     */
    listener(handle: FetchHandler, passThrough: NodeListener, onError: (error: unknown) => void): NodeListener {
      return (request, response) => {
        if (!isCacheable(request, maxRequestBytes)) {
          passThrough(request, response);
          return;
        }
        (async () => {
          const body = request.method === 'POST' ? await readRequestBody(request, maxRequestBytes) : Buffer.alloc(0);
          await answer(handle, request, response, body);
        })().catch((error: unknown) => {
          onError(error);
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ errors: [{ message: 'Unexpected error.' }] }));
        });
      };
    },
    close: unsubscribe,
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
