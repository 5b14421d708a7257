/**
 * Compressed answers: the coding a request gets (content-coding.ts, remembered per Accept-Encoding
 * value), and node's zlib doing the work — brotli and gzip always, zstd where the running node has it
 * (zlib.zstdCompress: node 22.15 and 23.8 on). Bodies below 1 KiB, of a type that does not shrink
 * (images, already compressed) or streamed (text/event-stream, multipart) are sent as they are.
 *
 * Two efforts: a body answered many times (a REST representation, a cached GraphQL answer, an
 * overlay file) is compressed once per coding and kept, so it gets a thorough level; an answer made
 * for one request (a prepared GraphQL answer, /metrics) is compressed each time, at a fast level
 * (brotli quality 4, gzip level 6, zstd level 3). Either way a body up to 64 KiB is compressed at
 * once (tens to hundreds of µs), a larger one on libuv's thread pool (zlib's async API), never on the
 * event loop.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { type Coding, type ContentCoding, CONTENT_CODINGS, createContentNegotiator } from './content-coding.js';

export type { Coding, ContentCoding } from './content-coding.js';

/** `kept`: compressed once and answered many times; `answer`: compressed for one request. */
export type CompressionEffort = 'kept' | 'answer';

/** Smaller bodies are sent as they are: the coding's framing would eat most of what it saves. */
export const MIN_COMPRESSED_BYTES = 1024;
/** Larger bodies are compressed on the thread pool: at a kept level 64 KiB of JSON takes ~1 ms. */
export const MAX_SYNC_COMPRESSED_BYTES = 64 * 1024;

/**
 * Levels per coding and effort. Measured on the sandbox's 1 MB supporters list (10,000 patrons,
 * node 24, one at a time): brotli 6 makes it 103 KB in ~10 ms, brotli 4 111 KB in ~6 ms; gzip 9
 * 107 KB in ~20 ms, gzip 6 111 KB in ~9 ms; zstd 9 103 KB in ~8 ms, zstd 3 126 KB in ~2 ms.
 */
const LEVELS: Readonly<Record<CompressionEffort, Readonly<Record<ContentCoding, number>>>> = {
  kept: { br: 6, gzip: 9, zstd: 9 },
  answer: { br: 4, gzip: 6, zstd: 3 },
};

/**
 * The order codings are preferred in when a request weighs them alike. A kept body is compressed
 * once: the smallest output first. An answer made per request: the cheapest for its size first —
 * at the fast levels brotli made the sandbox's GraphQL answers no smaller than gzip (24.1 KB
 * against 23.5 KB of 222 KB; 108 KB against 107 KB of 1.1 MB, bench/compression) for more CPU,
 * system time above all (3–7 ms a megabyte against gzip's 0.3, on the thread pool, one body at a time).
 */
const PREFERENCE: Readonly<Record<CompressionEffort, readonly ContentCoding[]>> = {
  kept: ['br', 'zstd', 'gzip'],
  answer: ['zstd', 'gzip', 'br'],
};

/** zlib's zstd functions, present from node 22.15 / 23.8 on (@types/node 20 does not declare them). */
interface ZstdZlib {
  zstdCompress?: (buffer: Buffer, options: zlib.ZlibOptions & { params?: Record<number, number> }, callback: (error: Error | null, result: Buffer) => void) => void;
  zstdCompressSync?: (buffer: Buffer, options: zlib.ZlibOptions & { params?: Record<number, number> }) => Buffer;
}
const zstd = zlib as typeof zlib & ZstdZlib;
/** zstd.h's ZSTD_c_compressionLevel, where zlib has zstd. */
const ZSTD_LEVEL = (zlib.constants as Readonly<Record<string, number | undefined>>).ZSTD_c_compressionLevel;

/** The content codings the running node's zlib can produce, in the server's order of preference. */
export function zlibCodings(): readonly ContentCoding[] {
  return CONTENT_CODINGS.filter((coding) => coding !== 'zstd' || (typeof zstd.zstdCompress === 'function' && typeof zstd.zstdCompressSync === 'function' && ZSTD_LEVEL !== undefined));
}

type Compressor = {
  sync: (bytes: Buffer) => Buffer;
  async: (bytes: Buffer, callback: (error: Error | null, result: Buffer) => void) => void;
};

function brotliOptions(level: number, bytes: Buffer): zlib.BrotliOptions {
  return {
    params: {
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_QUALITY]: level,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  };
}

/** The compressor of a coding at a level; the options that depend only on the level are made here, once. */
function compressorOf(coding: ContentCoding, level: number): Compressor {
  switch (coding) {
    case 'br':
      return {
        sync: (bytes) => zlib.brotliCompressSync(bytes, brotliOptions(level, bytes)),
        async: (bytes, callback) => zlib.brotliCompress(bytes, brotliOptions(level, bytes), callback),
      };
    case 'gzip': {
      const options = { level };
      return { sync: (bytes) => zlib.gzipSync(bytes, options), async: (bytes, callback) => zlib.gzip(bytes, options, callback) };
    }
    case 'zstd': {
      const options = { params: { [ZSTD_LEVEL as number]: level } };
      const { zstdCompress, zstdCompressSync } = zstd as Required<ZstdZlib>;
      return { sync: (bytes) => zstdCompressSync(bytes, options), async: (bytes, callback) => zstdCompress(bytes, options, callback) };
    }
  }
}

/**
 * Media types worth compressing: text (but not a server-sent event stream, which is written event by
 * event), JSON (+json suffixes: problem details, GraphQL responses), JavaScript, XML, SVG.
 */
const COMPRESSIBLE = /^\s*(?:text\/(?!event-stream)|application\/(?:[\w.+-]*\+)?(?:json|xml)\b|application\/(?:x-)?javascript\b|image\/svg\+xml\b)/i;

export function isCompressibleType(contentType: string | null | undefined): boolean {
  return contentType !== undefined && contentType !== null && COMPRESSIBLE.test(contentType);
}

export interface CompressionOptions {
  /** Off (COMPRESSION=false): every answer in identity, without `Vary: Accept-Encoding`. Default true. */
  enabled?: boolean;
  /** The codings offered; default zlibCodings() (every one the running node has). */
  codings?: readonly ContentCoding[];
  /** Told of every body compressed (the metric of the work compression costs). */
  onCompressed?: (coding: ContentCoding, effort: CompressionEffort) => void;
}

export interface Compression {
  /** The codings offered (none when off), in the order preferred for kept bodies. */
  readonly codings: readonly ContentCoding[];
  /** The coding an Accept-Encoding value asks for, for a body of this effort: one of `codings`, or identity. */
  codingOf(acceptEncoding: string | null | undefined, effort: CompressionEffort): Coding;
  /** Whether a body of this size and type is negotiated at all: its answers then carry `Vary: Accept-Encoding`. */
  negotiates(byteLength: number, contentType: string | null | undefined): boolean;
  /** The bytes in `coding`: at once up to MAX_SYNC_COMPRESSED_BYTES, else a promise (the thread pool). */
  compress(coding: ContentCoding, bytes: Buffer, effort: CompressionEffort): Buffer | Promise<Buffer>;
}

/** Statuses whose answers have no content (RFC 9110 §15.3.5, §15.4.5, §6.4.1). */
function hasContent(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 304;
}

/** A factory with no global state: each app (and test) has its own negotiation memo and options. */
export function createCompression(options: CompressionOptions = {}): Compression {
  const offered = options.enabled === false ? [] : (options.codings ?? zlibCodings());
  const codings = PREFERENCE.kept.filter((coding) => offered.includes(coding));
  const { onCompressed } = options;
  const negotiators: Record<CompressionEffort, (acceptEncoding: string | null | undefined) => Coding> = {
    kept: createContentNegotiator(PREFERENCE.kept.filter((coding) => codings.includes(coding))),
    answer: createContentNegotiator(PREFERENCE.answer.filter((coding) => codings.includes(coding))),
  };
  const compressorsOf = (effort: CompressionEffort): Partial<Record<ContentCoding, Compressor>> =>
    Object.fromEntries(codings.map((coding) => [coding, compressorOf(coding, LEVELS[effort][coding])]));
  const compressors: Record<CompressionEffort, Partial<Record<ContentCoding, Compressor>>> = { kept: compressorsOf('kept'), answer: compressorsOf('answer') };
  return {
    codings,
    codingOf: (acceptEncoding, effort) => negotiators[effort](acceptEncoding),
    negotiates: (byteLength, contentType) => codings.length > 0 && byteLength >= MIN_COMPRESSED_BYTES && isCompressibleType(contentType),
    compress(coding, bytes, effort) {
      const compressor = compressors[effort][coding];
      if (compressor === undefined) throw new Error(`content coding ${coding} is not offered`);
      onCompressed?.(coding, effort);
      if (bytes.length <= MAX_SYNC_COMPRESSED_BYTES) return compressor.sync(bytes);
      return new Promise((resolve, reject) => compressor.async(bytes, (error, result) => (error === null ? resolve(result) : reject(error))));
    },
  };
}

/** Every answer in identity (a server behind a proxy that compresses, or a component tested alone). */
export const NO_COMPRESSION: Compression = createCompression({ enabled: false });

/**
 * `headers` with Accept-Encoding added to their Vary, in one field. Not a second `vary` entry: once
 * a header was set with `setHeader` (the request id is), node merges a list given to `writeHead`
 * name by name, and the last `vary` would replace the first (`Vary: Origin` lost).
 */
function withVaryAcceptEncoding(headers: readonly string[]): string[] {
  const fields = [...headers];
  for (let index = 0; index < fields.length; index += 2) {
    if (fields[index]?.toLowerCase() === 'vary') {
      fields[index + 1] = `${fields[index + 1] ?? ''}, Accept-Encoding`;
      return fields;
    }
  }
  fields.push('vary', 'Accept-Encoding');
  return fields;
}

/**
 * Writes an answer made for this request alone: `headers` (a flat [name, value, …] list, without
 * framing) and `bytes`, compressed at the answer effort when the request accepts a coding and the
 * answer is negotiated (`Vary: Accept-Encoding` then, whatever the coding). A HEAD request, and an
 * answer whose compression failed, get the identity bytes.
 */
export function writeNegotiated(
  request: IncomingMessage,
  response: ServerResponse,
  compression: Compression,
  status: number,
  headers: readonly string[],
  bytes: Buffer,
  contentType: string | null | undefined,
): void {
  if (!hasContent(status) || !compression.negotiates(bytes.length, contentType)) {
    response.writeHead(status, [...headers, 'content-length', String(bytes.length)]);
    response.end(bytes);
    return;
  }
  const negotiated = withVaryAcceptEncoding(headers);
  const writeIdentity = (): void => {
    response.writeHead(status, [...negotiated, 'content-length', String(bytes.length)]);
    response.end(bytes);
  };
  const coding = request.method === 'HEAD' ? 'identity' : compression.codingOf(request.headers['accept-encoding'], 'answer');
  if (coding === 'identity') return writeIdentity();
  const writeCompressed = (compressed: Buffer): void => {
    if (compressed.length >= bytes.length) return writeIdentity();
    response.writeHead(status, [...negotiated, 'content-encoding', coding, 'content-length', String(compressed.length)]);
    response.end(compressed);
  };
  let compressed: Buffer | Promise<Buffer>;
  try {
    compressed = compression.compress(coding, bytes, 'answer');
  } catch {
    return writeIdentity();
  }
  if (compressed instanceof Promise) compressed.then(writeCompressed, writeIdentity);
  else writeCompressed(compressed);
}
