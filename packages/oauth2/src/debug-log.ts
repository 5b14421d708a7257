import { redactBody, redactHeaders, redactUrl } from './redact.js';

/**
 * Where the client writes its debug output and warnings, one message each: the console, a pino
 * logger (a child of the service's, see src/app.ts) or a test's capture all fit.
 */
export interface Logger {
  debug(message: string): void;
  warn(message: string): void;
}

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
