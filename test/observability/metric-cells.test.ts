/**
 * The metric cells (metric-cells.ts) expose exactly what prom-client's Counter and Histogram expose
 * for the same observations (the /metrics text, compared as a whole), stay bounded in label sets,
 * and are zeroed by a registry reset while their holders keep counting into them.
 */
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CellCounter, CellHistogram, OVERFLOW_LABEL } from '../../src/observability/metric-cells.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
const labelSets = fc.record({ route: fc.constantFrom('/graphql', '/healthz', '/membership/pledges'), status: fc.constantFrom('200', '304', '400', '503') });
const observations = fc.array(fc.tuple(labelSets, fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(...BUCKETS))), { maxLength: 200 });

const withoutExemplars = (metrics: unknown): unknown => JSON.parse(JSON.stringify(metrics, (key, value: unknown) => (key === 'exemplar' ? undefined : value)));

describe('metric cells', () => {
  it("give the registry the same text as prom-client's Histogram and Counter (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(observations, async (seen) => {
        const ours = new Registry();
        const theirs = new Registry();
        const histogram = new CellHistogram({ name: 'd_seconds', help: 'durations', labelNames: ['route', 'status'], buckets: BUCKETS, registers: [ours] });
        const counter = new CellCounter({ name: 'n_total', help: 'count', labelNames: ['route', 'status'], registers: [ours] });
        const reference = new Histogram({ name: 'd_seconds', help: 'durations', labelNames: ['route', 'status'], buckets: BUCKETS, registers: [theirs] });
        const referenceCounter = new Counter({ name: 'n_total', help: 'count', labelNames: ['route', 'status'], registers: [theirs] });
        for (const [labels, value] of seen) {
          histogram.cell(labels).observe(value);
          counter.cell(labels).inc();
          reference.observe(labels, value);
          referenceCounter.inc(labels);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
        // As JSON too, but for prom-client's exemplar slot (always null without exemplars).
        expect(await ours.getMetricsAsJSON()).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
      }),
      { numRuns: 100 },
    );
  });

  it('keep at most maxCells label sets; later ones are counted under the overflow label', async () => {
    const registry = new Registry();
    const counter = new CellCounter({ name: 'n_total', help: 'count', labelNames: ['route'], registers: [registry], maxCells: 2 });
    for (const route of ['/a', '/b', '/c', '/d', '/a']) counter.cell({ route }).inc();
    const text = await registry.metrics();
    expect(text).toContain('n_total{route="/a"} 2');
    expect(text).toContain('n_total{route="/b"} 1');
    expect(text).toContain(`n_total{route="${OVERFLOW_LABEL}"} 2`);
    expect(text).not.toContain('/c');
  });

  it('are zeroed by resetMetrics, and a cell held before counts on', async () => {
    const registry = new Registry();
    const histogram = new CellHistogram({ name: 'd_seconds', help: 'durations', labelNames: ['route'], buckets: BUCKETS, registers: [registry] });
    const cell = histogram.cell({ route: '/graphql' });
    cell.observe(0.5);
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('d_seconds_count{route="/graphql"} 0');
    cell.observe(0.005);
    const text = await registry.metrics();
    expect(text).toContain('d_seconds_count{route="/graphql"} 1');
    expect(text).toContain('d_seconds_bucket{le="0.01",route="/graphql"} 1');
    expect(text).toContain('d_seconds_bucket{le="0.001",route="/graphql"} 0');
  });
});
