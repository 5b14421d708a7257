import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { components } from '../../generated/openapi/channel-api.js';

/**
 * Problem details (RFC 9457). Every error of the REST API is one of these, with a `detail` that says
 * exactly what was wrong. `type` is `about:blank`, so `title` is the status phrase (RFC 9457 §4.2.1).
 */
export type Problem = components['schemas']['Problem'];
export type UpstreamProblem = components['schemas']['UpstreamProblem'];

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problem(status: number, detail: string, instance?: string): Problem {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, ...(instance === undefined ? {} : { instance }) };
}

export function sendProblem(
  response: ServerResponse,
  body: Problem | UpstreamProblem,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  response.writeHead(body.status, {
    ...headers,
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
  });
  response.end(payload);
}
