/**
 * Children kept per label set (bounded-labels.ts): observations through them give the registry the
 * text prom-client gives for the same observations made with their labels (each label set its own
 * child), the label sets stay bounded, and a registry reset zeroes the series while the holders of
 * children keep counting into them.
 */
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { boundedLabels, OVERFLOW_LABEL } from '../../src/observability/bounded-labels.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
// 'a' with 'b,c' and 'a,b' with 'c' (any separator in the values): two label sets, never one.
const labelSets = fc.record({ route: fc.constantFrom('/graphql', '/healthz', '/membership/pledges', 'a', 'a,b', 'a\u0000b'), status: fc.constantFrom('200', '304', '400', '503', 'c', 'b,c', 'b\u0000c') });
const observations = fc.array(fc.tuple(labelSets, fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(...BUCKETS))), { maxLength: 200 });

describe('children kept per label set', () => {
  it("give the registry the same text as prom-client's Histogram and Counter observed with labels (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(observations, async (seen) => {
        const ours = new Registry();
        const theirs = new Registry();
        const labelNames = ['route', 'status'] as const;
        const histogram = boundedLabels(new Histogram({ name: 'd_seconds', help: 'durations', labelNames, buckets: BUCKETS, registers: [ours] }), labelNames);
        const counter = boundedLabels(new Counter({ name: 'n_total', help: 'count', labelNames, registers: [ours] }), labelNames);
        const reference = new Histogram({ name: 'd_seconds', help: 'durations', labelNames, buckets: BUCKETS, registers: [theirs] });
        const referenceCounter = new Counter({ name: 'n_total', help: 'count', labelNames, registers: [theirs] });
        for (const [labels, value] of seen) {
          histogram.labels(labels).observe(value);
          counter.labels(labels).inc();
          reference.observe(labels, value);
          referenceCounter.inc(labels);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
      { numRuns: 100 },
    );
  });

  it('keep at most maxLabelSets label sets; later ones are counted under the overflow label', async () => {
    const registry = new Registry();
    const counter = boundedLabels(new Counter({ name: 'n_total', help: 'count', labelNames: ['route'], registers: [registry] }), ['route'], 2);
    for (const route of ['/a', '/b', '/c', '/d', '/a']) counter.labels({ route }).inc();
    const text = await registry.metrics();
    expect(text).toContain('n_total{route="/a"} 2');
    expect(text).toContain('n_total{route="/b"} 1');
    expect(text).toContain(`n_total{route="${OVERFLOW_LABEL}"} 2`);
    expect(text).not.toContain('/c');
  });

  it('are zeroed by resetMetrics, and a child held before counts on', async () => {
    const registry = new Registry();
    const histogram = boundedLabels(new Histogram({ name: 'd_seconds', help: 'durations', labelNames: ['route'], buckets: BUCKETS, registers: [registry] }), ['route']);
    const child = histogram.labels({ route: '/graphql' });
    child.observe(0.5);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('d_seconds_count{route="/graphql"}');
    child.observe(0.005);
    const text = await registry.metrics();
    expect(text).toContain('d_seconds_count{route="/graphql"} 1');
    expect(text).toContain('d_seconds_bucket{le="0.01",route="/graphql"} 1');
    expect(text).toContain('d_seconds_bucket{le="0.001",route="/graphql"} 0');
  });
});
