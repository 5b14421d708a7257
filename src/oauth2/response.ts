import type { OAuth2Error } from './errors.js';
import { type ParseOptions, type Parsed, parseBody } from './parse.js';

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
}
