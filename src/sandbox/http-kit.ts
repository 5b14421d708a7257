/** Small node:http helpers shared by the sandbox's endpoint modules. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequestBody } from '../lib/body.js';

/** Requests bodies above this are refused (413); nothing the sandbox emulates needs more. */
const MAX_BODY_BYTES = 1_048_576;

/** The request body; BodyTooLargeError (src/lib/body.ts) past MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return readRequestBody(req, MAX_BODY_BYTES);
}

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, contentType = 'application/json; charset=utf-8', headers: Record<string, string> = {}): void {
  send(res, status, contentType, JSON.stringify(value), headers);
}

/** Parses a JSON body; undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
