import { isPlainObject } from './snaky-hash.js';

export type Logger = Pick<Console, 'debug' | 'warn'>;

const REDACTED = '[REDACTED]';

/**
 * Parameters and JSON members whose values are secrets. `token` is the parameter of RFC 7009 §2.1,
 * `client_assertion` the signed client JWT of RFC 7523 §2.2.
 */
const SECRET_KEYS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'assertion',
  'client_assertion',
  'code',
  'code_verifier',
  'password',
  'token',
]);
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Debug logging is on when the environment variable `OAUTH_DEBUG` is `true` (reference: Global configuration). */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.OAUTH_DEBUG === 'true';
}

export interface LoggedExchange {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
}

/** Logs one request, secrets redacted. */
export function logRequest(logger: Logger, request: LoggedExchange): void {
  logger.debug(
    `oauth2 request: ${request.method.toUpperCase()} ${redactUrl(request.url)}\n` +
      `  headers: ${JSON.stringify(redactHeaders(request.headers))}\n` +
      `  body: ${request.body === undefined ? '' : redactBody(request.body)}`,
  );
}

/** Logs one response, secrets redacted. */
export function logResponse(logger: Logger, url: string, status: number, headers: Readonly<Record<string, string>>, body: string): void {
  logger.debug(
    `oauth2 response: ${status} ${redactUrl(url)}\n` +
      `  headers: ${JSON.stringify(redactHeaders(headers))}\n` +
      `  body: ${redactBody(body)}`,
  );
}

export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value]),
  );
}

export function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.search === '') return url;
  parsed.search = redactForm(parsed.search.slice(1));
  return parsed.toString();
}

/** Redacts a JSON or form body; any other text is searched for `key=value` and `"key": "value"` pairs. */
export function redactBody(body: string): string {
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(redactJson(JSON.parse(trimmed)));
    } catch {
      // not JSON after all: fall through to the pattern scan
    }
  } else if (/^[^\s=&]+=[^\s]*$/.test(trimmed)) {
    return redactForm(trimmed);
  }
  return redactPatterns(body);
}

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, SECRET_KEYS.has(key) ? REDACTED : redactJson(item)]),
  );
}

function redactForm(form: string): string {
  const params = new URLSearchParams(form);
  for (const key of new Set(params.keys())) if (SECRET_KEYS.has(key)) params.set(key, REDACTED);
  return params.toString();
}

const SECRET_PATTERN = new RegExp(
  `("(?:${[...SECRET_KEYS].join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"|\\b((?:${[...SECRET_KEYS].join('|')})=)[^&\\s]*`,
  'g',
);

function redactPatterns(text: string): string {
  return text.replace(SECRET_PATTERN, (_match, jsonKey: string | undefined, formKey: string | undefined) =>
    jsonKey === undefined ? `${formKey ?? ''}${REDACTED}` : `${jsonKey}"${REDACTED}"`,
  );
}
