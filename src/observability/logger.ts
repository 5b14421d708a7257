/**
 * The service's log: pino, one JSON object per line on stdout (what log shippers read). Secrets are
 * removed by path before a line is written, whatever code logged them: request and response headers
 * that carry credentials, OAuth2 parameters (RFC 6749 §4.1.3, §6, RFC 7636 §4.5, RFC 7523 §2.2), the
 * members.json request headers and key, and our own camelCase settings names.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { utf8Bytes } from '../lib/utf8-bytes.js';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** LOG_LEVEL when unset. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** What a removed value is replaced with (the OAuth2 client's debug log uses the same word). */
const CENSOR = '[REDACTED]';

const HEADER_SECRETS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'];
const OAUTH_SECRETS = ['access_token', 'refresh_token', 'id_token', 'token', 'client_secret', 'code', 'code_verifier', 'assertion', 'client_assertion', 'password'];
const SETTINGS_SECRETS = ['clientSecret', 'accessToken', 'refreshToken', 'webhookSecret', 'metricsToken', 'notificationsReplayToken', 'secret'];
/** Where a members.json object may sit in a logged object: its `key` and all its `headers` are secrets. */
const MEMBERS_AT = ['members', 'video.members', 'upstream.video.members', 'config.upstream.video.members'];

/** `prefix["key"]` for every pair (`["key"]` at the top level). */
const under = (prefixes: readonly string[], keys: readonly string[]): string[] => prefixes.flatMap((prefix) => keys.map((key) => `${prefix}["${key}"]`));

/**
 * pino's redaction paths (fast-redact), every one explicit: wildcards (`*.x`) cost fast-redact a walk
 * of the whole object per line (40× the line itself, measured), explicit paths a property lookup.
 * Header secrets as fields and in `req.headers`, `res.headers`, `headers`; OAuth2 parameters as
 * fields and in `body`, `params`; the settings' camelCase secrets as fields and in the membership
 * settings wherever a configuration is logged; the members.json `headers` and `key`.
 */
export const REDACTED_PATHS: readonly string[] = [
  ...under(['', 'req.headers', 'res.headers', 'headers'], HEADER_SECRETS),
  ...under(['', 'body', 'params'], OAUTH_SECRETS),
  ...under(['', 'membership', 'upstream.membership', 'config.upstream.membership'], SETTINGS_SECRETS),
  ...under(['', ...MEMBERS_AT], ['key']),
  ...under(MEMBERS_AT, ['headers']),
];

/**
 * Bytes of log lines held while the reader of stdout (a log shipper, a pipe) is behind: past this,
 * new lines are dropped rather than memory grown without a bound (sonic-boom's `maxLength`).
 * 16 MiB is ~60,000 request lines.
 */
export const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Lines are held until this many bytes are pending (or LOG_BATCH_MS has passed) and written
 * together (sonic-boom's `minLength`): each write is handed to a libuv thread, and the wake-ups
 * around it cost the server more than the write(2) itself. 64 KiB is ~320 request lines.
 */
export const LOG_BATCH_BYTES = 64 * 1024;
/** The longest a line waits for its batch (sonic-boom's `periodicFlush`): a quiet server's lines still go out promptly. */
export const LOG_BATCH_MS = 100;

/** The sonic-boom stream pino.destination makes. */
type SonicBoom = ReturnType<typeof pino.destination>;

/** The service's log destination: a pino DestinationStream over sonic-boom. */
export interface LogDestination extends DestinationStream {
  write(line: string): void;
  /** Writes what is pending; `callback` once it has reached the file (`logger.flush(cb)` calls this). */
  flush(callback?: (error?: Error) => void): void;
  /** Writes what is pending now (pino calls this after a `fatal` line). */
  flushSync(): void;
  /** The sonic-boom stream underneath: its 'ready' event (a path is opened asynchronously), `end()`, `destroy()`. */
  readonly stream: SonicBoom;
}

/**
 * An asynchronous file destination (pino.destination, i.e. sonic-boom): a request does not wait
 * for a write(2), and lines are written in batches (LOG_BATCH_BYTES, LOG_BATCH_MS), not one write
 * per line. pino flushes it synchronously when the process exits (process.exit, an uncaught
 * exception, the end of the event loop); `logger.flush(cb)` writes what is pending, and main.ts
 * flushes before it exits after SIGTERM. `dest`: a file descriptor (default 1, stdout) or a path;
 * `options.batchMs` the longest a line waits for its batch (default LOG_BATCH_MS).
 */
export function logDestination(dest: number | string = 1, options: { batchMs?: number } = {}): LogDestination {
  const stream = pino.destination({
    dest,
    sync: false,
    contentMode: 'buffer',
    minLength: LOG_BATCH_BYTES,
    // sonic-boom writes what is pending in chunks of at most maxWrite bytes: a batch goes out in one.
    maxWrite: 2 * LOG_BATCH_BYTES,
    maxLength: MAX_PENDING_LOG_BYTES,
    periodicFlush: options.batchMs ?? LOG_BATCH_MS,
  });
  // Lines are given to sonic-boom as bytes (its 'buffer' content mode; its types know only the
  // string write of its 'utf8' mode): in 'utf8' mode it measures the pending chunk again, a string
  // growing to minLength, for every line appended (~10k instructions a line at 8 KiB, counted).
  const writeBytes = stream.write.bind(stream) as unknown as (bytes: Buffer) => boolean;
  return {
    write: (line) => void writeBytes(utf8Bytes(line)),
    // sonic-boom's flush calls back once the write in flight is done and what is left is below
    // minLength, which it then still holds: a second flush, when the first has called back, writes that.
    flush: (callback) => stream.flush(() => stream.flush(callback)),
    flushSync: () => stream.flushSync(),
    stream,
  };
}

export interface CreateLoggerOptions {
  /** Default DEFAULT_LOG_LEVEL. */
  level?: LogLevel;
  /** Where lines go; default stdout, asynchronously (logDestination()). */
  destination?: DestinationStream;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const settings: LoggerOptions = {
    level: options.level ?? DEFAULT_LOG_LEVEL,
    redact: { paths: [...REDACTED_PATHS], censor: CENSOR },
    // `err` fields are serialised with their message and stack (pino's standard serialiser).
    serializers: { err: pino.stdSerializers.err },
    base: { pid: process.pid },
  };
  return pino(settings, options.destination ?? logDestination());
}

/**
 * A human-readable destination for a developer's terminal: pino-pretty when it is installed (a
 * devDependency, so never in a production install), else undefined (JSON lines then).
 */
export async function prettyDestination(): Promise<DestinationStream | undefined> {
  try {
    const { default: pretty } = await import('pino-pretty');
    return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
  } catch {
    return undefined;
  }
}
