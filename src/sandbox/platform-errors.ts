/** Error bodies in each platform's own format: JSON:API errors, and Google (google.rpc) errors. */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './http-kit.js';

export const JSON_API = 'application/vnd.api+json';
export const GOOGLE_JSON = 'application/json; charset=UTF-8';

/** A JSON:API error object (https://jsonapi.org/format/1.0/#error-objects) as the membership platform writes it. */
export function sendJsonApiError(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { errors: [{ id: randomUUID(), status: String(status), code: null, code_name: title.replaceAll(' ', ''), title, detail }] }, JSON_API, headers);
}

/** google.rpc.Code names for the HTTP statuses the platform maps them to. */
function googleStatus(status: number): string {
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ABORTED',
    429: 'RESOURCE_EXHAUSTED', 499: 'CANCELLED', 500: 'INTERNAL', 501: 'UNIMPLEMENTED', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
  };
  return names[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/** A Google API error body, with an ErrorInfo reason when there is one. */
export function sendGoogleError(res: ServerResponse, status: number, message: string, reason?: string, headers: Record<string, string> = {}): void {
  const error: Record<string, unknown> = { code: status, message, status: googleStatus(status) };
  if (reason) error.details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }];
  sendJson(res, status, { error }, GOOGLE_JSON, headers);
}
