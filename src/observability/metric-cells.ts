/**
 * Counters and histograms for the request path, where prom-client's own `inc(labels)` and
 * `observe(labels, value)` cost too much: each call validates the label object, hashes it into a
 * string and allocates a closure (~0.3–0.4 µs each in isolation, and several times that inside a
 * loaded server, measured in bench/graph). Here a label set is resolved once to its **cell**
 * (`cell(labels)`), a caller keeps the cell, and each observation is a few field updates.
 *
 * The families are registered in a prom-client Registry like any other metric: `get()` gives the
 * same values prom-client's Counter and Histogram give (`_bucket` with cumulative counts and `le`,
 * `_sum`, `_count`), so `/metrics` and `getMetricsAsJSON()` read them unchanged.
 *
 * Bounded: at most `maxCells` label sets per family (default 1,000); later ones share one overflow
 * cell whose every label is OVERFLOW_LABEL, so a stream of odd label values cannot grow memory.
 */
import type { Metric, Registry } from 'prom-client';

/** The label value of the cell that collects label sets beyond a family's `maxCells`. */
export const OVERFLOW_LABEL = '(other)';
const DEFAULT_MAX_CELLS = 1_000;

type Labels<L extends string> = Readonly<Record<L, string>>;

interface FamilyOptions<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: readonly Registry[];
  maxCells?: number;
}

/** What a prom-client Registry reads of a metric (its public classes carry more, none of it used by a registry). */
interface RegistryValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

abstract class CellFamily<L extends string, C> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  readonly #labelNames: readonly L[];
  readonly #maxCells: number;
  readonly #cells = new Map<string, { labels: Labels<L>; cell: C }>();
  #overflow: C | undefined;

  constructor(options: FamilyOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.#labelNames = options.labelNames;
    this.#maxCells = options.maxCells ?? DEFAULT_MAX_CELLS;
    // The registry only reads name, type, help, get() and reset() (see RegistryValue): the cast
    // stands for prom-client's union of its own metric classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract newCell(): C;
  protected abstract valuesOf(labels: Labels<L>, cell: C): RegistryValue[];
  protected abstract zero(cell: C): void;

  /** The cell of a label set: look it up once, then count into it. */
  cell(labels: Labels<L>): C {
    const key = this.#labelNames.map((name) => labels[name]).join('\u0000');
    const known = this.#cells.get(key);
    if (known !== undefined) return known.cell;
    if (this.#cells.size >= this.#maxCells) return (this.#overflow ??= this.add(Object.fromEntries(this.#labelNames.map((name) => [name, OVERFLOW_LABEL])) as Labels<L>, OVERFLOW_LABEL));
    return this.add(labels, key);
  }

  private add(labels: Labels<L>, key: string): C {
    const cell = this.newCell();
    this.#cells.set(key, { labels: { ...labels }, cell });
    return cell;
  }

  /** As prom-client's `get()`: the values a registry formats. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: RegistryValue[] }> {
    const values: RegistryValue[] = [];
    for (const { labels, cell } of this.#cells.values()) values.push(...this.valuesOf(labels, cell));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** Zeroes every cell (`registry.resetMetrics()`); callers keep the cells they hold. */
  reset(): void {
    for (const { cell } of this.#cells.values()) this.zero(cell);
  }
}

export class CounterCell {
  value = 0;
  inc(): void {
    this.value += 1;
  }
}

/** A counter family (`<name>` per label set). */
export class CellCounter<L extends string> extends CellFamily<L, CounterCell> {
  readonly type = 'counter';
  protected newCell(): CounterCell {
    return new CounterCell();
  }
  protected valuesOf(labels: Labels<L>, cell: CounterCell): RegistryValue[] {
    return [{ labels, value: cell.value }];
  }
  protected zero(cell: CounterCell): void {
    cell.value = 0;
  }
}

export class HistogramCell {
  sum = 0;
  count = 0;
  /** Observations per bucket (not cumulative); the last one is above every bound (+Inf). */
  readonly counts: Float64Array;
  readonly #bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    const bounds = this.#bounds;
    let index = 0;
    while (index < bounds.length && value > (bounds[index] as number)) index += 1;
    this.counts[index] = (this.counts[index] as number) + 1;
  }
}

/** A histogram family (`<name>_bucket` with `le`, `<name>_sum`, `<name>_count` per label set). */
export class CellHistogram<L extends string> extends CellFamily<L, HistogramCell> {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];

  constructor(options: FamilyOptions<L> & { buckets: readonly number[] }) {
    super(options);
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
  }

  protected newCell(): HistogramCell {
    return new HistogramCell(this.#bounds);
  }

  protected valuesOf(labels: Labels<L>, cell: HistogramCell): RegistryValue[] {
    const values: RegistryValue[] = [];
    let cumulative = 0;
    this.#bounds.forEach((bound, index) => {
      cumulative += cell.counts[index] as number;
      values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
    });
    values.push({ labels: { le: '+Inf', ...labels }, value: cell.count, metricName: `${this.name}_bucket` });
    values.push({ labels, value: cell.sum, metricName: `${this.name}_sum` });
    values.push({ labels, value: cell.count, metricName: `${this.name}_count` });
    return values;
  }

  protected zero(cell: HistogramCell): void {
    cell.sum = 0;
    cell.count = 0;
    cell.counts.fill(0);
  }
}
