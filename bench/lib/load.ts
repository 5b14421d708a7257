/**
 * Drives HTTP load at one URL with autocannon running in its own child process, so the load
 * generator never competes with the server under test for the server's event loop.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const autocannonCli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const sequenceRunner = fileURLToPath(new URL('./autocannon-sequence.mjs', import.meta.url));

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: string;
  /**
   * Bodies sent in turn on every connection, instead of `body` (e.g. one document with varying
   * variables); autocannon's API runs them, in its own process as well.
   */
  bodies?: readonly string[];
  headers?: Record<string, string>;
  /** Concurrent connections (default 10). */
  connections?: number;
  /** Measured seconds (default 10). */
  durationSeconds?: number;
  /** Seconds of unmeasured load first, so JIT and caches are warm (default 2; 0 skips it). */
  warmupSeconds?: number;
  /** HTTP pipelining factor (default 1). */
  pipelining?: number;
  /**
   * Requests per second over all connections (autocannon's overallRate); default: as fast as the
   * server answers. At a fixed rate every server answers the same requests at the same pace, and
   * its CPU time per request is the figure (less noisy than req/s at saturation on 2 cores).
   */
  overallRate?: number;
}

export interface LoadResult {
  /** Mean requests per second over the measured window. */
  requestsPerSecond: number;
  /** Latency percentiles in milliseconds. */
  p50Ms: number;
  p99Ms: number;
  /** Requests completed in the measured window. */
  requests: number;
  /** Bytes received in the measured window, heads and bodies as they came over the wire. */
  bytesRead: number;
  /** Responses outside 2xx, and socket errors/timeouts. */
  non2xx: number;
  errors: number;
}

/** The subset of autocannon's `--json` report that we read. */
interface AutocannonReport {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  throughput: { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

function cliArguments(options: LoadOptions, durationSeconds: number): string[] {
  const args = [
    autocannonCli,
    '--json',
    '--no-progress',
    '--connections', String(options.connections ?? 10),
    '--pipelining', String(options.pipelining ?? 1),
    '--duration', String(durationSeconds),
    '--method', options.method ?? 'GET',
  ];
  if (options.overallRate !== undefined) args.push('--overallRate', String(options.overallRate));
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('--headers', `${name}=${value}`);
  if (options.body !== undefined) args.push('--body', options.body);
  args.push(options.url);
  return args;
}

function sequenceArguments(options: LoadOptions, bodies: readonly string[], durationSeconds: number): string[] {
  const { url, method = 'GET', headers = {}, connections = 10, pipelining = 1, overallRate } = options;
  return [sequenceRunner, JSON.stringify({ url, method, headers, bodies, connections, pipelining, duration: durationSeconds, overallRate })];
}

async function autocannon(options: LoadOptions, durationSeconds: number): Promise<AutocannonReport> {
  const args = options.bodies === undefined ? cliArguments(options, durationSeconds) : sequenceArguments(options, options.bodies, durationSeconds);
  const { stdout } = await run(process.execPath, args, {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as AutocannonReport;
}

/**
 * Runs a warm-up, then the measured load, and returns throughput and latency. Throws when any
 * response was not 2xx or any request failed: a figure for failing requests measures nothing.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const warmup = options.warmupSeconds ?? 2;
  if (warmup > 0) await autocannon(options, warmup);
  const report = await autocannon(options, options.durationSeconds ?? 10);
  const result: LoadResult = {
    requestsPerSecond: report.requests.average,
    p50Ms: report.latency.p50,
    p99Ms: report.latency.p99,
    requests: report.requests.total,
    bytesRead: report.throughput.total,
    non2xx: report.non2xx,
    errors: report.errors + report.timeouts,
  };
  if (result.non2xx > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(
      `load on ${options.method ?? 'GET'} ${options.url} failed: ${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors`,
    );
  }
  return result;
}
