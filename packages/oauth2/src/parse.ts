import { isPlainObject, SnakyHash } from './snaky-hash.js';

/**
 * How a body is parsed: `automatic` chooses by content type (reference: `parsed` rule 7); the other
 * names force a format; a function parses it itself.
 */
export type ParseMode = 'automatic' | 'json' | 'form' | 'text' | ((body: string, contentType: string) => unknown);

export interface ParseOptions {
  parse?: ParseMode;
  /** Snake_case hash keys (default true). `false` keeps the original keys in a plain object. */
  snaky?: boolean;
  /** The class built for hash-like results (default SnakyHash). */
  hashClass?: typeof SnakyHash;
}

/** Media types parsed as JSON (reference rule 7; `vdn.api+json` is the reference's spelling, kept as an alias). */
const JSON_TYPES = new Set([
  'application/json',
  'text/javascript',
  'application/vnd.api+json',
  'application/vdn.api+json',
  'application/vnd.collection+json',
  'application/hal+json',
  'application/problem+json',
]);
const FORM_TYPE = 'application/x-www-form-urlencoded';

export type Parsed = SnakyHash | Record<string, unknown> | unknown[] | string;

/**
 * The parsed body: a hash-like object for form bodies and JSON objects, an array for JSON arrays,
 * otherwise the body string (reference: `parsed` rules 1–3).
 */
export function parseBody(body: string, contentType: string, options: ParseOptions = {}): Parsed {
  const mode = options.parse ?? 'automatic';
  const decoded = typeof mode === 'function' ? mode(body, contentType) : decode(body, formatOf(mode, contentType));
  if (!Array.isArray(decoded) && !isPlainObject(decoded)) return body;
  if (options.snaky === false) return decoded;
  return (options.hashClass ?? SnakyHash).convert(decoded) as SnakyHash | unknown[];
}

/**
 * The JSON syntax error of a body whose content type (or `parse` mode) says JSON but which does not
 * parse; undefined otherwise. `parsed` keeps such a body as its text; `getToken` raises with this.
 */
export function jsonSyntaxError(body: string, contentType: string, mode: ParseMode = 'automatic'): SyntaxError | undefined {
  if (typeof mode === 'function' || formatOf(mode, contentType) !== 'json') return undefined;
  try {
    JSON.parse(body);
    return undefined;
  } catch (error) {
    return error as SyntaxError;
  }
}

/** Whether a content type is one of the JSON media types of `parsed` rule 7 (or any `+json` type). */
export function isJsonContentType(contentType: string): boolean {
  return formatOf('automatic', contentType) === 'json';
}

function formatOf(mode: Exclude<ParseMode, (body: string, contentType: string) => unknown>, contentType: string): 'json' | 'form' | 'text' {
  if (mode !== 'automatic') return mode;
  const essence = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  if (essence === FORM_TYPE) return 'form';
  // Structured syntax suffix "+json" (RFC 6839 §3.1) covers vendor types beyond the listed ones.
  if (JSON_TYPES.has(essence) || essence.endsWith('+json')) return 'json';
  return 'text';
}

function decode(body: string, format: 'json' | 'form' | 'text'): unknown {
  if (format === 'form') return Object.fromEntries(new URLSearchParams(body));
  if (format === 'json') {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body; // a malformed JSON body stays readable as text (a documented departure: see jsonSyntaxError)
    }
  }
  return body;
}
