import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer as createNetServer, connect, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessToken, OAuth2Client, OAuth2ConnectionError, OAuth2Error, OAuth2TimeoutError } from '@channel-graph/oauth2';
import { undiciPool } from '@channel-graph/oauth2/undici';
import { eventually } from '../support/eventually.js';
import { createTestPki, type TestPki } from './support/certs.js';
import { json, startServer, type TestServer } from './support/servers.js';

let a: TestServer;
let b: TestServer;
let pki: TestPki;
const clients: OAuth2Client[] = [];
function client(options: ConstructorParameters<typeof OAuth2Client>[2] = {}): OAuth2Client {
  const created = new OAuth2Client('cid', 'csecret', { site: a.url, ...options });
  clients.push(created);
  return created;
}

beforeAll(async () => {
  pki = createTestPki();
  b = await startServer((request, response) => json(response, 200, { landed: request.path }));
  a = await startServer(async (request, response) => {
    const redirect = (status: number, location: string) => response.writeHead(status, { location }).end();
    switch (request.path) {
      case '/r1': return redirect(302, 'r2');
      case '/r2': return redirect(301, '/final');
      case '/loop': return redirect(302, '/loop');
      case '/see-other': return redirect(303, '/final');
      case '/temporary': return redirect(307, '/final');
      case '/cross': return redirect(302, `${b.origin}/landing`);
      case '/no-location': return response.writeHead(302).end();
      case '/json-error': return json(response, 400, { error: 'invalid_request', error_description: 'missing scope' });
      case '/form-error':
        return response.writeHead(401, { 'content-type': 'application/x-www-form-urlencoded' }).end('error=invalid_client&error_description=bad+client');
      case '/server-error': return response.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      case '/never':
        // Never answered: the client's deadline or its caller's abort ends the request.
        return new Promise((resolve) => response.once('close', resolve));
      case '/oauth/token-text': return response.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      default: return json(response, 200, { path: request.path });
    }
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([a.close(), b.close()]);
});

describe('redirects', () => {
  it('follows relative and absolute-path Locations', async () => {
    const response = await client().request('get', 'r1');
    expect(response.status).toBe(200);
    expect(response.parsed).toMatchObject({ path: '/final' });
    expect(a.requests.slice(-3).map((r) => r.path)).toEqual(['/r1', '/r2', '/final']);
  });

  it('stops after maxRedirects and returns the redirect response', async () => {
    const before = a.requests.length;
    const response = await client({ maxRedirects: 2 }).request('get', 'loop');
    expect(response.status).toBe(302);
    expect(a.requests.length - before).toBe(3);
    const defaultLimit = a.requests.length;
    await client().request('get', 'loop');
    expect(a.requests.length - defaultLimit).toBe(6); // 5 redirects followed by default
  });

  it('303 turns a POST into a GET without body', async () => {
    await client().request('post', 'see-other', { body: { secret: 'x' } });
    const final = a.requests.at(-1);
    expect(final).toMatchObject({ method: 'GET', path: '/final', body: '' });
    expect(final?.headers['content-type']).toBeUndefined();
  });

  it('307 repeats the POST with its body', async () => {
    await client().request('post', 'temporary', { body: { keep: 'me' } });
    expect(a.requests.at(-1)).toMatchObject({ method: 'POST', path: '/final', body: 'keep=me' });
  });

  it('never forwards the Authorization header to another origin; keeps it on the same origin', async () => {
    const token = new AccessToken(client(), 'secret-token');
    const response = await token.get('cross');
    expect(response.parsed).toMatchObject({ landed: '/landing' });
    expect(b.requests.at(-1)?.headers.authorization).toBeUndefined();
    expect(a.requests.at(-1)?.headers.authorization).toBe('Bearer secret-token');
    await token.get('r1');
    expect(a.requests.at(-1)).toMatchObject({ path: '/final' });
    expect(a.requests.at(-1)?.headers.authorization).toBe('Bearer secret-token');
  });

  it('a redirect without Location is an OAuth2Error', async () => {
    await expect(client().request('get', 'no-location')).rejects.toThrow(/no Location header/);
  });
});

describe('errors (raiseErrors)', () => {
  it('a JSON error response → OAuth2Error with code, description, response', async () => {
    const error = (await client().request('get', 'json-error').catch((e: unknown) => e)) as OAuth2Error;
    expect(error).toBeInstanceOf(OAuth2Error);
    expect(error).toMatchObject({ name: 'OAuth2Error', code: 'invalid_request', description: 'missing scope' });
    expect(error.response.status).toBe(400);
    expect(error.message).toBe('invalid_request: missing scope (HTTP 400)');
  });

  it('a form-encoded error body is read the same way', async () => {
    const error = (await client().request('get', 'form-error').catch((e: unknown) => e)) as OAuth2Error;
    expect(error).toMatchObject({ code: 'invalid_client', description: 'bad client' });
    expect(error.response.status).toBe(401);
  });

  it('a non-standard error body: no code, the status in the message, the body on the response', async () => {
    const error = (await client().request('get', 'server-error').catch((e: unknown) => e)) as OAuth2Error;
    expect(error.code).toBeUndefined();
    expect(error.message).toBe('HTTP 500');
    expect(error.response.body).toBe('boom');
  });

  it('raiseErrors: false returns the response with .error set (client-wide or per request)', async () => {
    const response = await client({ raiseErrors: false }).request('get', 'json-error');
    expect(response.status).toBe(400);
    expect(response.error).toBeInstanceOf(OAuth2Error);
    expect(response.error?.code).toBe('invalid_request');
    const perRequest = await client().request('get', 'json-error', { raiseErrors: false });
    expect(perRequest.error?.code).toBe('invalid_request');
    expect((await client().request('get', 'final')).error).toBeUndefined();
  });

  it('getToken rejects when the response is not a token, whatever raiseErrors says', async () => {
    await expect(client({ tokenUrl: 'oauth/token-text' }).clientCredentials.getToken()).rejects.toMatchObject({ name: 'OAuth2Error', message: expect.stringContaining('not a token') as unknown });
    await expect(client({ raiseErrors: false, tokenUrl: 'json-error' }).clientCredentials.getToken()).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('connection: timeouts, failures, proxy, TLS, ky hook', () => {
  it('timeout → OAuth2TimeoutError', async () => {
    const error = await client({ connection: { timeout: 100 } }).request('get', 'never').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2TimeoutError);
    expect((error as Error).name).toBe('OAuth2TimeoutError');
  });

  it('an aborted signal rejects with the AbortError itself', async () => {
    const controller = new AbortController();
    const before = a.requests.length;
    const pending = client().request('get', 'never', { signal: controller.signal });
    await eventually('the request at the server', () => a.requests.length > before);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('openTimeout → OAuth2TimeoutError when the TLS handshake never completes', async () => {
    const sockets: Socket[] = [];
    const silent: NetServer = createNetServer((socket) => sockets.push(socket)); // accepts TCP, never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const error = await client({ connection: { pool: undiciPool({ openTimeout: 150 }) } }).request('get', `https://127.0.0.1:${port}/`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OAuth2TimeoutError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('connection refused → OAuth2ConnectionError without the query string', async () => {
    const closed = await startServer(() => undefined);
    await closed.close();
    const error = (await client().request('get', `${closed.origin}/x`, { params: { access_token: 'leak-me' } }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(OAuth2ConnectionError);
    expect(error.message).toContain(`${closed.origin}/x`);
    expect(error.message).not.toContain('leak-me');
  });

  it('proxy: requests go through the HTTP proxy', async () => {
    const seen: string[] = [];
    const proxy = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? '');
      const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    proxy.on('connect', (req, socket: Socket, head: Buffer) => {
      seen.push(`CONNECT ${req.url}`);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxied = client({ connection: { pool: undiciPool({ proxy: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }) } });
      const response = await proxied.request('get', 'via-proxy');
      expect(response.parsed).toMatchObject({ path: '/via-proxy' });
      expect(seen.some((line) => line.includes(`127.0.0.1:${new URL(a.origin).port}`))).toBe(true);
      await proxied.close();
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('mutual TLS applies to the site and to absolute URLs on other hosts', async () => {
    const tls = { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: true };
    const site = await startServer((_r, res) => json(res, 200, { access_token: 'mtls-token' }), tls);
    const other = await startServer((_r, res) => json(res, 200, { ok: true }), tls);
    try {
      const c = client({ site: site.url, authScheme: 'tls_client_auth', connection: { pool: undiciPool({ tls: { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert } }) } });
      const token = await c.clientCredentials.getToken();
      await token.get(`${other.origin}/resource`);
      expect(site.requests.at(-1)?.clientCertCn).toBe('oauth2-test-client');
      expect(other.requests.at(-1)?.clientCertCn).toBe('oauth2-test-client');
    } finally {
      await Promise.all([site.close(), other.close()]);
    }
  });

  it('rejectUnauthorized: an untrusted server certificate fails unless verification is off', async () => {
    const untrusted = await startServer((_r, res) => json(res, 200, { ok: true }), { key: pki.serverKey, cert: pki.serverCert });
    try {
      await expect(client().request('get', untrusted.url)).rejects.toBeInstanceOf(OAuth2ConnectionError);
      expect((await client({ connection: { pool: undiciPool({ tls: { rejectUnauthorized: false } }) } }).request('get', untrusted.url)).status).toBe(200);
    } finally {
      await untrusted.close();
    }
  });

  it('the ky hook customises the connection (headers, hooks)', async () => {
    const seen: string[] = [];
    const hooked = client({
      ky: (instance) =>
        instance.extend({
          headers: { 'x-from-hook': 'yes' },
          hooks: { beforeRequest: [(request) => void seen.push(request.method)] },
        }),
    });
    await hooked.request('put', 'hooked');
    expect(a.requests.at(-1)?.headers['x-from-hook']).toBe('yes');
    expect(seen).toEqual(['PUT']);
  });
});
