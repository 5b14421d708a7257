/**
 * `@channel-graph/client/rest`: a typed client of the channel data API, built with openapi-fetch on
 * the types generated from openapi/channel-api.yaml — paths, query parameters, bodies and error
 * bodies are all checked at compile time.
 *
 *   const api = createChannelApiClient('http://localhost:4000');
 *   const { data, error } = await api.GET('/membership/pledges', { params: { query: { sort: 'amount' } } });
 *
 * A successful answer read as JSON must be labelled JSON, as every JSON answer of the contract is;
 * anything else rejects with ChannelApiResponseError. The shape of a JSON answer is not checked
 * against the contract at run time (README: it would put the contract's schemas and a validator in
 * every bundle; the server's own tests check each of its answers against the contract).
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../generated/openapi/channel-api.js';

export type { components as ChannelApiComponents, paths as ChannelApiPaths } from '../../../generated/openapi/channel-api.js';

export type ChannelApiClient = Client<paths>;
export type SupportersResponse = components['schemas']['SupportersResponse'];
export type StatsResponse = components['schemas']['StatsResponse'];
export type HealthResponse = components['schemas']['Health'];
export type Problem = components['schemas']['Problem'];
export type TotalsResponse = components['schemas']['TotalsResponse'];
export type HistoryResponse = components['schemas']['HistoryResponse'];
export type ChangesResponse = components['schemas']['ChangesResponse'];
export type GoalsResponse = components['schemas']['GoalsResponse'];

/** A successful answer that is not what the contract says: not JSON where the call reads JSON. */
export class ChannelApiResponseError extends Error {
  override readonly name = 'ChannelApiResponseError';
  constructor(
    message: string,
    /** The HTTP status of the answer. */
    readonly status: number,
    /** Its Content-Type (null when it had none). */
    readonly contentType: string | null,
  ) {
    super(message);
  }
}

/** `application/json` and the `+json` suffix types (RFC 6839 §3.1), parameters allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Refuses a successful answer that a call reads as JSON (openapi-fetch's default `parseAs`) but that
 * is not labelled JSON: an HTML page from a proxy or a development server's fallback would
 * otherwise be a SyntaxError, or a wrongly typed object when it happened to parse.
 */
const jsonAnswersOnly: Middleware = {
  async onResponse({ request, response, options }) {
    if (options.parseAs !== 'json' || !response.ok || response.status === 204 || request.method === 'HEAD') return undefined;
    const contentType = response.headers.get('content-type');
    if (contentType !== null && JSON_MEDIA_TYPE.test(contentType)) return undefined;
    await response.body?.cancel();
    const { pathname } = new URL(request.url);
    throw new ChannelApiResponseError(`${request.method} ${pathname} answered ${response.status} with ${contentType ?? 'no Content-Type'}, not JSON`, response.status, contentType);
  },
};

export function createChannelApiClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ChannelApiClient {
  const client = createClient<paths>({ ...options, baseUrl });
  client.use(jsonAnswersOnly);
  return client;
}
