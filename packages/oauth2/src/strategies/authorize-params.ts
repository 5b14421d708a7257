import type { Params } from '../types.js';

/** The authorization URL travels through the user agent: a client secret must never be put in it. */
export function assertNoClientSecret(params: Params): void {
  if ('client_secret' in params) throw new TypeError('client_secret is not allowed in authorize URL query params');
}
