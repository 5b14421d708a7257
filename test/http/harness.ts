import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createChannelApp, sandboxUpstream, type ChannelApp } from '../../src/app.js';
import type { ChannelConfig, UpstreamSettings } from '../../src/config.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { OpenApiResponseValidator } from './openapi-validator.js';

/**
 * Integration harness: the real app (createChannelApp) on 127.0.0.1:0 over the real sandbox, and a
 * request helper that validates EVERY response it receives against openapi/channel-api.yaml.
 */
export const silentLogger: Logger = createLogger({ level: 'silent' });

/** A logger at `level` whose lines (parsed) land in `lines`. */
export function captureLogger(level: 'info' | 'debug' = 'info'): { logger: Logger; lines: Array<Record<string, unknown>>; text: () => string } {
  const raw: string[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level,
    destination: {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  return { logger, lines, text: () => raw.join('') };
}

/** One validator for the whole test file, so openapi.test.ts can check which responses were seen. */
export const validator = new OpenApiResponseValidator();

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json<T = unknown>(): T;
}

export async function request(baseUrl: string, method: string, pathAndQuery: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<ApiResponse> {
  const response = await fetch(`${baseUrl}${pathAndQuery}`, { method, headers: init.headers, body: init.body });
  const text = await response.text();
  const path = pathAndQuery.split('?')[0] ?? pathAndQuery;
  const violations = validator.validate({ method, path, status: response.status, headers: response.headers, body: text });
  expect(violations, `response to ${method} ${pathAndQuery} violates openapi/channel-api.yaml`).toEqual([]);
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

export function testConfig(dataDir: string, upstream: UpstreamSettings = { mode: 'sandbox' }, overrides: Partial<ChannelConfig> = {}): ChannelConfig {
  // No history unless a test asks for it: its database is test/history's subject, and each would open one.
  return { port: 0, host: '127.0.0.1', dataDir, refreshIntervalSeconds: 0, upstream, graph: { ...DEFAULT_GRAPH_SETTINGS }, history: false, ...overrides };
}

/** Live-mode settings pointing at a sandbox started by the test (so it can outlive an app instance). */
export function liveUpstream(sandbox: RunningSandbox): UpstreamSettings {
  return { mode: 'live', ...sandboxUpstream(sandbox) };
}

export async function makeDataDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'channel-app-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** The app in sandbox mode with its own temporary DATA_DIR. */
export async function startSandboxApp(sandbox: SandboxOptions = {}, overrides: Partial<ChannelConfig> = {}): Promise<{ app: ChannelApp & { sandbox: RunningSandbox }; dataDir: string; close(): Promise<void> }> {
  const dataDir = await makeDataDir();
  const app = await createChannelApp(testConfig(dataDir.path, { mode: 'sandbox' }, overrides), { logger: silentLogger, sandbox });
  if (app.sandbox === undefined) throw new Error('sandbox mode started no sandbox');
  return {
    app: app as ChannelApp & { sandbox: RunningSandbox },
    dataDir: dataDir.path,
    async close() {
      await app.close();
      await dataDir.remove();
    },
  };
}

/** POSTs a JSON body to one of the sandbox's control endpoints and returns its JSON answer. */
export async function sandboxControl<T = unknown>(sandbox: RunningSandbox, method: 'POST' | 'DELETE' | 'GET', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.url}/__sandbox/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (!response.ok) throw new Error(`sandbox ${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

export type SandboxRequestCounts = Record<'token' | 'campaign' | 'members' | 'sponsorships' | 'channels' | 'dashboard' | 'webhook', number>;

export async function sandboxRequests(sandbox: RunningSandbox): Promise<SandboxRequestCounts> {
  return (await sandboxControl<{ requests: SandboxRequestCounts }>(sandbox, 'GET', 'stats')).requests;
}
