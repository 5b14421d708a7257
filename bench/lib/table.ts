/** Prints benchmark rows as an aligned plain-text table, with ratios against named baseline rows. */
import type { LoadResult } from './load.js';

export interface Row {
  name: string;
  result: LoadResult;
}

/** `value / baseline` rounded to two decimals (throughput: higher is better). */
export function ratio(value: number, baseline: number): number {
  return baseline === 0 ? Number.NaN : Math.round((value / baseline) * 100) / 100;
}

/** Left-aligned first column, right-aligned others; header separated by a dashed line. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * A load table: req/s, p50, p99, then one `× <baseline>` column per baseline row name giving that
 * row's req/s divided by the baseline's.
 */
export function formatLoadTable(rows: readonly Row[], baselines: readonly string[] = []): string {
  const baseRows = baselines.map((name) => {
    const found = rows.find((row) => row.name === name);
    if (!found) throw new Error(`baseline row "${name}" is not among the rows`);
    return found;
  });
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', ...baselines.map((name) => `× ${name}`)];
  const body = rows.map((row) => [
    row.name,
    row.result.requestsPerSecond.toFixed(0),
    row.result.p50Ms.toFixed(1),
    row.result.p99Ms.toFixed(1),
    ...baseRows.map((base) => ratio(row.result.requestsPerSecond, base.result.requestsPerSecond).toFixed(2)),
  ]);
  return formatTable(header, body);
}
