/**
 * What yoga itself still does in the three places the graph works around it (src/graphql/plugins:
 * url-params.ts, host-header.ts, media-types.ts). Each test sends a plain yoga server (createYoga, none
 * of our plugins) the request its workaround is for, and expects yoga's answer as it is today: when
 * one fails, yoga has changed that behaviour, and the workaround it names can go (its own behaviour
 * is tested in malformed-requests.test.ts and http-conformance.test.ts, on the channel graph).
 */
import { connect } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../src/lib/listen.js';

let yoga: Listening;
beforeAll(async () => {
  yoga = await listen(createYoga({ schema: createSchema({ typeDefs: 'type Query { a: Int }', resolvers: { Query: { a: () => 1 } } }), logging: false }));
});
afterAll(() => yoga.close());

/** A chunked body, decoded (RFC 9112 §7.1: size line, chunk, … the last chunk of size 0). */
function dechunk(text: string): string {
  let body = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** One raw HTTP/1.1 exchange (headers no HTTP client would send): the status and the body. */
function exchange(head: string, body = ''): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(yoga.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const split = received.indexOf('\r\n\r\n');
      const headBlock = received.slice(0, split);
      const rest = received.slice(split + 4);
      resolve({ status: Number(headBlock.split(' ')[1]), body: /^transfer-encoding: chunked$/im.test(headBlock) ? dechunk(rest) : rest });
    });
  });
}

describe('yoga, without the workarounds', () => {
  it('answers a GET whose variables are not JSON with 500 (plugins/url-params.ts makes it a 400 naming the parameter)', async () => {
    const answer = await exchange('GET /graphql?query=%7Ba%7D&variables=nope HTTP/1.1\r\nHost: localhost\r\nAccept: application/json');
    expect(answer.status).toBe(500);
  });

  it('answers a malformed Host header with 500 and a stack trace (plugins/host-header.ts makes it a 400)', async () => {
    const answer = await exchange('GET /graphql?query=%7Ba%7D HTTP/1.1\r\nHost: exa mple\r\nAccept: application/json');
    expect(answer.status).toBe(500);
    expect(answer.body).toMatch(/TypeError: Invalid URL\n\s+at /);
  });

  it('answers an unsupported Content-Type with 415 and an empty body (plugins/media-types.ts gives it a GraphQL error)', async () => {
    const answer = await exchange('POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain', '{a}');
    expect(answer).toMatchObject({ status: 415, body: '' });
  });

  it('answers an Accept it cannot serve with 406 and an empty body (plugins/media-types.ts gives it a GraphQL error)', async () => {
    const answer = await exchange('GET /graphql?query=%7Ba%7D HTTP/1.1\r\nHost: localhost\r\nAccept: text/xml');
    expect(answer).toMatchObject({ status: 406, body: '' });
  });
});
