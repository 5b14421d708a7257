import type { ParamValue, Params } from './types.js';

/** How array parameters are encoded: `nested` → `a[]=1&a[]=2` (the default), `flat` → `a=1&a=2`. */
export type ParamsEncoder = 'nested' | 'flat';

const ABSOLUTE_URL = /^[a-z][a-z\d+.-]*:/i;

/**
 * Resolves an endpoint path against `site` (reference: URL resolution rule). An absolute URL is used
 * as is; a path with a leading `/` is absolute on the host of `site` (the site path is dropped);
 * any other path is relative to the path of `site`.
 */
export function resolveUrl(site: string | undefined, path: string): URL {
  if (ABSOLUTE_URL.test(path)) return new URL(path);
  if (site === undefined) throw new TypeError(`cannot resolve "${path}": the client has no site and the path is not an absolute URL`);
  if (path.startsWith('/')) return new URL(path, site);
  return new URL(path, site.endsWith('/') ? site : `${site}/`);
}

/** Appends `params` (nil values omitted) to the query of `url`, after any query it already has. */
export function withQuery(url: URL, params: Params | undefined, encoder: ParamsEncoder): URL {
  if (params === undefined) return url;
  const query = encodeParams(params, encoder);
  if (query === '') return url;
  const result = new URL(url);
  result.search = result.search === '' ? query : `${result.search.slice(1)}&${query}`;
  return result;
}

/**
 * `application/x-www-form-urlencoded` serialisation (WHATWG URL §5.2) of a parameter tree.
 * `null`/`undefined` leaves are left out; nested objects become `key[sub]`.
 */
export function encodeParams(params: Params, encoder: ParamsEncoder): string {
  const pairs = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) appendParam(pairs, key, value, encoder);
  return pairs.toString();
}

function appendParam(pairs: URLSearchParams, key: string, value: ParamValue, encoder: ParamsEncoder): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    const itemKey = encoder === 'flat' ? key : `${key}[]`;
    for (const item of value as readonly ParamValue[]) appendParam(pairs, itemKey, item, encoder);
    return;
  }
  if (typeof value === 'object') {
    for (const [sub, item] of Object.entries(value as Params)) appendParam(pairs, `${key}[${sub}]`, item, encoder);
    return;
  }
  pairs.append(key, String(value));
}

/** Form-urlencodes one string (used for the Basic credentials of RFC 6749 §2.3.1). */
export function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
