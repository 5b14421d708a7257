/**
 * The service's log: pino, one JSON object per line on stdout (what log shippers read). Secrets are
 * removed by path before a line is written, whatever code logged them: request and response headers
 * that carry credentials, OAuth2 parameters (RFC 6749 §4.1.3, §6, RFC 7636 §4.5, RFC 7523 §2.2), the
 * members.json request headers and key, and our own camelCase settings names.
 */
import fs from 'node:fs';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** LOG_LEVEL when unset. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** What a removed value is replaced with (the OAuth2 client's debug log uses the same word). */
const CENSOR = '[REDACTED]';

const HEADER_SECRETS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'];
const OAUTH_SECRETS = ['access_token', 'refresh_token', 'id_token', 'token', 'client_secret', 'code', 'code_verifier', 'assertion', 'client_assertion', 'password'];
const SETTINGS_SECRETS = ['clientSecret', 'accessToken', 'refreshToken', 'webhookSecret', 'metricsToken'];
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
 * new lines are dropped rather than memory grown without a bound. 16 MiB is ~60,000 request lines.
 */
export const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Lines are held until this many bytes are pending (or LOG_BATCH_MS has passed) and written
 * together: each write is handed to a libuv thread, and the wake-ups around it cost the server more
 * than the write(2) itself. 128 KiB is ~640 request lines. On the 2-vCPU VM the bench runs on, a
 * server at saturation on the issue query answered 3–4 % more requests with 128 or 256 KiB batches
 * than with 32 KiB. Held as bytes, not strings, so a large batch keeps nothing
 * alive on the JavaScript heap for the scavenger to copy.
 */
export const LOG_BATCH_BYTES = 128 * 1024;
/** The longest a line waits for its batch (a quiet server's lines still go out promptly). */
export const LOG_BATCH_MS = 100;

/**
 * Room of a batch's buffer: a line is encoded into it when the worst case of its UTF-8 (3 bytes per
 * UTF-16 code unit) fits, so the batch is handed over at LOG_BATCH_BYTES or just before a line that
 * might not fit; a line longer than a third of this is written on its own.
 */
const BATCH_ROOM = 2 * LOG_BATCH_BYTES;

/** sonic-boom's side of a BatchedDestination (in its `buffer` content mode). */
interface SonicBoomStream {
  /** The file descriptor, once open (-1 before). */
  readonly fd: number;
  write(bytes: Buffer): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
  end(): void;
  destroy(): void;
  once(event: 'ready', listener: () => void): unknown;
}

/** Destinations with lines held: each hands them over synchronously when the process exits. */
const heldOnExit = new Set<BatchedDestination>();
let exitHookInstalled = false;

/**
 * The batches: each line is encoded to UTF-8 straight into the batch's buffer, and the batch is
 * handed to sonic-boom as bytes (one copy of exactly its size). sonic-boom's own batching of strings
 * (`minLength`) measures the whole pending text again (Buffer.byteLength, which also flattens it)
 * for every line appended, and encodes each batch twice more (to write it, then to count what was
 * written); lines kept as strings until their batch is joined survive scavenges the larger the
 * batch is. Here a line costs one encoding into memory outside the heap.
 *
 * pino flushes sonic-boom synchronously when the process exits; the lines held here are handed over
 * and flushed the same way (one `exit` listener for every destination), and `flush(cb)`, which
 * `logger.flush(cb)` calls, hands them over first.
 */
export class BatchedDestination implements DestinationStream {
  readonly #sonic: SonicBoomStream;
  readonly #batch = Buffer.allocUnsafeSlow(BATCH_ROOM);
  #used = 0;
  readonly #timer: NodeJS.Timeout;

  /** `batchMs`: the longest a line waits for its batch (default LOG_BATCH_MS). */
  constructor(sonic: SonicBoomStream, batchMs = LOG_BATCH_MS) {
    this.#sonic = sonic;
    this.#timer = setInterval(() => this.handOver(), batchMs).unref();
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', () => {
        for (const destination of heldOnExit) {
          try {
            destination.flushSync();
          } catch {
            // Its file never opened: there is nowhere to write (sonic-boom says "not ready yet").
          }
        }
      });
    }
  }

  /** Resolves once sonic-boom has opened its file. */
  ready(): Promise<void> {
    return new Promise((resolve) => this.#sonic.once('ready', resolve));
  }

  write(line: string): void {
    const maxBytes = 3 * line.length;
    if (maxBytes > BATCH_ROOM) {
      this.handOver();
      this.#sonic.write(Buffer.from(line));
      return;
    }
    const at = this.reserve(maxBytes);
    this.commit(at + this.#batch.write(line, at));
  }

  /**
   * For a writer that encodes its line itself (request-log.ts): room for a line of at most
   * `maxBytes` bytes (at most BATCH_ROOM) in `buffer`, from the offset returned; the batch is handed
   * over first when the line might not fit. `commit(end)` then takes the bytes up to `end` into the
   * batch; nothing else may write in between.
   */
  reserve(maxBytes: number): number {
    if (maxBytes > BATCH_ROOM) throw new RangeError(`room for ${maxBytes} bytes: a line that long is written with write()`);
    if (maxBytes > BATCH_ROOM - this.#used) this.handOver();
    return this.#used;
  }

  /** The buffer `reserve` gives room in. */
  get buffer(): Buffer {
    return this.#batch;
  }

  commit(end: number): void {
    if (this.#used === 0) heldOnExit.add(this);
    this.#used = end;
    if (end >= LOG_BATCH_BYTES) this.handOver();
  }

  /** Writes what is held; `callback` once it has reached the file. */
  flush(callback?: (error?: Error) => void): void {
    this.handOver();
    this.#sonic.flush(callback);
  }

  /**
   * Writes what is held and what sonic-boom holds, synchronously (at exit). The held lines are
   * written here, after sonic-boom's: handed over, they would start an asynchronous write that
   * the exiting process might not see through.
   */
  flushSync(): void {
    const batch = this.take();
    this.#sonic.flushSync();
    if (batch !== undefined) writeAllSync(this.#sonic.fd, batch);
  }

  /** Writes what is held and closes the file. */
  end(): void {
    this.handOver();
    clearInterval(this.#timer);
    this.#sonic.end();
  }

  /** Closes the file at once; what is held is dropped. */
  destroy(): void {
    this.#used = 0;
    heldOnExit.delete(this);
    clearInterval(this.#timer);
    this.#sonic.destroy();
  }

  private handOver(): void {
    const batch = this.take();
    if (batch !== undefined) this.#sonic.write(batch);
  }

  /**
   * A copy of the held lines' bytes (undefined when none), no longer held. A copy of exactly their
   * size, not a view of the batch's buffer: sonic-boom bounds what it holds (MAX_PENDING_LOG_BYTES)
   * by the bytes it is given, so a view would keep the whole buffer alive for every small batch the
   * 100 ms timer hands over while the reader is behind. The buffer is reused for the next batch.
   */
  private take(): Buffer | undefined {
    if (this.#used === 0) return undefined;
    const batch = Buffer.allocUnsafeSlow(this.#used);
    this.#batch.copy(batch, 0, 0, this.#used);
    this.#used = 0;
    heldOnExit.delete(this);
    return batch;
  }
}

/** How long a synchronous write at exit retries a descriptor that is not ready (a non-blocking pipe whose reader is behind). */
const EXIT_WRITE_PATIENCE_MS = 1_000;

/** write(2) until all of `bytes` are written, waiting a millisecond at a time while the descriptor is not ready (EAGAIN), at most EXIT_WRITE_PATIENCE_MS. */
function writeAllSync(fd: number, bytes: Buffer): void {
  let rest = bytes;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = performance.now() + EXIT_WRITE_PATIENCE_MS;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(fs.writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || performance.now() > until) return;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/**
 * An asynchronous file destination: a request does not wait for a write(2), and lines are written
 * in batches (LOG_BATCH_BYTES, LOG_BATCH_MS; BatchedDestination), not one write per line. Flushed
 * synchronously when the process exits (process.exit, an uncaught exception, the end of the event
 * loop); `logger.flush(cb)` writes what is pending, and main.ts flushes before it exits after
 * SIGTERM. `dest`: a file descriptor (default 1, stdout) or a path; `options.batchMs` the longest a
 * line waits for its batch (default LOG_BATCH_MS).
 */
export function logDestination(dest: number | string = 1, options: { batchMs?: number } = {}): BatchedDestination {
  // minLength 1: sonic-boom writes each batch when it gets it (or right after the write in flight).
  // Not 0: with 0, its flush(cb) calls back at once, before a write in flight has landed. Content
  // mode 'buffer': it is given the batches as bytes, and counts and writes them as they are.
  const sonic = pino.destination({ dest, sync: false, maxLength: MAX_PENDING_LOG_BYTES, minLength: 1, contentMode: 'buffer' }) as unknown as SonicBoomStream;
  return new BatchedDestination(sonic, options.batchMs);
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
