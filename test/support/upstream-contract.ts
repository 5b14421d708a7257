import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

/**
 * An upstream platform's contract (openapi/upstreams/*.yaml) as a judge of real HTTP exchanges:
 * answers by path, method and status (a declared status, or its `4XX`/`5XX` range), requests by
 * their operation's body schema, webhook deliveries by their trigger. Ajv (JSON Schema 2020-12)
 * reads the contract itself, independently of the validators codegen compiled from it.
 */
interface Operation {
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }>;
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { $ref?: string }>;
  components: { responses?: Record<string, { content?: Record<string, { schema: object }> }> };
}

const pointer = (...segments: string[]): string => segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class UpstreamContract {
  readonly document: Contract;
  readonly #id: string;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  /** `METHOD template status` of every answer judged, so a test can check it judged every kind. */
  readonly judged = new Set<string>();

  constructor(path: string) {
    this.document = parse(readFileSync(path, 'utf8')) as Contract;
    this.#id = basename(path);
    this.#ajv.addSchema(this.document, this.#id);
  }

  #violations(schemaPointer: string, value: unknown): string[] {
    const validate = this.#ajv.compile({ $ref: `${this.#id}#/${schemaPointer}` });
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''}`);
  }

  /** The path template of the contract that `path` matches ({campaign_id} matches one segment). */
  template(path: string): string {
    const found = Object.keys(this.document.paths).find((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
    if (found === undefined) throw new Error(`${this.#id}: no path matches ${path}`);
    return found;
  }

  /** The violations of an answer (empty when it conforms): status declared, media type declared, body of its schema. */
  answer(method: string, path: string, status: number, contentType: string | null, body: unknown): string[] {
    const template = this.template(path);
    const operation = this.document.paths[template]?.[method.toLowerCase()];
    if (operation === undefined) return [`${method} ${template} is not in ${this.#id}`];
    const code = [String(status), `${String(status)[0]}XX`].find((candidate) => operation.responses[candidate] !== undefined);
    if (code === undefined) return [`${method} ${template} declares no ${status} answer`];
    this.judged.add(`${method.toUpperCase()} ${template} ${code}`);
    let where = pointer('paths', template, method.toLowerCase(), 'responses', code);
    let response = operation.responses[code]!;
    if (response.$ref !== undefined) {
      const name = response.$ref.split('/').at(-1)!;
      where = pointer('components', 'responses', name);
      response = this.document.components.responses?.[name] ?? {};
    }
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    if (response.content?.[mediaType] === undefined) return [`${method} ${template} ${code}: media type ${mediaType || '(none)'} is not declared`];
    return this.#violations(`${where}/${pointer('content', mediaType, 'schema')}`, body);
  }

  /** The violations of a request body the service sent to `path`. */
  request(method: string, path: string, contentType: string, body: unknown): string[] {
    const template = this.template(path);
    return this.#violations(pointer('paths', template, method.toLowerCase(), 'requestBody', 'content', contentType, 'schema'), body);
  }

  /** The violations of a webhook delivery: its trigger is one of the contract's, its body of their schema. */
  webhook(trigger: string, body: unknown): string[] {
    const item = this.document.webhooks?.[trigger];
    if (item?.$ref === undefined) return [`${trigger} is not a webhook of ${this.#id}`];
    this.judged.add(`WEBHOOK ${trigger}`);
    return this.#violations(`${item.$ref.slice(2)}/${pointer('post', 'requestBody', 'content', 'application/json', 'schema')}`, body);
  }
}
