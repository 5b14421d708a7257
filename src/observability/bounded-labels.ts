/**
 * prom-client's children (`metric.labels(labels)`) kept per label set: a caller resolves a label set
 * once and keeps the child, rather than build a label object and a child per observation (each
 * observation through a child is still hashed by prom-client, its public API has no cheaper way).
 *
 * Bounded: at most `maxLabelSets` label sets per metric (default 1,000); later ones share one child
 * whose every label is OVERFLOW_LABEL, so a stream of odd label values cannot grow memory.
 */
import type { LabelValues } from 'prom-client';

/** The label value of the child that collects label sets beyond a metric's `maxLabelSets`. */
export const OVERFLOW_LABEL = '(other)';
const DEFAULT_MAX_LABEL_SETS = 1_000;

type Labels<L extends string> = Readonly<Record<L, string>>;

export interface BoundedLabels<L extends string, Child> {
  /** The child of a label set, made at its first use (its series appear then, as prom-client's do). */
  labels(labels: Labels<L>): Child;
}

/** The children of a prom-client metric (Counter, Histogram, Gauge, Summary), at most `maxLabelSets` of them. */
export function boundedLabels<L extends string, Child>(
  metric: { labels(labels: LabelValues<L>): Child },
  labelNames: readonly L[],
  maxLabelSets = DEFAULT_MAX_LABEL_SETS,
): BoundedLabels<L, Child> {
  const children = new Map<string, Child>();
  let overflow: Child | undefined;
  return {
    labels(labels) {
      const key = JSON.stringify(labelNames.map((name) => labels[name]));
      const known = children.get(key);
      if (known !== undefined) return known;
      if (children.size >= maxLabelSets) {
        return (overflow ??= metric.labels(Object.fromEntries(labelNames.map((name) => [name, OVERFLOW_LABEL])) as LabelValues<L>));
      }
      const child = metric.labels({ ...labels });
      children.set(key, child);
      return child;
    },
  };
}
