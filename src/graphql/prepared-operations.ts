/**
 * Prepared operations: a query that clients repeat, with whatever variables, answered without going
 * through yoga's per-request pipeline again — the way yoga answered it.
 *
 * Everything about such a request but its variables is decided by yoga, once: the first request of a
 * shape (the document text, the operation name, the request headers an answer may depend on) goes to
 * yoga, whose plugins parse, validate, limit, check trusted documents, negotiate the media type, apply
 * CORS and execute it. When yoga answers 200 with data and no errors, and the document's operation is
 * one graphql-jit compiled (a cached, validated query: see jit.ts and document-cache.ts), the headers
 * of that answer become the shape's template. A later request of the same shape is executed with the
 * same compiled query, its own context and its own variables, and answered with the template's
 * headers and `JSON.stringify` of the result — the bytes yoga's result processor writes for a result
 * without errors. Whatever else happens goes to yoga, which answers it as always: a result with
 * errors (variables that do not coerce, an upstream outage, partial lists), a body that is not a
 * plain `{ query, variables?, operationName? }`, an evicted document, a throw.
 *
 * So the answers cannot differ from yoga's (test/graphql/prepared-operations.test.ts compares both on
 * every kind of request), while a repeated query skips what depends only on the document or the
 * configuration: the fetch-API request and response objects, the envelop hook chain, the media-type
 * negotiation and yoga's result processing. Every plugin's hooks are skipped too, which is why the
 * graph prepares only when every one of its plugins says a prepared answer may skip it
 * (skippable-plugins.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Compression } from '../lib/compression.js';
import { flatten, isReplayable, KEYED_REQUEST_HEADERS, writeAnswer, type AnswerRequest, type GraphAnswer } from './graph-answer.js';
import type { PreparedOperation } from './jit.js';

export interface PreparedOperationsOptions {
  /** The cached, validated document of a text (the document cache's lookup). */
  documentOf: (text: string) => DocumentNode | undefined;
  /** The compiled operation of a cached document, once yoga has executed it (the executor's lookup). */
  prepared: (document: DocumentNode, operationName: string | undefined) => PreparedOperation | undefined;
  /** A new per-request context, made as yoga's context factory makes it. */
  context: () => { partialErrors: readonly unknown[] };
  /** Shapes kept at most (default 1,000: as many as the document cache keeps documents). */
  maxShapes?: number;
  /** Key and header bytes kept at most over all shapes (default 16 MiB: a key holds its document text). */
  maxBytes?: number;
}

/** What a prepared answer repeats: yoga's headers for the shape. */
interface Template {
  readonly headers: ReadonlyMap<string, string>;
  /** The same as a flat list, written as it is. */
  readonly flatHeaders: readonly string[];
}

/** A request body a prepared operation may answer: exactly yoga's GraphQL parameters, no extensions. */
interface PlainParams {
  query: string;
  variables: Record<string, unknown> | null | undefined;
  operationName: string | null | undefined;
}

const PARAM_NAMES = new Set(['query', 'variables', 'operationName']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as GraphQL parameters when it is nothing more than that; undefined sends it to yoga. */
function plainParams(body: Buffer): PlainParams | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed) || typeof parsed.query !== 'string') return undefined;
  for (const name in parsed) if (!PARAM_NAMES.has(name)) return undefined;
  const { query, variables, operationName } = parsed;
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  return { query, variables, operationName };
}

/**
 * The shape of a request: what yoga's answer may depend on besides the variables. The method, the
 * path and the media type of the body are fixed by `isPreparable`; the operation name is kept as
 * sent (absent, null and a string are different requests to yoga).
 */
function shapeKey(request: IncomingMessage, params: PlainParams): string {
  let key = `${request.headers['content-type'] ?? ''}\n`;
  for (const name of KEYED_REQUEST_HEADERS) key += `${request.headers[name] ?? ''}\n`;
  return `${key}${JSON.stringify(params.operationName)}\n${params.query}`;
}

function templateOf(answer: GraphAnswer): Template {
  return { headers: answer.headers, flatHeaders: flatten(answer.headers) };
}

function weightOf(key: string, template: Template): number {
  return key.length + template.flatHeaders.reduce((sum, field) => sum + field.length, 0);
}

/**
 * An answer at once (a prepared operation whose resolvers all answered synchronously), else a
 * promise. Each promise and await on a request's way costs a microtask turn; a synchronous answer
 * written at once skips them.
 */
type AnswerNowOrLater = GraphAnswer | Promise<GraphAnswer>;

export interface PreparedOperations {
  /** `next`'s answers, but a request of a known shape is answered from its prepared operation. */
  answerer(next: AnswerRequest): AnswerRequest;
  /**
   * The same answers, written to the request's response (writeAnswer): at once when the prepared
   * operation answered at once.
   */
  writer(next: AnswerRequest, compression: Compression): (request: IncomingMessage, response: ServerResponse, body: Buffer) => void | Promise<void>;
}

export function createPreparedOperations(options: PreparedOperationsOptions): PreparedOperations {
  const { documentOf, prepared, context } = options;
  const templates = new LRUCache<string, Template>({
    max: options.maxShapes ?? 1000,
    maxSize: options.maxBytes ?? 16 * 2 ** 20,
    sizeCalculation: (template, key) => Math.max(1, weightOf(key, template)),
  });

  /** The operation a request of this shape runs, while its document is cached and compiled. */
  function operationOf(params: PlainParams): PreparedOperation | undefined {
    const document = documentOf(params.query);
    return document === undefined ? undefined : prepared(document, params.operationName ?? undefined);
  }

  /**
   * The prepared answer, or undefined when yoga must answer (errors of any kind go to yoga): at once
   * when every resolver answered synchronously, else with a promise.
   */
  function run(operation: PreparedOperation, params: PlainParams, template: Template): GraphAnswer | undefined | Promise<GraphAnswer | undefined> {
    const contextValue = context();
    // The clock is read only for an observer (unobserved, the request path reads none).
    const started = operation.observed === undefined ? 0 : performance.now();
    operation.observed?.started?.();
    const answerOf = (result: ExecutionResult): GraphAnswer | undefined => {
      if (result.errors !== undefined || contextValue.partialErrors.length > 0) return undefined;
      operation.observed?.done(result, contextValue, (performance.now() - started) / 1000);
      return { status: 200, headers: template.headers, flatHeaders: template.flatHeaders, body: JSON.stringify(result), query: true };
    };
    const pending = operation.run(contextValue, params.variables);
    return pending instanceof Promise ? pending.then(answerOf) : answerOf(pending);
  }

  /** The prepared answer, or yoga's when the prepared one failed or had errors (the shape stays known). */
  function runOrAsk(next: AnswerRequest, request: IncomingMessage, body: Buffer, operation: PreparedOperation, params: PlainParams, template: Template): AnswerNowOrLater {
    let answer: ReturnType<typeof run>;
    try {
      answer = run(operation, params, template);
    } catch {
      answer = undefined;
    }
    if (answer instanceof Promise) return answer.catch(() => undefined).then((settled) => settled ?? next(request, body));
    // A result with errors: yoga answers it (its status, its masking).
    return answer ?? next(request, body);
  }

  /** `next`'s answer, or the prepared one for a request of a known shape. */
  function answer(next: AnswerRequest, request: IncomingMessage, body: Buffer): AnswerNowOrLater {
    const params = request.method === 'POST' ? plainParams(body) : undefined;
    if (params === undefined) return next(request, body);
    const key = shapeKey(request, params);
    const template = templates.get(key);
    if (template !== undefined) {
      const operation = operationOf(params);
      if (operation !== undefined) return runOrAsk(next, request, body, operation, params, template);
      // Its document was evicted from the document cache: yoga parses and validates it again.
      templates.delete(key);
    }
    return next(request, body).then((answered) => {
      if (isReplayable(answered) && operationOf(params) !== undefined) templates.set(key, templateOf(answered));
      return answered;
    });
  }

  return {
    answerer: (next) => (request, body) => {
      const answered = answer(next, request, body);
      return answered instanceof Promise ? answered : Promise.resolve(answered);
    },
    writer: (next, compression) => (request, response, body) => {
      const answered = answer(next, request, body);
      if (answered instanceof Promise) return answered.then((settled) => writeAnswer(request, response, settled, compression));
      writeAnswer(request, response, answered, compression);
    },
  };
}
