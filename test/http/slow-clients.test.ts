import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import { DEFAULT_HTTP_SERVER_SETTINGS } from '../../src/config.js';
import { makeDataDir, request, silentLogger, testConfig } from './harness.js';

/**
 * Slow clients cannot hold connections: a client that dribbles its headers is cut off after
 * HTTP_HEADERS_TIMEOUT_MS, one that dribbles its body after HTTP_REQUEST_TIMEOUT_MS, an idle
 * keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS — with Node's defaults (60 s, 300 s) a
 * slowloris client held its connection for minutes. The timeouts here are small so that the test
 * can assert them; node:http checks them once a second, hence the margin.
 */
const HTTP = { headersTimeoutMs: 600, requestTimeoutMs: 1_200, keepAliveTimeoutMs: 400 };
const CHECK_INTERVAL_MS = 1_000;
/** node:http closes an idle keep-alive socket one second after the timeout it advertises in `Keep-Alive: timeout=`. */
const KEEP_ALIVE_BUFFER_MS = 1_000;
const MARGIN_MS = 1_500;

let app: ChannelApp;
let dataDir: Awaited<ReturnType<typeof makeDataDir>>;

beforeAll(async () => {
  dataDir = await makeDataDir();
  app = await createChannelApp(testConfig(dataDir.path, { mode: 'sandbox' }, { http: HTTP }), { logger: silentLogger });
});
afterAll(async () => {
  await app.close();
  await dataDir.remove();
});

interface SlowClient {
  socket: Socket;
  /** Everything the server sent. */
  received: () => string;
  /** Resolves with the ms from connect to the server closing the connection. */
  closed: Promise<number>;
}

/** A raw TCP client that sends `head`, then one byte of `drip` (if any) every 100 ms until the server closes. */
function slowClient(head: string, drip = ''): Promise<SlowClient> {
  const { port, hostname } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let dripping: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      const started = performance.now();
      socket.write(head);
      let next = 0;
      if (drip !== '') {
        dripping = setInterval(() => {
          if (socket.writable) socket.write(drip.charAt(next % drip.length));
          next += 1;
        }, 100);
      }
      const closed = new Promise<number>((done) =>
        socket.once('close', () => {
          clearInterval(dripping);
          done(performance.now() - started);
        }),
      );
      resolve({ socket, received: () => received, closed });
    });
    socket.once('error', reject);
  });
}

describe.concurrent('slow clients are cut off', () => {
  it(`headers dribbled one byte per 100 ms: 408 and closed after HTTP_HEADERS_TIMEOUT_MS (${HTTP.headersTimeoutMs} ms)`, async () => {
    const client = await slowClient('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: a\r\n');
    const ms = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(ms).toBeGreaterThanOrEqual(HTTP.headersTimeoutMs - 50);
    expect(ms, `closed after ${Math.round(ms)} ms`).toBeLessThan(HTTP.headersTimeoutMs + CHECK_INTERVAL_MS + MARGIN_MS);
  });

  for (const [path, contentType] of [
    ['/membership/webhook', 'application/json'],
    ['/graphql', 'application/json'],
  ] as const) {
    it(`a POST ${path} body dribbled one byte per 100 ms: closed after HTTP_REQUEST_TIMEOUT_MS (${HTTP.requestTimeoutMs} ms)`, async () => {
      const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nContent-Length: 10000\r\n\r\n`;
      const client = await slowClient(head, '{"query":"{ __typename }"}');
      const ms = await client.closed;
      expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[^]*Connection: close\r\n\r\n/);
      expect(client.received()).toMatch(/"detail":"The request was not received completely within the time allowed\."/);
      expect(ms).toBeGreaterThanOrEqual(HTTP.requestTimeoutMs - 50);
      expect(ms, `closed after ${Math.round(ms)} ms`).toBeLessThan(HTTP.requestTimeoutMs + CHECK_INTERVAL_MS + MARGIN_MS);
    });
  }

  it(`an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS (${HTTP.keepAliveTimeoutMs} ms)`, async () => {
    const client = await slowClient('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const ms = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(ms).toBeGreaterThanOrEqual(HTTP.keepAliveTimeoutMs - 50);
    expect(ms, `closed after ${Math.round(ms)} ms`).toBeLessThan(HTTP.keepAliveTimeoutMs + KEEP_ALIVE_BUFFER_MS + MARGIN_MS);
  });

  it('an ordinary client is not affected', async () => {
    expect((await request(app.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('the defaults are far below Node’s (headers 60 s, request 300 s)', () => {
    expect(DEFAULT_HTTP_SERVER_SETTINGS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
  });
});
