import ky, { isTimeoutError, type KyInstance } from 'ky';
import { Agent, type Dispatcher, ProxyAgent, fetch as undiciFetch } from 'undici';
import { OAuth2ConnectionError, OAuth2TimeoutError } from './errors.js';

/** TLS material for every HTTPS request of a client (reference: Wire behaviour 7, mutual TLS). */
export interface TlsOptions {
  cert?: string | Buffer;
  key?: string | Buffer;
  ca?: string | Buffer | Array<string | Buffer>;
  rejectUnauthorized?: boolean;
}

export interface ConnectionOptions {
  /** Whole-request timeout in milliseconds (reference: `request.timeout`). */
  timeout?: number;
  /** TCP + TLS connect timeout in milliseconds (reference: `request.open_timeout`). */
  openTimeout?: number;
  /** `http://host:port` of an HTTP proxy; HTTPS targets are tunnelled with CONNECT. */
  proxy?: string;
  paramsEncoder?: 'nested' | 'flat';
  tls?: TlsOptions;
}

export interface Transport {
  readonly http: KyInstance;
  close(): Promise<void>;
}

/**
 * The HTTP stack of one client: ky on undici's fetch with the client's own dispatcher, which carries
 * the TLS client certificate, proxy and connect timeout to every request — to `site` and to absolute
 * URLs alike. ky never retries, never throws on a status and never follows redirects: the client
 * applies its own redirect rules.
 */
export function createTransport(options: ConnectionOptions, customize?: (instance: KyInstance) => KyInstance): Transport {
  const connect = { ...options.tls, ...(options.openTimeout === undefined ? {} : { timeout: options.openTimeout }) };
  const dispatcher: Dispatcher =
    options.proxy === undefined
      ? new Agent({ connect })
      : new ProxyAgent({ uri: options.proxy, requestTls: connect, ...(options.openTimeout === undefined ? {} : { connect: { timeout: options.openTimeout } }) });
  const base = ky.create({
    fetch: fetchThrough(dispatcher),
    throwHttpErrors: false,
    retry: 0,
    redirect: 'manual',
    timeout: options.timeout ?? false,
  });
  let closing: Promise<void> | undefined;
  return {
    http: customize === undefined ? base : customize(base),
    close: () => (closing ??= dispatcher.close()),
  };
}

/**
 * ky builds a global `Request`; undici's own `fetch` (needed for its dispatcher) takes the parts.
 * Bodies here are small forms and JSON documents, so they are read whole.
 */
function fetchThrough(dispatcher: Dispatcher): typeof globalThis.fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const response = await undiciFetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      redirect: request.redirect,
      signal: request.signal,
      dispatcher,
    });
    return response as unknown as Response;
  };
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Maps a failure of the HTTP stack to the library's errors; `where` is the URL without its query. */
export function transportError(error: unknown, where: string): unknown {
  if (isTimeoutError(error)) return new OAuth2TimeoutError(`request to ${where} timed out`, { cause: error });
  if (error instanceof Error && error.name === 'AbortError') return error;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new OAuth2TimeoutError(`request to ${where} timed out (${code})`, { cause: error });
  if (error instanceof TypeError) {
    return new OAuth2ConnectionError(`request to ${where} failed${code === undefined ? '' : ` (${code})`}`, { cause: error });
  }
  return error;
}
