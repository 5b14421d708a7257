import type { IncomingMessage, ServerResponse } from 'node:http';

type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A yoga workaround, in front of its node:http listener since no plugin runs first: the fetch-API
 * adapter under yoga (@whatwg-node/server) builds each request's URL from Host, and an unparseable one
 * is a 500 whose body is the stack trace (test/graphql/yoga-workarounds.test.ts fails once it is not,
 * and this file can go). RFC 9112 §3.2: a server responds 400 to a request whose Host header is
 * invalid. Host = uri-host [ ":" port ] (RFC 9110 §7.2, RFC 3986 §3.2.2): an IP literal in brackets
 * or a reg-name, which must also be a host the WHATWG URL parser accepts (it refuses e.g. an
 * out-of-range IPv4 address or port).
 */
const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d{0,5})?$/;

export function isValidHost(host: string): boolean {
  return HOST_SYNTAX.test(host) && URL.canParse(`http://${host}/`);
}

const BAD_HOST_BODY = JSON.stringify({ errors: [{ message: 'The Host header is not a valid host[:port].', extensions: { code: 'BAD_REQUEST' } }] });

/**
 * `listener` behind a Host check. Requests without Host (HTTP/1.0; node:http refuses HTTP/1.1 without
 * one) pass; the last valid value is remembered, so a server seeing one Host checks it once.
 */
export function withValidHost(listener: NodeListener): NodeListener {
  let lastValid: string | undefined;
  return (request, response) => {
    const { host } = request.headers;
    if (host === undefined || host === lastValid) {
      listener(request, response);
    } else if (isValidHost(host)) {
      lastValid = host;
      listener(request, response);
    } else {
      response.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BAD_HOST_BODY) });
      response.end(BAD_HOST_BODY);
    }
  };
}
