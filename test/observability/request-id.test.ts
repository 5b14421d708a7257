/**
 * The request id reaches the answer once, whichever way a handler writes its head, over a real
 * server on 127.0.0.1; a handler's shared header list is not modified; the log line and the request
 * histogram see the request. A head node refuses (an invalid header) leaves the id to the answer
 * that follows. A request whose connection is lost before its answer is logged once, as aborted.
 */
import { createServer, request as httpRequest, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SourceHealth } from '../../src/channel/snapshot-store.js';
import { observeRequests } from '../../src/observability/http.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const SHARED_HEADERS = Object.freeze(['content-type', 'text/plain', 'x-handler', 'shared']) as unknown as string[];

/** How a handler may write its head, and the headers each way must show. */
const WRITERS: Record<string, RequestListener> = {
  'flat list': (_request, response) => response.writeHead(200, ['content-type', 'text/plain', 'x-handler', 'flat']).end('ok'),
  'status message and flat list': (_request, response) => response.writeHead(200, 'Fine', ['content-type', 'text/plain', 'x-handler', 'message']).end('ok'),
  'shared frozen list': (_request, response) => response.writeHead(200, SHARED_HEADERS).end('ok'),
  object: (_request, response) => response.writeHead(200, { 'content-type': 'text/plain', 'x-handler': 'object' }).end('ok'),
  'setHeader, then a flat list': (_request, response) => {
    response.setHeader('x-early', 'yes');
    response.writeHead(200, ['content-type', 'text/plain', 'x-handler', 'mixed']).end('ok');
  },
  'end() without writeHead': (_request, response) => {
    response.statusCode = 202;
    response.end('ok');
  },
};

async function serve(handler: RequestListener): Promise<{ url: string; lines: string[]; metrics: ReturnType<typeof createMetrics> }> {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
  const health = { ageSeconds: null, stale: false } as unknown as SourceHealth;
  const metrics = createMetrics({ mode: 'live', snapshots: () => ({ membership: health, video: health, stats: health }), processMetrics: false });
  const listener = observeRequests(handler, { logger, metrics, tracer: undefined, routeOf: () => '/test' });
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, lines, metrics };
}

describe('the request id header', () => {
  for (const [way, handler] of Object.entries(WRITERS)) {
    it(`is written once with the head written by ${way}`, async () => {
      const { url, lines, metrics } = await serve(handler);
      const response = await fetch(url, { headers: { 'x-request-id': 'client-id.1:a' } });
      expect(await response.text()).toBe('ok');
      expect(response.headers.get('x-request-id')).toBe('client-id.1:a');
      if (way !== 'end() without writeHead') {
        expect(response.headers.get('content-type')).toBe('text/plain');
        expect(response.headers.get('x-handler')).toMatch(/\w/);
      }
      if (way === 'setHeader, then a flat list') expect(response.headers.get('x-early')).toBe('yes');
      if (way === 'status message and flat list') expect(response.statusText).toBe('Fine');
      // Two equal header lines would come back joined ("a, a").
      expect(response.headers.get('x-request-id')).not.toContain(',');
      await expect.poll(() => lines.length).toBe(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ msg: 'request', requestId: 'client-id.1:a', route: '/test', status: response.status });
      expect(await metrics.registry.metrics()).toContain(`http_request_duration_seconds_count{method="GET",route="/test",status="${response.status}"} 1`);
    });
  }

  it('leaves a shared header list as it was: frozen or not', async () => {
    const flat = ['content-type', 'text/plain', 'x-handler', 'shared'];
    const lists: Record<string, unknown[]> = { frozen: SHARED_HEADERS, flat };
    for (const [name, list] of Object.entries(lists)) {
      const before = structuredClone(list);
      const { url } = await serve((_request, response) => response.writeHead(200, list as string[]).end('ok'));
      for (const id of ['first', 'second']) {
        const response = await fetch(url, { headers: { 'x-request-id': id } });
        expect(response.headers.get('x-request-id'), name).toBe(id);
        expect(response.headers.get('x-handler'), name).toMatch(/\w/);
        expect(list, name).toEqual(before);
      }
    }
  });

  it('goes out with the answer a handler gives after node refused its head (the list left as it was), and is logged', async () => {
    const invalid = ['content-type', 'text/plain', 'x-bad', 'line\nbreak'];
    let refusal: unknown;
    const { url, lines } = await serve((_request, response) => {
      try {
        response.writeHead(200, invalid);
      } catch (error) {
        refusal = error;
        response.writeHead(500, ['content-type', 'text/plain']).end('refused');
      }
    });
    const response = await fetch(url, { headers: { 'x-request-id': 'refused-1' } });
    expect(refusal).toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(invalid).toEqual(['content-type', 'text/plain', 'x-bad', 'line\nbreak']);
    // The id was not written by the refused head: the next one carries it.
    expect(response.status).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('refused-1');
    await expect.poll(() => lines.length).toBe(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ requestId: 'refused-1', status: 500 });
  });

  it('is a new one when the client sends none or an unusable one (one server: one prefix, a count)', async () => {
    const idsOf = async (url: string): Promise<string[]> =>
      Promise.all(['', 'has space', 'x'.repeat(129)].map(async (given) => (await fetch(url, given === '' ? {} : { headers: { 'x-request-id': given } })).headers.get('x-request-id') ?? ''));
    const first = await idsOf((await serve(WRITERS['flat list'] as RequestListener)).url);
    const second = await idsOf((await serve(WRITERS['object'] as RequestListener)).url);
    for (const id of [...first, ...second]) expect(id).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
    const prefixes = (ids: string[]) => new Set(ids.map((id) => id.split('-')[0]));
    expect(new Set(first).size).toBe(3);
    expect(prefixes(first).size).toBe(1);
    expect(prefixes(second).size).toBe(1);
    // Another server (another replica, a restart) draws another prefix.
    expect(prefixes([...first, ...second]).size).toBe(2);
    expect([...first].map((id) => Number.parseInt(id.split('-')[1] ?? '', 36)).sort()).toEqual([1, 2, 3]);
  });

  it('logs a request whose connection was lost before its answer once, as aborted', async () => {
    let held: ServerResponse | undefined;
    const { url, lines, metrics } = await serve((request, response) => {
      if (request.headers['x-request-id'] === 'lost-1') held = response;
      else response.end('ok');
    });
    const sent = httpRequest(url, { headers: { 'x-request-id': 'lost-1' } });
    sent.on('error', () => undefined);
    sent.end();
    await expect.poll(() => held).toBeDefined();
    sent.destroy();
    await expect.poll(() => lines.length).toBe(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ msg: 'request', requestId: 'lost-1', route: '/test', status: 200, aborted: true });
    // Ending the answer afterwards writes nothing and logs no second line: the next line is the
    // next request's.
    held?.end('late');
    expect(await (await fetch(url, { headers: { 'x-request-id': 'next-1' } })).text()).toBe('ok');
    await expect.poll(() => lines.length).toBe(2);
    expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(['lost-1', 'next-1']);
    expect(await metrics.registry.metrics()).toContain('http_request_duration_seconds_count{method="GET",route="/test",status="200"} 2');
  });
});
