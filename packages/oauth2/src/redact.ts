import { isPlainObject, snakeCase } from './snaky-hash.js';

/** What a hidden value is replaced with, in logs and in `util.inspect` output. */
export const REDACTED = '[REDACTED]';

/**
 * Parameters and JSON members whose values are secrets, by their snake_case name: a key is compared
 * after snake-casing, so `accessToken`, `AccessToken` and `access-token` match `access_token`.
 * `token` is the parameter of RFC 7009 §2.1, `client_assertion` the signed client JWT of RFC 7523
 * §2.2, `subject_token`/`actor_token` those of token exchange (RFC 8693 §2.1), `device_code` the
 * device grant's (RFC 8628 §3.4), `oauth_token` a common `paramName` for query-mode tokens.
 */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'oauth_token',
  'client_secret',
  'assertion',
  'client_assertion',
  'code',
  'code_verifier',
  'device_code',
  'subject_token',
  'actor_token',
  'password',
]);

/** Headers whose whole value is a secret. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Headers whose value is a URL that may carry a code or a token in its query or fragment (RFC 6749 §4.1.2, §4.2.2). */
const URL_HEADERS: ReadonlySet<string> = new Set(['location', 'content-location', 'refresh']);

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(snakeCase(key));
}

export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => {
      const lower = name.toLowerCase();
      if (SECRET_HEADERS.has(lower)) return [name, REDACTED];
      return [name, URL_HEADERS.has(lower) ? redactPatterns(redactUrl(value)) : value];
    }),
  );
}

/**
 * A URL with the password of its user info, and secret parameters of its query and fragment,
 * replaced. A relative URL (a `Location` may be one) is treated the same way.
 */
export function redactUrl(url: string): string {
  const relative = !/^[a-z][a-z\d+.-]*:/i.test(url);
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://relative.invalid');
  } catch {
    return redactPatterns(url);
  }
  if (parsed.password !== '') parsed.password = REDACTED;
  if (parsed.search !== '') parsed.search = redactForm(parsed.search.slice(1));
  if (parsed.hash !== '') parsed.hash = redactForm(parsed.hash.slice(1));
  return relative ? parsed.href.slice('http://relative.invalid'.length) : parsed.href;
}

/** Redacts a JSON or form body; any other text is searched for `key=value`, `key: value` and `"key": "value"` pairs. */
export function redactBody(body: string): string {
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(redactValue(JSON.parse(trimmed)));
    } catch {
      // not JSON after all: fall through to the pattern scan
    }
  } else if (/^[^\s=&]+=[^\s]*$/.test(trimmed)) {
    return redactForm(trimmed);
  }
  return redactPatterns(body);
}

/** A copy of a parsed JSON value (objects, arrays, scalars) with the values of secret keys replaced. */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSecretKey(key) ? REDACTED : redactValue(item)]));
}

function redactForm(form: string): string {
  const params = new URLSearchParams(form);
  for (const key of new Set(params.keys())) if (isSecretKey(key)) params.set(key, REDACTED);
  return params.toString();
}

/**
 * `"key": "value"` (JSON inside text), `key=value` (form inside text) and `key: value` (header-like
 * or YAML-like text) for every secret key, in snake_case, camelCase or kebab-case spelling. Scanned
 * case-insensitively: `Access_Token=` is as secret as `access_token=`.
 */
const KEY_SPELLINGS = [...SECRET_KEYS].flatMap((key) => [key, key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), key.replaceAll('_', '-')]);
const KEY_ALTERNATIVES = [...new Set(KEY_SPELLINGS)].sort((a, b) => b.length - a.length).join('|');
const SECRET_PATTERN = new RegExp(
  `("(?:${KEY_ALTERNATIVES})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"|\\b((?:${KEY_ALTERNATIVES})\\s*[=:]\\s*)[^&\\s,;"]+`,
  'gi',
);

function redactPatterns(text: string): string {
  return text.replace(SECRET_PATTERN, (_match, jsonKey: string | undefined, plainKey: string | undefined) =>
    jsonKey === undefined ? `${plainKey ?? ''}${REDACTED}` : `${jsonKey}"${REDACTED}"`,
  );
}
