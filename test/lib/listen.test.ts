/**
 * listen/close (src/lib/listen.ts), the one way the app, the sandbox, tests and benchmarks serve
 * node:http: close() stops accepting, lets requests in flight finish, closes keep-alive connections
 * as soon as they are idle, and cuts whatever is still open when the grace period ends.
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { listen } from '../../src/lib/listen.js';
import { deferred } from '../support/deferred.js';

/** GET through `agent`, resolving with the status and body, or the client-side error. */
function get(url: string, agent: Agent): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const outgoing = httpRequest(url, { agent }, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode, body }));
      incoming.on('error', (error) => resolve({ error: error.message }));
    });
    outgoing.on('error', (error) => resolve({ error: error.message }));
    outgoing.end();
  });
}

/** Resolves with 'closed', or with 'still open' if `closing` takes longer than a generous while. */
function settleOf(closing: Promise<void>): Promise<string> {
  return Promise.race([closing.then(() => 'closed'), sleep(10_000).then(() => 'still open')]);
}

describe('listen', () => {
  it('serves a request handler on 127.0.0.1 at an ephemeral port', async () => {
    const server = await listen((_request, response) => response.end('hello'));
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(server.url)).text()).toBe('hello');
    } finally {
      await server.close();
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await listen((_request, response) => response.end());
    try {
      const port = Number(new URL(first.url).port);
      await expect(listen((_request, response) => response.end(), { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await first.close();
    }
  });
});

describe('close', () => {
  it('lets a request in flight finish, then closes its keep-alive connection at once', async () => {
    // The handler answers when the test says so; `arrived` tells the test a request is in.
    let arrived = deferred();
    let answer = deferred();
    const server = createServer((_request, response) => {
      arrived.resolve();
      void answer.promise.then(() => response.end('finished'));
    });
    // Without close() closing it, an idle keep-alive connection would stay open this long.
    server.keepAliveTimeout = 120_000;
    const listening = await listen(server, { closeGraceMs: 60_000 });
    const agent = new Agent({ keepAlive: true });
    try {
      answer.resolve();
      expect(await get(listening.url, agent)).toEqual({ status: 200, body: 'finished' }); // one idle connection
      [arrived, answer] = [deferred(), deferred()];
      const inFlight = get(listening.url, agent);
      await arrived.promise;
      const closing = listening.close();
      answer.resolve(); // answered after close() began
      expect(await inFlight).toEqual({ status: 200, body: 'finished' });
      expect(await settleOf(closing)).toBe('closed');
      expect((await get(listening.url, new Agent())).error).toMatch(/ECONNREFUSED/);
    } finally {
      agent.destroy();
    }
  });

  it('cuts a request still unanswered when the grace period ends', async () => {
    const arrived = deferred();
    const listening = await listen(() => arrived.resolve(), { closeGraceMs: 300 });
    const agent = new Agent({ keepAlive: true });
    try {
      const hanging = get(listening.url, agent);
      await arrived.promise;
      expect(await settleOf(listening.close())).toBe('closed');
      expect((await hanging).error).toMatch(/socket hang up|ECONNRESET/);
    } finally {
      agent.destroy();
    }
  });

  it('is idempotent', async () => {
    const listening = await listen((_request, response) => response.end());
    const first = listening.close();
    expect(listening.close()).toBe(first);
    await first;
  });
});
