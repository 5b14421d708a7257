import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createChannelApp } from '../../src/app.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, sandboxControl, silentLogger, testConfig } from '../http/harness.js';

/** What a user does to export spans (an OTLP exporter in production, the in-memory one here). */
const exporter = new InMemorySpanExporter();
let sandbox: RunningSandbox;
beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  sandbox = await startSandbox();
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await sandbox.close();
});

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('OpenTelemetry spans, with an SDK registered', () => {
  it('request → GraphQL execution → the upstream fetch a cold read starts, one trace', async () => {
    // The stats source has no snapshot (its upstream failed at start), so the query's read fetches it.
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', status: 500 });
    const dataDir = await makeDataDir();
    const config = testConfig(dataDir.path, liveUpstream(sandbox));
    const app = await createChannelApp({ ...config, graph: { ...config.graph, responseCache: false } }, { logger: silentLogger });
    try {
      await vi.waitFor(() => expect(app.store.health().stats.lastError).not.toBeNull(), { timeout: 10_000 });
      await sandboxControl(sandbox, 'DELETE', 'faults');
      exporter.reset();

      const response = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'traced-1' },
        body: JSON.stringify({ query: 'query Subscribers { stats { subscribers } }' }),
      });
      expect(((await response.json()) as { data: { stats: { subscribers: number } } }).data.stats.subscribers).toBeGreaterThan(0);

      await vi.waitFor(() => expect(exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER)).toBe(true));
      const spans = exporter.getFinishedSpans();
      const request = spans.find((span) => span.name === 'POST /graphql');
      const execution = spans.find((span) => span.name === 'graphql.query Subscribers');
      const upstream = spans.find((span) => span.name === 'upstream stats');
      expect(request?.kind).toBe(SpanKind.SERVER);
      expect(request?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/graphql', 'http.response.status_code': 200, 'channel.request_id': 'traced-1' });
      expect(execution?.attributes).toMatchObject({ 'graphql.operation.name': 'Subscribers', 'graphql.operation.type': 'query' });
      expect(upstream?.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(request as ReadableSpan)).toBeUndefined();
      expect(parentOf(execution as ReadableSpan)).toBe(request?.spanContext().spanId);
      expect(parentOf(upstream as ReadableSpan)).toBe(execution?.spanContext().spanId);
      expect(new Set([request, execution, upstream].map((span) => span?.spanContext().traceId)).size).toBe(1);
    } finally {
      await app.close();
      await dataDir.remove();
    }
  });

  it('a failed upstream fetch ends its span with an error status', async () => {
    await sandboxControl(sandbox, 'POST', 'faults', { target: 'video', status: 503 });
    const dataDir = await makeDataDir();
    const app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox)), { logger: silentLogger });
    try {
      exporter.reset();
      await expect(app.store.refresh('video')).rejects.toThrow();
      const failed = exporter.getFinishedSpans().find((span) => span.name === 'upstream video');
      expect(failed?.status).toMatchObject({ code: 2, message: expect.stringContaining('503') });
    } finally {
      await sandboxControl(sandbox, 'DELETE', 'faults');
      await app.close();
      await dataDir.remove();
    }
  });
});
