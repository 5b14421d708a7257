/**
 * `@channel-graph/oauth2/undici`: a client's own connection pool on undici (an optional peer
 * dependency), for what the global fetch cannot do per client: a TLS client certificate (mutual TLS,
 * reference: Wire behaviour 7), an HTTP proxy, a connect timeout; `client.close()` closes it.
 *
 *   const client = new OAuth2Client(id, null, { site, authScheme: 'tls_client_auth', connection: { pool: undiciPool({ tls: { cert, key } }) } });
 */
import { Agent, type Dispatcher, ProxyAgent, fetch as undiciFetch } from 'undici';
import type { ConnectionPool } from './transport.js';

/** TLS material for every HTTPS request of a client (reference: Wire behaviour 7, mutual TLS). */
export interface TlsOptions {
  cert?: string | Buffer;
  key?: string | Buffer;
  ca?: string | Buffer | Array<string | Buffer>;
  rejectUnauthorized?: boolean;
}

export interface UndiciPoolOptions {
  /** TCP + TLS connect timeout in milliseconds (reference: `request.open_timeout`); undici's default 10 000. */
  openTimeout?: number;
  /** `http://host:port` of an HTTP proxy; HTTPS targets are tunnelled with CONNECT. */
  proxy?: string;
  tls?: TlsOptions;
}

/** A pool of connections of its own (an undici Agent, or a ProxyAgent with `proxy`). */
export function undiciPool(options: UndiciPoolOptions = {}): ConnectionPool {
  const connect = { ...options.tls, ...(options.openTimeout === undefined ? {} : { timeout: options.openTimeout }) };
  const dispatcher: Dispatcher =
    options.proxy === undefined
      ? new Agent({ connect })
      : new ProxyAgent({ uri: options.proxy, requestTls: connect, ...(options.openTimeout === undefined ? {} : { connect: { timeout: options.openTimeout } }) });
  return {
    // undici's fetch types its own RequestInit and Response: the same shapes as the global ones.
    fetch: async (url, init) => (await undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as Response,
    close: () => dispatcher.close(),
  };
}

export type { ConnectionPool } from './transport.js';
