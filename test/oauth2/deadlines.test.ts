import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OAuth2AbortError, OAuth2BaseError, OAuth2Client, OAuth2ConnectionError, OAuth2TimeoutError } from '@channel-graph/oauth2';
import { eventually } from '../support/eventually.js';
import { collectGarbageContinuously } from '../support/hung-upstream.js';

/**
 * `connection.timeout` must fire on Node 20, 22 and 24 whatever the caller passes as `signal`, and
 * must cover the body as well as the headers. The upstreams here misbehave at the TCP level; the
 * garbage collector runs every few milliseconds while the client waits, which is what makes Node 20
 * lose an `AbortSignal.any([signal, AbortSignal.timeout(ms)])` timeout.
 */

interface Upstream {
  url: string;
  /** Sockets the upstream accepted and that are still open. */
  open: Set<Socket>;
  /** Requests received so far (one per connection's first data). */
  readonly requests: number;
  close(): Promise<void>;
}

/** A TCP server that reads requests and answers with `answer` (or never, when it is undefined). */
async function startUpstream(answer: string | undefined): Promise<Upstream> {
  const open = new Set<Socket>();
  let requests = 0;
  const server: NetServer = createNetServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => {
      requests += 1;
      if (answer !== undefined) socket.write(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    open,
    get requests() {
      return requests;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let silent: Upstream;
let stalledBody: Upstream;
const clients: OAuth2Client[] = [];
/** Stops the forced garbage collection of the running test (each test that needs it starts its own). */
let stopCollecting: (() => void) | undefined;

beforeAll(async () => {
  silent = await startUpstream(undefined);
  // Headers and the first bytes of a 100-byte body, then nothing.
  stalledBody = await startUpstream('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"access_token":');
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([silent.close(), stalledBody.close()]);
});
afterEach(() => {
  stopCollecting?.();
  stopCollecting = undefined;
});

function client(site: string, timeout: number): OAuth2Client {
  const created = new OAuth2Client('id', 'secret', { site, connection: { timeout } });
  clients.push(created);
  return created;
}


describe('connection.timeout is a deadline that really fires', () => {
  it('an upstream that accepts the connection and never answers: OAuth2TimeoutError, with a caller signal, under forced GC', async () => {
    stopCollecting = collectGarbageContinuously();
    const caller = new AbortController();
    const started = Date.now();
    const error = await client(silent.url, 300).request('get', 'never', { signal: caller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2TimeoutError);
    expect(error).toBeInstanceOf(OAuth2BaseError);
    expect((error as Error).message).toBe(`request to ${new URL(silent.url).origin}/never timed out after 300 ms`);
    expect(Date.now() - started).toBeLessThan(10_000); // settles on the deadline, not on undici's 300 s headersTimeout
    // The abort reached the socket: the connection is closed, not left hanging.
    await eventually('the connection closed', () => silent.open.size === 0);
  });

  it('an upstream that sends the headers and then stalls the body: OAuth2TimeoutError (the deadline covers the body)', async () => {
    stopCollecting = collectGarbageContinuously();
    const caller = new AbortController();
    const error = await client(stalledBody.url, 300).clientCredentials.getToken({}, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2TimeoutError);
    const withSignal = await client(stalledBody.url, 300).request('get', 'stalled', { signal: caller.signal }).catch((e: unknown) => e);
    expect(withSignal).toBeInstanceOf(OAuth2TimeoutError);
    await eventually('the connection closed', () => stalledBody.open.size === 0);
  });

  it("the caller's own signal still aborts first, as OAuth2AbortError (named AbortError) with the signal's reason", async () => {
    stopCollecting = collectGarbageContinuously();
    const caller = new AbortController();
    const before = silent.requests;
    const pending = client(silent.url, 60_000).request('get', 'never', { signal: caller.signal }).catch((e: unknown) => e);
    await eventually('the request at the upstream', () => silent.requests > before);
    caller.abort(new Error('shutting down'));
    const error = (await pending) as OAuth2AbortError;
    expect(error).toBeInstanceOf(OAuth2AbortError);
    expect(error.name).toBe('AbortError');
    expect((error.cause as Error).message).toBe('shutting down');
    await eventually('the connection closed', () => silent.open.size === 0);
  });

  it('an already aborted signal never opens a connection', async () => {
    const before = silent.open.size;
    const error = await client(silent.url, 60_000).request('get', 'never', { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2AbortError);
    expect(silent.open.size).toBe(before);
  });

});

describe('connection.maxResponseBytes bounds the body', () => {
  it('a declared or streamed body above the limit is refused with OAuth2ConnectionError; an unfinished one has its connection closed', async () => {
    const big = 'x'.repeat(2048);
    // `connection: close`: the peer answers one request per connection, and a complete body the
    // client refused may leave its connection reusable (undici on Node 24 keeps it for the next request).
    const declared = await startUpstream(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${big.length}\r\nconnection: close\r\n\r\n${big}`);
    const chunked = await startUpstream(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n800\r\n${big}\r\n`);
    try {
      for (const upstream of [declared, chunked]) {
        const bounded = new OAuth2Client('id', null, { site: upstream.url, connection: { maxResponseBytes: 1024 } });
        clients.push(bounded);
        const error = await bounded.request('get', 'big').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OAuth2ConnectionError);
        expect((error as Error).message).toContain('exceeds 1024 bytes');
      }
      // The chunked body never ends: refusing it must close that connection, not leave it waiting.
      await eventually('the connection closed', () => chunked.open.size === 0);
      const roomy = new OAuth2Client('id', null, { site: declared.url, connection: { maxResponseBytes: 4096 } });
      clients.push(roomy);
      expect((await roomy.request('get', 'big')).body).toBe(big);
    } finally {
      await Promise.all([declared.close(), chunked.close()]);
    }
  });
});
