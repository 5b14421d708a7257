/**
 * The bounded request-body reader (src/lib/body.ts), against real requests on 127.0.0.1: exact
 * bytes within the limit; over it, a refusal before the body is read (declared length) or at the
 * chunk that passes the limit (chunked), after which the 413 still reaches the client.
 */
import { request as httpRequest, IncomingMessage } from 'node:http';
import { connect, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyIncompleteError, BodyTooLargeError, readRequestBody, readStreamBody } from '../../src/lib/body.js';
import { listen, type Listening } from '../../src/lib/listen.js';
import { problem, sendProblem } from '../../src/lib/problem.js';

const LIMIT = 64 * 1024;

let server: Listening;
/** Every refusal, in order (a client that went away never sees its answer). */
const refusals: unknown[] = [];
beforeAll(async () => {
  server = await listen((request, response) => {
    readRequestBody(request, LIMIT).then(
      (body) => response.end(`${body.length}:${body.toString('latin1').slice(0, 16)}`),
      (error: unknown) => {
        refusals.push(error);
        if (error instanceof BodyTooLargeError) sendProblem(response, problem(413, error.message), { connection: 'close' });
        else sendProblem(response, problem(500, String(error)));
      },
    );
  });
});
afterAll(() => server.close());

interface Sent {
  status: number | undefined;
  text: string;
  /** Body bytes the client had written when the answer arrived. */
  written: number;
}

/**
 * POSTs a body: `declared` with Content-Length and nothing (headers only), or `chunks` written one
 * after the other (chunked) until they run out or the answer arrives.
 */
function send(options: { declared: number } | { chunks: Iterable<Buffer> }): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const headers = 'declared' in options ? { 'content-length': String(options.declared) } : {};
    const outgoing = httpRequest(server.url, { method: 'POST', headers }, (incoming: IncomingMessage) => {
      answered = true;
      let text = '';
      incoming.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode, text, written }));
    });
    // Writing on after the server answered and closed the connection fails; the answer counts.
    outgoing.on('error', (error) => !answered && reject(error));
    if ('declared' in options) {
      outgoing.flushHeaders();
      return;
    }
    const iterator = options.chunks[Symbol.iterator]();
    const writeMore = (): void => {
      for (;;) {
        if (answered || outgoing.destroyed) return;
        const next = iterator.next();
        if (next.done === true) {
          outgoing.end();
          return;
        }
        written += next.value.length;
        if (!outgoing.write(next.value)) {
          outgoing.once('drain', writeMore);
          return;
        }
      }
    };
    writeMore();
  });
}

function* repeat(chunk: Buffer, times = Number.POSITIVE_INFINITY): Generator<Buffer> {
  for (let index = 0; index < times; index += 1) yield chunk;
}

describe('readRequestBody', () => {
  it('reads a chunked body up to the limit exactly', async () => {
    const chunk = Buffer.from('0123456789abcdef'.repeat(64));
    const sent = await send({ chunks: repeat(chunk, LIMIT / chunk.length) });
    expect(sent).toMatchObject({ status: 200, text: `${LIMIT}:0123456789abcdef` });
  });

  it('refuses a declared Content-Length over the limit before any of the body is sent', async () => {
    const sent = await send({ declared: LIMIT + 1 });
    expect(sent.status).toBe(413);
    expect(JSON.parse(sent.text)).toMatchObject({ status: 413, detail: `the request body is larger than ${LIMIT} bytes` });
  });

  it('refuses an endless chunked body once it passes the limit, and the 413 reaches the client', async () => {
    const sent = await send({ chunks: repeat(Buffer.alloc(16 * 1024, 'x')) });
    expect(sent.status).toBe(413);
    expect(sent.written).toBeGreaterThan(LIMIT);
  });
});

describe('readRequestBody: bodies of a declared length', () => {
  /** Writes a raw request with `declared` as its Content-Length and `body` after it; `end` closes the connection after writing. */
  function rawPost(declared: number, body: string, end: boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${declared}\r\nConnection: close\r\n\r\n${body}`);
        if (end) socket.destroy();
      });
      let text = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
  }

  it('reads exactly the declared bytes, an empty body included', async () => {
    expect(await rawPost(11, 'hello world', false)).toMatch(/\r\n\r\n11:hello world$/);
    expect(await rawPost(0, '', false)).toMatch(/\r\n\r\n0:$/);
  });

  it('refuses at once a request whose connection is already gone (it would never end)', async () => {
    const request = new IncomingMessage(new Socket());
    request.headers['content-length'] = '10';
    request.destroy();
    // Its 'close' has been emitted already.
    await new Promise<void>((resolve) => request.once('close', () => resolve()));
    await expect(readRequestBody(request, LIMIT)).rejects.toMatchObject({ name: 'BodyIncompleteError', status: 400, receivedBytes: 0, declaredBytes: 10 });
  });

  it('refuses a chunked body the client stops sending before its last chunk, as a client error (400)', async () => {
    const before = refusals.length;
    await new Promise<void>((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
        socket.destroy();
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await expect.poll(() => refusals.length).toBe(before + 1);
    expect(refusals[before]).toBeInstanceOf(BodyIncompleteError);
    expect(refusals[before]).toMatchObject({ status: 400, declaredBytes: undefined });
  });

  it('refuses a body the client stops sending before its declared length, as a client error (400)', async () => {
    const before = refusals.length;
    await rawPost(100, 'only ten b', true);
    await expect.poll(() => refusals.length).toBe(before + 1);
    const refusal = refusals[before];
    expect(refusal).toBeInstanceOf(BodyIncompleteError);
    expect(refusal).toMatchObject({ status: 400, receivedBytes: 10, declaredBytes: 100 });
  });
});

describe('readStreamBody', () => {
  it('reads a fetch API body within the limit', async () => {
    const body = new Response('a'.repeat(1000)).body!;
    expect(Buffer.from(await readStreamBody(body, 1000)).toString()).toBe('a'.repeat(1000));
  });

  it('refuses an endless stream without reading it all, and cancels it', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024;
        controller.enqueue(new Uint8Array(1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readStreamBody(endless, LIMIT)).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect.poll(() => cancelled).toBe(true);
    expect(pulled).toBeLessThan(2 * LIMIT);
  });
});
