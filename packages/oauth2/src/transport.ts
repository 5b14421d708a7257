import ky, { isTimeoutError, type KyInstance, type Options } from 'ky';
import { withDeadline } from './deadline.js';
import { OAuth2AbortError, OAuth2ConnectionError, OAuth2TimeoutError } from './errors.js';

/**
 * Where a client's requests go: a fetch and what closes its connections. The default is the global
 * fetch (Node's shared pool, which `close()` leaves alone). `undiciPool()` of
 * `@channel-graph/oauth2/undici` gives a client its own pool, with a TLS client certificate
 * (mutual TLS), an HTTP proxy or a connect timeout, closed by `client.close()`.
 */
export interface ConnectionPool {
  /** Called with the URL and plain parts (method, headers, body, redirect, signal), never a Request. */
  fetch(url: string, init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface ConnectionOptions {
  /**
   * Whole-exchange deadline in milliseconds — connect, headers and body (reference: `request.timeout`).
   * Default 30 000: every call has a deadline.
   */
  timeout?: number;
  paramsEncoder?: 'nested' | 'flat';
  /** Largest response body read, in bytes; a larger one fails with OAuth2ConnectionError. Default 8 MiB. */
  maxResponseBytes?: number;
  /** The connections the requests go through (see ConnectionPool). Default: the global fetch. */
  pool?: ConnectionPool;
}

const GLOBAL_FETCH: ConnectionPool = { fetch: (url, init) => fetch(url, init), close: () => Promise.resolve() };

/** One HTTP request as the client sends it. */
export interface Exchange {
  method: string;
  url: URL;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | undefined;
  /** The caller's signal: aborting it ends the request with OAuth2AbortError. */
  signal: AbortSignal | undefined;
}

/** The answer, read whole (header names lowercase). */
export interface ExchangeResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Transport {
  readonly http: KyInstance;
  /**
   * Sends one request and reads its whole body under one deadline (`timeout`), which covers the
   * wait for the headers AND the body, and bounds the body at `maxResponseBytes`.
   */
  exchange(request: Exchange): Promise<ExchangeResult>;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * The key under which `exchange` hands its own abort signal to `fetchThrough`. ky passes options it
 * does not know to `fetch` as they are (ky `findUnknownOptions`), so the signal reaches the
 * pool's fetch directly — not through ky's `AbortSignal.any` and the Request's internally followed signal.
 */
const DEADLINE_SIGNAL = 'deadlineSignal';

/**
 * The HTTP stack of one client: ky on the fetch of the client's pool, which carries its connection
 * settings (a client certificate, a proxy …) to every request — to `site` and to absolute URLs
 * alike. ky never retries, never throws on a status and never follows redirects: the client applies
 * its own redirect rules.
 */
export function createTransport(options: ConnectionOptions, customize?: (instance: KyInstance) => KyInstance): Transport {
  const pool = options.pool ?? GLOBAL_FETCH;
  // ky's own timeout is off: it only covers the wait for the headers (ky utils/timeout.ts clears
  // its timer when fetch resolves), so a body that stalls would hang. `exchange` keeps the deadline.
  const base = ky.create({
    fetch: fetchThrough(pool),
    throwHttpErrors: false,
    retry: 0,
    redirect: 'manual',
    timeout: false,
  });
  const http = customize === undefined ? base : customize(base);
  const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let closing: Promise<void> | undefined;
  return {
    http,
    exchange: (request) => exchange(http, request, timeoutMs, maxBytes),
    close: () => (closing ??= pool.close()),
  };
}

/**
 * One deadline over the whole exchange (deadline.ts: a plain timer and AbortController, not
 * `AbortSignal.timeout`/`AbortSignal.any`, whose timeout Node 20 can lose once the signal is
 * garbage-collected). Its signal goes straight to the pool's fetch, and the call settles on time even if an
 * abort never reached the socket.
 */
async function exchange(http: KyInstance, request: Exchange, timeoutMs: number, maxBytes: number): Promise<ExchangeResult> {
  const where = `${request.url.origin}${request.url.pathname}`;
  try {
    return await withDeadline((signal) => perform(http, request, signal, maxBytes, where), {
      timeoutMs,
      signal: request.signal,
      timeoutError: () => new OAuth2TimeoutError(`request to ${where} timed out after ${timeoutMs} ms`),
      abortError: (reason) => new OAuth2AbortError(`request to ${where} was aborted by the caller's signal`, { cause: reason }),
    });
  } catch (error) {
    // The deadline's own errors are final; anything else comes from the HTTP stack.
    throw error instanceof OAuth2TimeoutError || error instanceof OAuth2AbortError ? error : transportError(error, where);
  }
}

async function perform(http: KyInstance, request: Exchange, signal: AbortSignal, maxBytes: number, where: string): Promise<ExchangeResult> {
  const init: Options & { [DEADLINE_SIGNAL]: AbortSignal } = {
    method: request.method,
    headers: request.headers,
    body: (request.body ?? null) as BodyInit | null,
    [DEADLINE_SIGNAL]: signal,
  };
  const response = await http(request.url.href, init);
  const body = await readBounded(response, maxBytes, where);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body };
}

/** The body as text, refused (and the connection released) beyond `maxBytes`, declared or actual. */
async function readBounded(response: Response, maxBytes: number, where: string): Promise<string> {
  const tooLarge = () => new OAuth2ConnectionError(`the response from ${where} exceeds ${maxBytes} bytes (connection.maxResponseBytes)`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * ky builds a global `Request`; the pool's fetch takes the parts (undici's own fetch, which a pool
 * with its own dispatcher needs, does not take a global Request). Bodies here are small forms and
 * JSON documents, so they are read whole.
 */
function fetchThrough(pool: ConnectionPool): typeof globalThis.fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const deadlineSignal = (init as { [DEADLINE_SIGNAL]?: AbortSignal } | undefined)?.[DEADLINE_SIGNAL];
    const body = request.body === null ? undefined : await request.arrayBuffer();
    return pool.fetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      ...(body === undefined ? {} : { body }),
      redirect: request.redirect,
      signal: deadlineSignal ?? request.signal,
    });
  };
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Maps a failure of the HTTP stack to the library's errors; `where` is the URL without its query. */
function transportError(error: unknown, where: string): unknown {
  // A ky instance customised with its own `timeout` raises ky's TimeoutError.
  if (isTimeoutError(error)) return new OAuth2TimeoutError(`request to ${where} timed out`, { cause: error });
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new OAuth2TimeoutError(`request to ${where} timed out (${code})`, { cause: error });
  if (error instanceof TypeError) {
    return new OAuth2ConnectionError(`request to ${where} failed${code === undefined ? '' : ` (${code})`}`, { cause: error });
  }
  return error;
}
