import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelGraphStore } from './context.js';

/**
 * The response cache, in front of the GraphQL server at the HTTP level: a repeated request (same
 * method, URL, Accept and body) is answered with the bytes of the first answer, without parsing,
 * validating or executing anything. Every response is derived from the snapshots, so it forgets
 * everything whenever the store reports a change (refresh or webhook) — including responses that
 * list no entity, which entity-based invalidation would miss. Only 200 responses without `errors`
 * are kept: a partial answer during an outage or a refused document is never replayed.
 */
export interface ResponseCacheOptions {
  /** How long an entry may live even without a change (ms). */
  ttlMs: number;
  /** Entries kept; the oldest go first. */
  maxEntries?: number;
  /**
   * Response bytes kept over all entries (default 32 MiB); the oldest go first, and a larger response
   * is not kept at all. Bounds the cache's memory whatever the dataset: over 100,000 patrons one
   * `supporters` answer alone is megabytes.
   */
  maxBytes?: number;
  /** Requests with larger bodies (or without Content-Length) are passed through uncached. */
  maxRequestBytes?: number;
}

interface Entry {
  status: number;
  /** Flat [name, value, …] list, content-length included: written as it is on every hit. */
  headers: string[];
  body: Buffer;
  etag: string;
  expiresAt: number;
}

/** The GraphQL server's side: answer one fetch-API request. */
export type FetchHandler = (request: Request) => Promise<Response> | Response;
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Response headers not replayed: they describe one connection or are recomputed. */
const HOP_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * Operations only: POST JSON of a declared length up to `maxRequestBytes` (so the body read to make
 * the key is bounded; anything else goes to yoga and its body limit), or GET with a query or document
 * id; never GraphiQL's HTML page.
 */
function isCacheable(request: IncomingMessage, maxRequestBytes: number): boolean {
  if ((request.headers.accept ?? '').includes('text/html')) return false;
  if (request.method === 'POST') {
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    return declared <= maxRequestBytes && (request.headers['content-type'] ?? '').startsWith('application/json');
  }
  return request.method === 'GET' && /[?&](query|documentId)=/.test(request.url ?? '');
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function hasNoErrors(body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: unknown };
    return parsed.errors === undefined;
  } catch {
    return false;
  }
}

/** `store` is only asked for change notifications: any graph with an `onChange` can use this cache. */
export function createResponseCache(store: Pick<ChannelGraphStore, 'onChange'>, options: ResponseCacheOptions) {
  const maxEntries = options.maxEntries ?? 1000;
  const maxBytes = options.maxBytes ?? 32 * 2 ** 20;
  const maxRequestBytes = options.maxRequestBytes ?? 64 * 1024;
  const entries = new Map<string, Entry>();
  let keptBytes = 0;
  // Bumped on every change: a response computed before a change must not be stored after it.
  let generation = 0;
  const unsubscribe = store.onChange(() => {
    generation += 1;
    entries.clear();
    keptBytes = 0;
  });

  function forget(key: string, entry: Entry): void {
    entries.delete(key);
    keptBytes -= entry.body.length;
  }

  function lookup(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      forget(key, entry);
      return undefined;
    }
    return entry;
  }

  function remember(key: string, status: number, headers: Headers, body: Buffer): Entry {
    const kept: Record<string, string> = {};
    headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) kept[name] = value;
    });
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    const flat = Object.entries({ ...kept, etag, 'content-length': String(body.length) }).flat();
    const entry = { status, headers: flat, body, etag, expiresAt: Date.now() + options.ttlMs };
    if (body.length > maxBytes) return entry;
    const previous = entries.get(key);
    if (previous) forget(key, previous);
    entries.set(key, entry);
    keptBytes += body.length;
    for (const [oldestKey, oldest] of entries) {
      if (entries.size <= maxEntries && keptBytes <= maxBytes) break;
      forget(oldestKey, oldest);
    }
    return entry;
  }

  /** Answers from the entry: 304 when the client already has these bytes (RFC 9110 §13.1.2). */
  function replay(entry: Entry, request: IncomingMessage, response: ServerResponse): void {
    if (request.headers['if-none-match'] === entry.etag) {
      response.writeHead(304, { etag: entry.etag });
      response.end();
      return;
    }
    response.writeHead(entry.status, entry.headers);
    response.end(entry.body);
  }

  async function answer(handle: FetchHandler, request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> {
    const key = `${request.method ?? ''} ${request.url ?? ''}\n${request.headers.accept ?? ''}\n${body.toString('utf8')}`;
    const hit = lookup(key);
    if (hit) return replay(hit, request, response);
    const startedAt = generation;
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(', '));
    }
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
    const answered = await handle(new Request(url, { method: request.method ?? 'GET', headers, ...(request.method === 'POST' && { body: body.toString('utf8') }) }));
    const bytes = Buffer.from(await answered.arrayBuffer());
    if (answered.status === 200 && generation === startedAt && hasNoErrors(bytes)) {
      return replay(remember(key, answered.status, answered.headers, bytes), request, response);
    }
    const passed: Record<string, string> = {};
    answered.headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) passed[name] = value;
    });
    response.writeHead(answered.status, { ...passed, 'content-length': String(bytes.length) });
    response.end(bytes);
  }

  return {
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
          const body = request.method === 'POST' ? await readBody(request) : Buffer.alloc(0);
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
