import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Validates real HTTP responses against openapi/channel-api.yaml with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1) and ajv-formats: status code declared for the operation, media type,
 * body schema, required headers. Unknown paths and methods are checked against the document's
 * NotFound / MethodNotAllowed responses. Every validated response is recorded so a test can check
 * that each declared response was actually produced. A notification a receiver got is checked against
 * the document's `webhooks:` the same way.
 */
interface MediaType {
  schema?: object;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: object }>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema?: object;
}
interface WebhookOperation {
  parameters?: Parameter[];
  requestBody: { content: Record<string, MediaType> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post?: WebhookOperation }>;
  components: { responses: Record<string, ResponseObject>; headers: Record<string, { required?: boolean; schema?: object }> };
}

export interface ObservedResponse {
  method: string;
  /** Path of the request, without the query. */
  path: string;
  status: number;
  headers: Headers;
  body: string;
}

const DOCUMENT_ID = 'channel-api.yaml';
/** The schema of each GET /events event type's `data` (openapi/channel-api.yaml, /events description). */
const EVENT_SCHEMAS: Record<string, string | undefined> = { supporter: 'SupporterEvent', stats: 'StatsResponse', reset: 'ResetEvent' };
const SPECIAL_RESPONSES = { notFound: 'NotFound', methodNotAllowed: 'MethodNotAllowed' } as const;

export class OpenApiResponseValidator {
  readonly document: Document;
  readonly #ajv: Ajv2020;
  /** `METHOD path status` of every response validated so far. */
  readonly seen = new Set<string>();

  constructor(path = 'openapi/channel-api.yaml') {
    this.document = parse(readFileSync(path, 'utf8')) as Document;
    // strict: false — the document's OpenAPI keywords (openapi, info, paths…) are not JSON Schema.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.#ajv);
    this.#ajv.addSchema(this.document, DOCUMENT_ID);
  }

  #deref<T extends { $ref?: string }>(object: T): T {
    if (object.$ref === undefined) return object;
    const pointer = object.$ref.replace(/^#\//, '').split('/');
    let target: unknown = this.document;
    for (const segment of pointer) target = (target as Record<string, unknown>)[segment];
    return this.#deref(target as T);
  }

  #schemaRef(pointer: string): object {
    return { $ref: `${DOCUMENT_ID}#${pointer}` };
  }

  /** Returns the list of violations (empty when the response conforms). */
  validate(observed: ObservedResponse): string[] {
    const method = observed.method.toLowerCase() === 'head' ? 'get' : observed.method.toLowerCase();
    const pathItem = this.document.paths[observed.path];
    let responseName: string;
    let response: ResponseObject | undefined;
    let pointerBase: string;
    if (pathItem === undefined) {
      responseName = SPECIAL_RESPONSES.notFound;
      response = this.document.components.responses[responseName];
      pointerBase = `/components/responses/${responseName}`;
      if (observed.status !== 404) return [`${observed.path} is not in the document, so the answer must be 404, got ${observed.status}`];
    } else if (pathItem[method] === undefined) {
      responseName = SPECIAL_RESPONSES.methodNotAllowed;
      response = this.document.components.responses[responseName];
      pointerBase = `/components/responses/${responseName}`;
      if (observed.status !== 405) return [`${observed.method} ${observed.path} is not in the document, so the answer must be 405, got ${observed.status}`];
    } else {
      const responses = pathItem[method].responses;
      responseName = String(observed.status) in responses ? String(observed.status) : 'default';
      response = responses[responseName];
      if (response === undefined) return [`${observed.method} ${observed.path}: status ${observed.status} is not declared`];
      pointerBase = `/paths/${observed.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${responseName}`;
      if (response.$ref !== undefined) pointerBase = response.$ref.replace(/^#/, '');
      response = this.#deref(response);
    }
    if (response === undefined) return [`the document has no response for ${observed.status}`];
    this.seen.add(`${observed.method.toUpperCase()} ${observed.path} ${responseName}`);
    const errors: string[] = [];
    const where = `${observed.method} ${observed.path} → ${observed.status}`;

    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header = this.#deref(declared);
      const value = observed.headers.get(name);
      if (value === null) {
        if (header.required === true) errors.push(`${where}: missing required header ${name}`);
        continue;
      }
      const schema = header.schema as { type?: string } | undefined;
      const typed = schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (schema !== undefined && !this.#ajv.validate(schema, typed)) {
        errors.push(`${where}: header ${name}=${value}: ${this.#ajv.errorsText()}`);
      }
    }

    const contentType = observed.headers.get('content-type')?.split(';')[0]?.trim() ?? null;
    const content = response.content;
    if (content === undefined) {
      if (observed.body !== '') errors.push(`${where}: the document declares no body, got ${observed.body.length} bytes`);
      return errors;
    }
    if (contentType === null || content[contentType] === undefined) {
      errors.push(`${where}: content-type ${contentType ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`);
      return errors;
    }
    if (observed.method.toUpperCase() === 'HEAD') return errors;
    if (contentType === 'text/event-stream') return [...errors, ...this.#validateEventStream(where, observed.body)];
    const schemaPointer = `${pointerBase}/content/${contentType.replace('/', '~1')}/schema`;
    // A text body (text/plain: /metrics) is validated as the string it is.
    if (!contentType.endsWith('json')) {
      if (!this.#ajv.validate(this.#schemaRef(schemaPointer), observed.body)) errors.push(`${where}: ${this.#ajv.errorsText(this.#ajv.errors, { separator: '; ' })}`);
      return errors;
    }
    let body: unknown;
    try {
      body = JSON.parse(observed.body);
    } catch {
      errors.push(`${where}: the body is not JSON`);
      return errors;
    }
    if (!this.#ajv.validate(this.#schemaRef(schemaPointer), body)) {
      errors.push(`${where}: ${this.#ajv.errorsText(this.#ajv.errors, { separator: '; ' })}`);
    }
    return errors;
  }

  /**
   * A (possibly partial) server-sent event stream of GET /events: the `data` of each complete event
   * must conform to the component schema of its event type.
   */
  #validateEventStream(where: string, text: string): string[] {
    const errors: string[] = [];
    for (const block of text.split('\n\n').slice(0, -1)) {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
      if (event === undefined) {
        if (data.length > 0) errors.push(`${where}: data without an event type: ${block}`);
        continue;
      }
      const schemaName = EVENT_SCHEMAS[event];
      if (schemaName === undefined) {
        errors.push(`${where}: undocumented event type ${event}`);
        continue;
      }
      if (!this.#ajv.validate(this.#schemaRef(`/components/schemas/${schemaName}`), JSON.parse(data.join('\n')))) {
        errors.push(`${where}: event ${event}: ${this.#ajv.errorsText(this.#ajv.errors, { separator: '; ' })}`);
      }
    }
    return errors;
  }

  /**
   * A notification as a receiver got it, against the document's `webhooks:`: the operation of its
   * `type`, its header parameters (webhook-id, webhook-timestamp, webhook-signature) and its body's
   * schema. Returns the violations (empty when it conforms).
   */
  validateWebhook(headers: Readonly<Record<string, string | string[] | undefined>>, raw: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return ['the notification body is not JSON'];
    }
    const type = (body as { type?: unknown }).type;
    if (typeof type !== 'string') return ['the notification body has no type'];
    const operation = this.document.webhooks?.[type]?.post;
    if (operation === undefined) return [`the document has no webhook for type ${type}`];
    const errors: string[] = [];
    for (const declared of operation.parameters ?? []) {
      const parameter = this.#deref(declared);
      if (parameter.in !== 'header') continue;
      const value = headers[parameter.name.toLowerCase()];
      if (typeof value !== 'string') {
        if (parameter.required === true) errors.push(`${type}: missing header ${parameter.name}`);
        continue;
      }
      if (parameter.schema !== undefined && !this.#ajv.validate(parameter.schema, value)) errors.push(`${type}: header ${parameter.name}=${value}: ${this.#ajv.errorsText()}`);
    }
    const contentType = headers['content-type'];
    if (typeof contentType !== 'string' || operation.requestBody.content[contentType] === undefined) return [...errors, `${type}: content-type ${String(contentType)} is not declared`];
    const pointer = `/webhooks/${type.replaceAll('~', '~0').replaceAll('/', '~1')}/post/requestBody/content/${contentType.replace('/', '~1')}/schema`;
    if (!this.#ajv.validate(this.#schemaRef(pointer), body)) errors.push(`${type}: ${this.#ajv.errorsText(this.#ajv.errors, { separator: '; ' })}`);
    return errors;
  }

  /** Every `METHOD path status` the document declares (besides `default`). */
  declaredResponses(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        Object.keys(operation.responses)
          .filter((status) => status !== 'default')
          .map((status) => `${method.toUpperCase()} ${path} ${status}`),
      ),
    );
  }
}
