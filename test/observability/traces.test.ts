import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
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

/** A caller's trace: W3C Trace Context (https://www.w3.org/TR/trace-context/) headers. */
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const callerHeaders = { traceparent: `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`, tracestate: 'caller=t61rcWkgMzE,other=1' };

describe("the caller's trace (W3C traceparent and tracestate)", () => {
  it('is continued when a propagator is registered: the request span is the caller span’s child, its execution in the same trace', async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const dataDir = await makeDataDir();
    const config = testConfig(dataDir.path, liveUpstream(sandbox));
    const app = await createChannelApp({ ...config, graph: { ...config.graph, responseCache: false } }, { logger: silentLogger });
    try {
      await Promise.all((['membership', 'video', 'stats'] as const).map((source) => app.store.read(source)));
      exporter.reset();
      const answer = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...callerHeaders },
        body: JSON.stringify({ query: 'query Subscribers { stats { subscribers } }' }),
      });
      expect(answer.status).toBe(200);
      expect((await fetch(`${app.url}/video/stats`, { headers: callerHeaders })).status).toBe(200);

      await vi.waitFor(() => expect(exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER)).toHaveLength(2));
      const spans = exporter.getFinishedSpans();
      const graphRequest = spans.find((span) => span.name === 'POST /graphql') as ReadableSpan;
      const execution = spans.find((span) => span.name === 'graphql.query Subscribers') as ReadableSpan;
      const restRequest = spans.find((span) => span.name === 'GET /video/stats') as ReadableSpan;
      for (const request of [graphRequest, restRequest]) {
        expect(request.spanContext().traceId).toBe(CALLER_TRACE_ID);
        expect(parentOf(request)).toBe(CALLER_SPAN_ID);
        expect(request.parentSpanContext?.isRemote).toBe(true);
        // tracestate travels on with the trace (W3C Trace Context §3.3).
        expect(request.spanContext().traceState?.serialize()).toBe(callerHeaders.tracestate);
      }
      expect(execution.spanContext().traceId).toBe(CALLER_TRACE_ID);
      expect(parentOf(execution)).toBe(graphRequest.spanContext().spanId);
    } finally {
      propagation.disable();
      await app.close();
      await dataDir.remove();
    }
  });

  it('is not read without a registered propagator: the request starts a trace of its own (the API’s default propagator is a no-op)', async () => {
    const dataDir = await makeDataDir();
    const app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox)), { logger: silentLogger });
    try {
      await app.store.read('stats');
      exporter.reset();
      expect((await fetch(`${app.url}/video/stats`, { headers: callerHeaders })).status).toBe(200);
      await vi.waitFor(() => expect(exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER)).toBe(true));
      const request = exporter.getFinishedSpans().find((span) => span.name === 'GET /video/stats') as ReadableSpan;
      expect(parentOf(request)).toBeUndefined();
      expect(request.spanContext().traceId).not.toBe(CALLER_TRACE_ID);
    } finally {
      await app.close();
      await dataDir.remove();
    }
  });
});
