import ky, { isTimeoutError, type KyInstance } from 'ky';
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
 * The HTTP stack of one client: ky on the fetch of the client's pool, which carries its connection
 * settings (a client certificate, a proxy …) to every request — to `site` and to absolute URLs
 * alike. ky is the client's connection builder (`OAuth2ClientOptions.ky`: hooks, headers), as
 * Faraday is the reference's; four of its features are off, each for a reason of its own.
 */
export function createTransport(options: ConnectionOptions, customize?: (instance: KyInstance) => KyInstance): Transport {
  const pool = options.pool ?? GLOBAL_FETCH;
  const base = ky.create({
    fetch: fetchThrough(pool),
    // Every status is an answer: OAuth2Response reads it, and the client raises OAuth2Error itself (RFC 6749 §5.2).
    throwHttpErrors: false,
    // A token request is not idempotent (an authorization code or a rotated refresh token is spent by the first try).
    retry: 0,
    // The client follows redirects itself, with the reference's rules (at most `max_redirects`, 303 turns into GET).
    redirect: 'manual',
    // ky's timeout covers the wait for the headers only (utils/timeout.ts clears its timer when fetch
    // resolves), so a body that stalls would hang: the deadline is `exchange`'s, given as ky's `signal`.
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
 * One deadline over the whole exchange, given to ky as its `signal`: an AbortController that a plain
 * timer aborts (not `AbortSignal.timeout`, whose timeout Node 20 can lose once the signal is
 * garbage-collected), and that the caller's signal aborts too. The call settles when it aborts even
 * if the abort never reached the socket (a body read that ignores it).
 */
async function exchange(http: KyInstance, request: Exchange, timeoutMs: number, maxBytes: number): Promise<ExchangeResult> {
  const where = `${request.url.origin}${request.url.pathname}`;
  const deadline = new AbortController();
  const caller = request.signal;
  const abortedByCaller = (): void => deadline.abort(new OAuth2AbortError(`request to ${where} was aborted by the caller's signal`, { cause: caller?.reason }));
  const timer = setTimeout(() => deadline.abort(new OAuth2TimeoutError(`request to ${where} timed out after ${timeoutMs} ms`)), timeoutMs);
  if (caller?.aborted === true) abortedByCaller();
  else caller?.addEventListener('abort', abortedByCaller, { once: true });
  const ended = new Promise<never>((_resolve, reject) => {
    const end = (): void => reject(deadline.signal.reason as Error);
    if (deadline.signal.aborted) end();
    else deadline.signal.addEventListener('abort', end, { once: true });
  });
  try {
    return await Promise.race([perform(http, request, deadline.signal, maxBytes, where), ended]);
  } catch (error) {
    // The deadline's own errors are final; anything else comes from the HTTP stack.
    throw deadline.signal.aborted ? deadline.signal.reason : transportError(error, where);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', abortedByCaller);
  }
}

async function perform(http: KyInstance, request: Exchange, signal: AbortSignal, maxBytes: number, where: string): Promise<ExchangeResult> {
  const response = await http(request.url.href, { method: request.method, headers: request.headers, body: (request.body ?? null) as BodyInit | null, signal });
  const body = await readBounded(response, maxBytes, where, signal);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body };
}

/**
 * The body as text, refused (and the connection released) beyond `maxBytes`, declared or actual.
 * The deadline cancels the read itself: once the headers are in, the fetch holds only a weak link to
 * the signal ky gave its Request, which the garbage collector can cut (seen on Node 24).
 */
async function readBounded(response: Response, maxBytes: number, where: string, deadline: AbortSignal): Promise<string> {
  const tooLarge = () => new OAuth2ConnectionError(`the response from ${where} exceeds ${maxBytes} bytes (connection.maxResponseBytes)`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  if (deadline.aborted) cancel();
  else deadline.addEventListener('abort', cancel, { once: true });
  try {
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
  } finally {
    deadline.removeEventListener('abort', cancel);
  }
}

/**
 * ky builds a global `Request`; the pool's fetch takes the parts (undici's own fetch, which a pool
 * with its own dispatcher needs, does not take a global Request). Bodies here are small forms and
 * JSON documents, so they are read whole.
 */
function fetchThrough(pool: ConnectionPool): typeof globalThis.fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    return pool.fetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      ...(body === undefined ? {} : { body }),
      redirect: request.redirect,
      signal: request.signal,
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
