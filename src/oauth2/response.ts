import { inspect } from 'node:util';
import type { OAuth2Error } from './errors.js';
import { type ParseOptions, type Parsed, parseBody } from './parse.js';
import { redactBody, redactHeaders } from './redact.js';

/** An HTTP response (reference: `OAuth2::Response`). Header names are lowercase. */
export class OAuth2Response {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The original body. */
  readonly body: string;
  /** Set when `raiseErrors` is false and the status is ≥ 400. */
  error: OAuth2Error | undefined;
  readonly #parseOptions: ParseOptions;
  #parsed: Parsed | undefined;

  constructor(status: number, headers: Readonly<Record<string, string>>, body: string, parseOptions: ParseOptions = {}) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.#parseOptions = parseOptions;
  }

  get contentType(): string {
    return this.headers['content-type'] ?? '';
  }

  /** The body parsed by the `parsed` rules (computed on first read). */
  get parsed(): Parsed {
    this.#parsed ??= parseBody(this.body, this.contentType, this.#parseOptions);
    return this.#parsed;
  }

  /** `util.inspect` (so `console.log(error)` of an OAuth2Error too) shows headers and body with secrets redacted. */
  [inspect.custom](depth: number, options: object): string {
    const shown = { status: this.status, headers: redactHeaders(this.headers), body: redactBody(this.body) };
    return `OAuth2Response ${inspect(shown, { ...options, depth })}`;
  }
}
