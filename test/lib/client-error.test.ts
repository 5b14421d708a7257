/**
 * A request node:http cannot parse gets an answer that says what was wrong (every
 * error has a message), not node's bare status line. Found by test/graphql/properties.test.ts:
 * a GET whose URL is over the request-head limit was a 431 with an empty body.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../src/lib/client-error.js';
import { startSandboxApp } from '../http/harness.js';
import { expectSafeAnswer, rawExchange } from '../support/hostile-http.js';

describe('requests node:http cannot parse, against the whole app', () => {
  let started: Awaited<ReturnType<typeof startSandboxApp>>;
  beforeAll(async () => {
    started = await startSandboxApp();
  });
  afterAll(() => started.close());

  function expectBoth(answer: Awaited<ReturnType<typeof rawExchange>>, status: number): void {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers.connection).toBe('close');
    const body = JSON.parse(answer.body) as { status: number; detail: string; errors: Array<{ message: string }> };
    expect(body.status).toBe(status);
    expect(body.detail).toMatch(/\w/);
    expect(body.errors[0]?.message).toBe(body.detail);
    // Readable as a GraphQL answer and as a REST problem alike.
    expectSafeAnswer(answer, 'graphql', 'graphql view');
    expectSafeAnswer(answer, 'problem', 'problem view');
  }

  it('a GET /graphql whose URL is over the request-head limit: 431 naming the limit and POST', async () => {
    const target = `/graphql?query=${encodeURIComponent(`{ patron(id: "${'é'.repeat(100_000)}") { id } }`)}`;
    const answer = await rawExchange(started.app.url, { method: 'GET', target });
    expectBoth(answer, 431);
    expect(JSON.parse(answer.body).detail).toMatch(/too large.*POST/);
  });

  it('a header value with a control character: 400 with a message', async () => {
    const answer = await rawExchange(started.app.url, { method: 'GET', target: '/video/stats', headers: [['X-Odd', 'a\u0001b']] });
    expectBoth(answer, 400);
  });

  it('an unknown method: 400 with a message', async () => {
    const answer = await rawExchange(started.app.url, { method: 'BREW', target: '/graphql' });
    expectBoth(answer, 400);
    expect(JSON.parse(answer.body).detail).toMatch(/method/);
  });

  it('the server still answers afterwards', async () => {
    const answer = await rawExchange(started.app.url, { method: 'GET', target: '/healthz' });
    expect(answer.status).toBe(200);
  });
});

describe('a request node:http cannot parse on a connection that already carried requests', () => {
  /** A server whose `/partial` answer stops after its head and 7 bytes, `/waiting` never answers, `/whole` answers at once. */
  async function pipelined(requests: string[]): Promise<string> {
    const server = createServer((request, response) => {
      if (request.url === '/partial') {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        response.write('partial');
      } else if (request.url === '/whole') response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('whole');
    });
    answerClientErrors(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let received = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
      socket.write(requests.map((target) => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`).join(''));
      // The first answer has begun (its head is out) before the malformed request arrives.
      await expect.poll(() => received).toMatch(/(partial|whole)$/);
      socket.write('BREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await once(socket, 'close');
      return received;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it('closes the connection without writing into an answer under way', async () => {
    expect(await pipelined(['/partial'])).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\npartial$/);
  });

  it('closes the connection without writing ahead of an answer still waiting for its turn (pipelined)', async () => {
    expect(await pipelined(['/partial', '/waiting'])).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\npartial$/);
  });

  it('answers with a body once every earlier answer on the connection has finished (keep-alive)', async () => {
    const received = await pipelined(['/whole']);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nwhole/);
    expect(received).toMatch(/whole\s*HTTP\/1\.1 400 Bad Request\r\n[^]*"status":400/);
  });
});
