/**
 * GraphQL answers as the layers in front of yoga handle them (the response cache, prepared
 * operations): a status, the headers to write, the body, and whether a query operation produced
 * them. Yoga's answers are read through its fetch API; a layer may answer in its place only with
 * headers yoga gave for a request of the same shape (see prepared-operations.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, OperationTypeNode, type ExecutionArgs } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { readRequestBody } from '../lib/body.js';
import { NO_COMPRESSION, writeNegotiated, type Compression } from '../lib/compression.js';

/** A GraphQL answer, ready to write or to keep. */
export interface GraphAnswer {
  status: number;
  /** Header names in lower case; never the framing (`content-length`), `date` or hop-by-hop fields. */
  headers: ReadonlyMap<string, string>;
  /** The bytes read from yoga, or the JSON text of a prepared answer (written as it is, not copied first). */
  body: Buffer | string;
  /** The headers as a flat [name, value, …] list, when the producer keeps one already. */
  flatHeaders?: readonly string[];
  /** Produced by executing a query operation (never a mutation): the only answers worth replaying. */
  query: boolean;
}

/**
 * Answers one request whose body has been read: at once when it can (a prepared operation whose
 * resolvers all answered synchronously), else with a promise. Each promise and await on a request's
 * way costs a microtask turn; a synchronous answer skips them.
 */
export type AnswerRequest = (request: IncomingMessage, body: Buffer) => GraphAnswer | Promise<GraphAnswer>;

/** The GraphQL server's side: answer one fetch-API request. */
export type FetchHandler = (request: Request) => Promise<Response> | Response;
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The request headers an answer may depend on, besides the method, the URL and the body: yoga's
 * media-type negotiation reads `Accept`, its CORS answer echoes the Origin (with `Vary: Origin`) and
 * answers preflights from the `Access-Control-Request-*` fields. An answer whose `Vary` names any
 * other header is never replayed.
 */
export const KEYED_REQUEST_HEADERS = ['accept', 'origin', 'access-control-request-headers', 'access-control-request-method'] as const;
const KEYED = new Set<string>(KEYED_REQUEST_HEADERS);

/**
 * Response headers never replayed (compared in lower case): the hop-by-hop fields of RFC 9110
 * §7.6.1, which describe one connection, and the framing recomputed for the bytes written.
 */
const NOT_REPLAYED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'date']);

/** `Vary` names only request headers in KEYED_REQUEST_HEADERS (and not `*`, RFC 9110 §12.5.5). */
function variesOnKeyOnly(vary: string | undefined): boolean {
  if (vary === undefined) return true;
  return vary.split(',').every((field) => KEYED.has(field.trim().toLowerCase()));
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/(graphql-response\+)?json\b/i.test(contentType ?? '');
}

/** A JSON answer without `errors`: the whole of it is data. */
function hasNoErrors(body: Buffer | string): boolean {
  try {
    const parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as { errors?: unknown };
    return parsed.errors === undefined;
  } catch {
    return false;
  }
}

/** An answer that may be replayed to a request of the same key: a query's JSON data, 200, no errors. */
export function isReplayable(answer: GraphAnswer): boolean {
  return answer.status === 200 && answer.query && variesOnKeyOnly(answer.headers.get('vary')) && isJson(answer.headers.get('content-type')) && hasNoErrors(answer.body);
}

export function flatten(headers: Iterable<[string, string]>): string[] {
  return [...headers].flat();
}

/** The headers to write again, names in lower case, without the fields the Connection header lists. */
function replayableHeaders(headers: Headers): Map<string, string> {
  const connectionFields = new Set((headers.get('connection') ?? '').split(',').map((field) => field.trim().toLowerCase()));
  const kept = new Map<string, string>();
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (!NOT_REPLAYED.has(lower) && !connectionFields.has(lower)) kept.set(lower, value);
  });
  return kept;
}

/**
 * The fetch-API classes requests are built with: yoga's own (`yoga.fetchAPI`, the @whatwg-node
 * ponyfill, which keeps a string body as it is and hands it back to yoga's parser without a web
 * stream), or the platform's.
 */
export interface FetchClasses {
  Request: new (input: string, init: { method: string; headers: Headers; body?: string }) => Request;
  Headers: new () => Headers;
}

function toFetchRequest(request: IncomingMessage, body: Buffer, classes: FetchClasses): Request {
  const headers = new classes.Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  const url = `http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`;
  return new classes.Request(url, { method: request.method ?? 'GET', headers, ...(request.method === 'POST' && { body: body.toString('utf8') }) });
}

export interface YogaAnswers {
  /** Install on the yoga server: notes which requests executed a query operation. */
  readonly plugin: Plugin<YogaInitialContext>;
  /** Answers through `handle` (the yoga server's fetch, given requests made with `classes`), as a GraphAnswer. */
  answerWith(handle: FetchHandler, classes?: FetchClasses): AnswerRequest;
}

/** Yoga's answers, read whole through its fetch API (for requests whose body is already read). */
export function createYogaAnswers(): YogaAnswers {
  /** The requests (the fetch API objects handed to the server) that executed a query operation. */
  const queries = new WeakSet<Request>();
  return {
    plugin: {
      onExecute({ args }) {
        // @envelop/types resolves ExecutionArgs to any in this tree: name the fields' real types.
        const { document, operationName } = args as Pick<ExecutionArgs, 'document' | 'operationName'>;
        if (getOperationAST(document, operationName)?.operation === OperationTypeNode.QUERY) queries.add(args.contextValue.request);
      },
    },
    answerWith: (handle, classes = globalThis) => async (request, requestBody) => {
      const fetchRequest = toFetchRequest(request, requestBody, classes);
      const answered = await handle(fetchRequest);
      const body = Buffer.from(await answered.arrayBuffer());
      return { status: answered.status, headers: replayableHeaders(answered.headers), body, query: queries.has(fetchRequest) };
    },
  };
}

/**
 * Where answers are encoded: slabs of 128 KiB, each answer's bytes a view of the slab they were
 * encoded into (as node's own buffer pool hands out buffers under 4 KiB, for larger ones). A region
 * of a slab is never written twice: when the rest of a slab is too small, the next answer starts a
 * new one, and the old one is garbage once the last answer viewing it has been written.
 */
const ANSWER_SLAB_BYTES = 128 * 1024;

/**
 * Answers up to this many UTF-16 code units (3 bytes each at most: up to a quarter of a slab) are
 * encoded into a slab; longer ones into a buffer of their own. An answer still being written (to a
 * client that reads slowly, or not at all) keeps its slab alive: at most 128 KiB besides what it
 * holds itself, and only for answers of at most 32 KiB.
 */
export const SLAB_MAX_CODE_UNITS = Math.floor(ANSWER_SLAB_BYTES / 4 / 3);

let slab = Buffer.allocUnsafeSlow(0);
let slabUsed = 0;

/**
 * The UTF-8 bytes of an answer's text. The Content-Length needs its byte count: measured with
 * Buffer.byteLength and then written as a string, the text was scanned twice, where one encoding
 * tells both. Encoded into the free part of a slab and handed out as a view of it, an answer takes no
 * allocation of its own and no copy: the issue query's 6 KB answer took 3.8 µs, against 4.7 µs
 * encoded into a scratch buffer and copied out at its exact size, and 4.2 µs with `Buffer.from`
 * (1.1 against 1.4 µs for a 1.7 KB answer; a 100,000-iteration loop on node 20, not committed).
 */
export function utf8Bytes(text: string): Buffer {
  if (text.length > SLAB_MAX_CODE_UNITS) return Buffer.from(text);
  if (slab.length - slabUsed < text.length * 3) {
    slab = Buffer.allocUnsafeSlow(ANSWER_SLAB_BYTES);
    slabUsed = 0;
  }
  const start = slabUsed;
  const length = slab.write(text, start);
  // The next answer starts 8-byte aligned, as node's pool aligns its slices.
  slabUsed = (start + length + 7) & ~7;
  return slab.subarray(start, start + length);
}

/**
 * Writes an answer made for this request (a prepared answer, or one of yoga's not kept by the
 * response cache): compressed at the fast level when the request accepts a coding (compression.ts;
 * above 64 KiB on the thread pool).
 */
export function writeAnswer(request: IncomingMessage, response: ServerResponse, answer: GraphAnswer, compression: Compression = NO_COMPRESSION): void {
  const bytes = typeof answer.body === 'string' ? utf8Bytes(answer.body) : answer.body;
  writeNegotiated(request, response, compression, answer.status, answer.flatHeaders ?? flatten(answer.headers), bytes, answer.headers.get('content-type'));
}

/**
 * Whether the client takes the answer as one JSON document: never GraphiQL's HTML page, and never a
 * streamed answer (server-sent events, incremental delivery in multipart/mixed), which yoga streams.
 */
export function acceptsWholeAnswer(request: IncomingMessage): boolean {
  return !/text\/html|text\/event-stream|multipart\/mixed/i.test(request.headers.accept ?? '');
}

/** Whether the request is a POST of a JSON body of a declared length up to `maxRequestBytes`. */
export function isBoundedJsonPost(request: IncomingMessage, maxRequestBytes: number): boolean {
  if (request.method !== 'POST') return false;
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  return declared <= maxRequestBytes && (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/** A GraphQL-over-HTTP error answer of the layers in front of yoga (never a stack trace). */
function sendError(response: ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ errors: [{ message }] });
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...(status < 500 && { connection: 'close' }) });
  response.end(body);
}

/** The refusals of a client's body (too large, incomplete: src/lib/body.ts): 4xx. */
function clientStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * A listener that reads the body of the requests `handles` selects (bounded: they declare their
 * length) and gives it to `answer`; every other request goes to `passThrough` untouched, its body
 * unread (yoga streams what it streams). A client's broken body is a 4xx; only our own failure is a
 * 500, and its body says no more than "Unexpected error.".
 */
export function withReadBody(
  handles: (request: IncomingMessage) => boolean,
  limitBytes: number,
  answer: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void | Promise<void>,
  passThrough: NodeListener,
  onError: (error: unknown) => void,
): NodeListener {
  return (request, response) => {
    if (!handles(request)) {
      passThrough(request, response);
      return;
    }
    const body = request.method === 'POST' ? readRequestBody(request, limitBytes) : Promise.resolve(Buffer.alloc(0));
    body
      .then((read) => answer(request, response, read))
      .catch((error: unknown) => {
        const status = clientStatusOf(error);
        if (status !== undefined) return sendError(response, status, 'The request body could not be read (its length does not match Content-Length, or the upload stopped).');
        onError(error);
        sendError(response, 500, 'Unexpected error.');
      });
  };
}
