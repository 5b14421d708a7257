import { expect } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import type { ChannelConfig } from '../../src/config.js';
import type { GraphSettings } from '../../src/graphql/graph-settings.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, silentLogger, startSandboxApp, testConfig } from '../http/harness.js';

/**
 * The whole app (createChannelApp) for the graph's tests: in sandbox mode, or in live mode against a
 * sandbox the test started itself (so faults can be set before the app's first upstream fetch).
 */
export interface GraphResponse {
  status: number;
  headers: Headers;
  // Untyped JSON off the wire: asserting on it is what the tests do (see listOf for arrays).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: { data?: Record<string, any> | null; errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, any> }> };
}

export async function postGraph(
  baseUrl: string,
  payload: { query?: string; variables?: Record<string, unknown>; documentId?: string; extensions?: Record<string, unknown>; operationName?: string },
  headers: Record<string, string> = {},
): Promise<GraphResponse> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
  const text = await response.text();
  // A 304 (response cache revalidation) has no body.
  return { status: response.status, headers: response.headers, body: (text === '' ? {} : JSON.parse(text)) as GraphResponse['body'] };
}

/** Asserts that a value off the wire is an array and types its items. */
export function listOf<T>(value: unknown): T[] {
  expect(Array.isArray(value), `expected a list, got ${JSON.stringify(value)}`).toBe(true);
  return value as T[];
}

/** Runs a query and returns the response body. */
export async function query(baseUrl: string, text: string, variables?: Record<string, unknown>): Promise<GraphResponse['body']> {
  return (await postGraph(baseUrl, { query: text, ...(variables && { variables }) })).body;
}

/** Waits until every source has a snapshot, so that no background refresh lands mid-test. */
export async function untilFetched(app: ChannelApp): Promise<void> {
  await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.read(source)));
}

export async function startGraphApp(graph: Partial<GraphSettings> = {}, sandbox: SandboxOptions = {}, overrides: Partial<ChannelConfig> = {}) {
  const started = await startSandboxApp(sandbox, { graph: { ...testConfig('').graph, ...graph }, ...overrides });
  await untilFetched(started.app);
  return started;
}

/** The app in live mode against `sandbox` (started by the test, faults possibly already set). */
export async function startLiveApp(sandbox: RunningSandbox, graph: Partial<GraphSettings> = {}): Promise<{ app: ChannelApp; close(): Promise<void> }> {
  const dataDir = await makeDataDir();
  const config = testConfig(dataDir.path, liveUpstream(sandbox));
  const app = await createChannelApp({ ...config, graph: { ...config.graph, ...graph } }, { logger: silentLogger });
  return {
    app,
    async close() {
      await app.close();
      await dataDir.remove();
    },
  };
}
