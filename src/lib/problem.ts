/**
 * Problem details for HTTP APIs (RFC 9457): every error answer of the REST API and of the sandbox's
 * own endpoints is one of these, with a `detail` that says exactly what was wrong.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 §3.1 members, and the extension members a problem type may define (§3.2). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  [extension: string]: unknown;
}

/**
 * A problem of type `about:blank`, whose title is the status phrase (RFC 9457 §4.2.1): the status
 * says what kind of problem it is, `detail` says what happened this time.
 */
export function problem(status: number, detail: string, instance?: string): ProblemDetails {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, ...(instance === undefined ? {} : { instance }) };
}

/** Answers with the problem as `application/problem+json`, never stored by a cache. */
export function sendProblem(response: ServerResponse, body: ProblemDetails, headers: Readonly<Record<string, string>> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(body.status, {
    ...headers,
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
  });
  response.end(payload);
}
