/**
 * `@channel-graph/client/rest`: a typed client of the channel data API, built with openapi-fetch on
 * the types generated from openapi/channel-api.yaml — paths, query parameters, bodies and error
 * bodies are all checked at compile time.
 *
 *   const api = createChannelApiClient('http://localhost:4000');
 *   const { data, error } = await api.GET('/membership/pledges', { params: { query: { sort: 'amount' } } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from '../../../generated/openapi/channel-api.js';

export type { components as ChannelApiComponents, paths as ChannelApiPaths } from '../../../generated/openapi/channel-api.js';

export type ChannelApiClient = Client<paths>;
export type SupportersResponse = components['schemas']['SupportersResponse'];
export type StatsResponse = components['schemas']['StatsResponse'];
export type HealthResponse = components['schemas']['Health'];
export type Problem = components['schemas']['Problem'];

export function createChannelApiClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ChannelApiClient {
  return createClient<paths>({ ...options, baseUrl });
}
