/**
 * For the property-based tests: exact HTTP/1.1 requests over a raw socket (an HTTP
 * client would refuse or normalise the odd header values, targets and bodies they send), and the
 * checks every answer of the app must pass, whatever was asked.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { expect } from 'vitest';

export interface RawRequest {
  method: string;
  /** The request-target as written on the request line (already percent-encoded as wanted). */
  target: string;
  /** Written in this order, names and values as UTF-8 bytes. `Host` is added unless present. */
  headers?: ReadonlyArray<readonly [name: string, value: string]>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  /** Lower-case names; repeated fields joined with ", ". */
  headers: Record<string, string>;
  /** The body bytes (de-chunked) as UTF-8. */
  body: string;
}

/** Generous: the machine is shared; a request that gets no answer at all fails the property. */
const ANSWER_DEADLINE_MS = 8_000;
/**
 * How long an event stream is read after its head: a request can be a live subscription (a
 * persisted subscription's documentId under `Accept: text/event-stream`), whose stream stays open
 * by design. It is judged on what arrived by then; a stream that ends sooner is read whole.
 */
const EVENT_STREAM_READ_MS = 1_000;

/** The chunks of a chunked body, and whether its last chunk has arrived. */
function dechunk(bytes: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd === -1) return { body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: true };
    if (size === 0) return { body: Buffer.concat(parts), complete: bytes.indexOf('\r\n\r\n', lineEnd) !== -1 };
    if (bytes.length < lineEnd + 2 + size + 2) return { body: Buffer.concat(parts), complete: false };
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/**
 * The answer in `received`, once it is complete by its framing (RFC 9112 §6.3): no body (HEAD, 1xx,
 * 204, 304), Content-Length bytes, or the last chunk; `ended` (the server closed) completes the rest.
 */
function parseAnswer(received: Buffer, method: string, ended: boolean): RawAnswer | undefined {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd === -1) {
    if (ended) throw new Error(`no complete response head in ${JSON.stringify(received.toString('latin1').slice(0, 200))}`);
    return undefined;
  }
  const [statusLine = '', ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const status = Number(statusLine.split(' ')[1]);
  const rawBody = received.subarray(headEnd + 4);
  let body: Buffer | undefined;
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) body = Buffer.alloc(0);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunked = dechunk(rawBody);
    body = chunked.complete || ended ? chunked.body : undefined;
  } else if (headers['content-length'] !== undefined) body = rawBody.length >= Number(headers['content-length']) || ended ? rawBody.subarray(0, Number(headers['content-length'])) : undefined;
  else body = ended ? rawBody : undefined;
  return body === undefined ? undefined : { status, headers, body: body.toString('utf8') };
}

/** Sends one request with `Connection: close` and reads the answer until the server closes. */
export function rawExchange(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const { hostname, port, host } = new URL(baseUrl);
  const headers = [...(request.headers ?? [])];
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) headers.unshift(['Host', host]);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  if (body !== undefined && !headers.some(([name]) => name.toLowerCase() === 'content-length')) headers.push(['Content-Length', String(body.length)]);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Connection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(body === undefined ? Buffer.from(head) : Buffer.concat([Buffer.from(head), body])));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_DEADLINE_MS} ms to ${request.method} ${request.target.slice(0, 200)}`));
    }, ANSWER_DEADLINE_MS);
    let settled = false;
    const settle = (ended: boolean): void => {
      if (settled) return;
      let answer: RawAnswer | undefined;
      try {
        answer = parseAnswer(Buffer.concat(chunks), request.method, ended);
      } catch (error) {
        settled = true;
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (answer === undefined) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    let streamTimer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      settle(false);
      if (settled || streamTimer !== undefined) return;
      const received = Buffer.concat(chunks);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd !== -1 && /\r\ncontent-type:\s*text\/event-stream/i.test(received.subarray(0, headEnd).toString('latin1'))) {
        streamTimer = setTimeout(() => settle(true), EVENT_STREAM_READ_MS);
      }
    });
    socket.on('close', () => clearTimeout(streamTimer));
    // No half-close after the request: node:http would abort a request still being answered. The
    // answer is complete by its framing: the test does not wait for the server to close (it keeps
    // streamed answers' connections open for their keep-alive time, whatever the request said).
    // The server may close while the body is still being written (an early 413): keep what was read.
    socket.on('error', () => undefined);
    socket.on('close', () => settle(true));
  });
}

/**
 * What no answer may contain outside development mode: a stack frame, a file URL or absolute path
 * of this machine, a dependency's path, a source location (`module.ts:12`).
 */
export const LEAK = /\n\s+at |file:\/\/|node_modules|\/work\/|\/home\/|\/tmp\/|[\w-]{1,64}\.[cm]?[jt]s:\d+/;

/**
 * The generated inputs never contain a leak pattern themselves, so an answer echoing them (an error
 * naming the unknown field, the refused value) is not mistaken for a leak.
 */
export function noLeakPattern(...inputs: string[]): boolean {
  return inputs.every((input) => !LEAK.test(input) && !LEAK.test(safeDecode(input)));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

type ErrorBodyKind = 'graphql' | 'problem';

function parsedJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * The JSON payloads of an answer: the body itself, or the parts of an incremental answer
 * (`multipart/mixed`) or the `data:` fields of a server-sent event stream.
 */
function payloads(answer: RawAnswer): unknown[] {
  const contentType = answer.headers['content-type'] ?? '';
  const boundary = /multipart\/mixed.*boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (boundary !== undefined) {
    return answer.body
      .split(`--${boundary}`)
      .map((part) => part.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim())
      .filter((part) => part !== '')
      .map(parsedJson);
  }
  if (/^text\/event-stream/i.test(contentType)) {
    return answer.body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => parsedJson(line.slice('data:'.length).trim()));
  }
  return [parsedJson(answer.body)];
}

function graphqlMessages(payload: unknown): string[] | undefined {
  const errors = (payload as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return undefined;
  return errors.map((error) => (error as { message?: unknown }).message).map((message) => (typeof message === 'string' ? message : ''));
}

/**
 * The checks on one answer: not a 5xx; an error answer (4xx, or a GraphQL answer with `errors`)
 * says what was wrong — GraphQL `errors[].message` on /graphql (or, to a browser while GraphiQL is
 * off, an HTML page), problem+json `detail` on the REST API; no stack trace or path in the body or
 * in a header.
 */
export function expectSafeAnswer(answer: RawAnswer, kind: ErrorBodyKind, what: string, method = 'GET'): void {
  const context = `${what}\n→ ${answer.status} ${JSON.stringify(answer.headers)}\n${answer.body.slice(0, 2000)}`;
  expect(answer.status >= 100 && answer.status < 500, `a 5xx (or no status) for ${context}`).toBe(true);
  expect(LEAK.test(answer.body), `a stack trace or path in the body of ${context}`).toBe(false);
  expect(Object.values(answer.headers).some((value) => LEAK.test(value)), `a stack trace or path in a header of ${context}`).toBe(false);

  const parts = payloads(answer);
  const messages = parts.map(graphqlMessages).filter((list) => list !== undefined);
  for (const list of messages) {
    expect(list.length > 0 && list.every((message) => message.trim() !== ''), `an error without a message in ${context}`).toBe(true);
  }
  // A HEAD answer has no body (RFC 9110 §9.3.2), whatever its status.
  if (answer.status < 400 || method === 'HEAD') return;
  if (kind === 'graphql' && /^text\/html/i.test(answer.headers['content-type'] ?? '')) {
    // A browser's visit while GraphiQL is off: a page that says why, in words.
    expect(/<h1>[^<]*\S[^<]*<\/h1>/.test(answer.body), `a ${answer.status} page without a heading for ${context}`).toBe(true);
  } else if (kind === 'graphql') {
    expect(messages.length, `a ${answer.status} without GraphQL errors for ${context}`).toBeGreaterThan(0);
  } else {
    expect(answer.headers['content-type'], `a ${answer.status} that is not problem+json for ${context}`).toMatch(/^application\/problem\+json/);
    const detail = (parts[0] as { detail?: unknown } | undefined)?.detail;
    expect(typeof detail === 'string' && detail.trim() !== '', `a problem without a detail for ${context}`).toBe(true);
  }
}

/** Runs of each property: enough to find what the hand-written tests missed, few enough for `npm test`. */
export const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

/**
 * Time budget of one property: on a loaded machine it stops after this many milliseconds (between
 * runs: a request in flight still ends or fails on its own deadline), so the suites stay well under
 * a minute. Counted as a pass if every run so far passed.
 */
const PROPERTY_BUDGET_MS = Number(process.env.PROPERTY_BUDGET_MS ?? 10_000);

/**
 * fast-check's options for these suites: its default random seed, printed with the counterexample
 * on failure (replay with `PROPERTY_SEED=<seed>`, or `{ seed, path }` in the test).
 */
export function propertyOptions(numRuns = PROPERTY_RUNS): fc.Parameters<unknown> {
  const seed = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED);
  return { numRuns, ...(seed === undefined ? {} : { seed }), plugins: [fc.interruptAfterTimeLimit(PROPERTY_BUDGET_MS)] };
}

// ---- arbitraries shared by the suites ----

/** Lone surrogates, BOM, NUL, RTL marks, combining marks, astral characters, line and paragraph separators. */
const ODD_CHARACTERS = ['\ud800', '\udfff', '\ufeff', '\u0000', '\u202e', '\u0301', '\u{1f600}', '\u2028', '\u2029', '\uffff', '\u00e9', '\u0085', '\t', '\r', '\n', '"', '\\', '{', '}', '%', '&', '=', '#', '?'];

/** Text with odd unicode: any code point, lone surrogates and the characters parsers trip on. */
export const oddText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof({ weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_CHARACTERS) }, { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 1 }) }),
    maxLength,
  });

/** A query-string component: well encoded, or raw percent garbage (lone `%`, invalid UTF-8, encoded surrogates). */
export const queryComponent = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: value.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%C3%28', '%ED%A0%80', '%FF', '%00', '%2', '+', '%%', '%E2%82', '&&', '==', ';') },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9%+&=._~-]{0,30}$/) },
  );

/** Drops what RFC 9110 §5.5 does not allow in a field value (controls but HTAB, DEL, lone surrogates) and the outer whitespace. */
function fieldValueOnly(text: string): string {
  return [...text]
    .filter((character) => {
      const code = character.codePointAt(0) ?? 0;
      return (code >= 0x20 || code === 0x09) && code !== 0x7f && !(code >= 0xd800 && code <= 0xdfff);
    })
    .join('')
    .trim();
}

/** A header value a client could send: visible ASCII, spaces, tabs and obs-text (UTF-8 bytes of any character). */
export const headerValue = (examples: readonly string[] = []): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: examples.length > 0 ? 3 : 0, arbitrary: examples.length > 0 ? fc.constantFrom(...examples) : fc.constant('') },
    { weight: 2, arbitrary: fc.stringMatching(/^[\x21-\x7e][\x20-\x7e\t]{0,60}[\x21-\x7e]$/) },
    { weight: 1, arbitrary: oddText(20).map(fieldValueOnly) },
    { weight: 1, arbitrary: fc.constant('') },
  );
