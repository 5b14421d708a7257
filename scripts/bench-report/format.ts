/** How the benchmarks page writes numbers and tables: one way for every figure. */
import type { Stamp } from './results.js';

/** A Markdown table; `align` is `l` or `r` per column. Cells hold Markdown, with `|` escaped. */
export function table(headers: readonly string[], align: string, rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  const rule = `|${[...align].map((side) => (side === 'r' ? '---:' : '---')).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** A whole number with thousands separators: `16,346`. */
export function int(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A rate or a size that may be small: whole above 100, else up to one decimal (`7.3`). */
export function amount(value: number): string {
  return value >= 100 ? int(value) : String(Math.round(value * 10) / 10);
}

/** A ratio: `1.02×`; a ratio the bench could not take (a target left out of the run) is `—`. */
export function times(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}×`;
}

/** An instruction count: `561.5k`, `40.77M`. */
export function instructions(value: number): string {
  return value >= 1e6 ? `${(value / 1e6).toFixed(2)}M` : `${(value / 1e3).toFixed(1)}k`;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

export function kilobytes(bytes: number): string {
  return `${(bytes / 1e3).toFixed(1)} KB`;
}

/** `met` or `**not met**`. */
export function met(holds: boolean): string {
  return holds ? 'met' : '**not met**';
}

/** The middle value (the upper one of an even count, as the benches take it). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('the median of no value');
  return middle;
}

/** When and where a results file was measured: `2026-11-26 12:05 UTC, 2 × AMD EPYC, 24 GB, Node v20.20.2`. */
export function measuredOn(results: Stamp): string {
  const at = new Date(results.measuredAt);
  if (Number.isNaN(at.getTime())) throw new Error(`bench/results/${results.name}.json: measuredAt: not a date: ${results.measuredAt}`);
  const { cpus, cpuModel, memoryGb, node } = results.machine;
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus} × ${cpuModel}, ${memoryGb} GB, Node ${node}`;
}

/** The line that opens every generated region: the run it shows and its file. */
export function provenance(results: Stamp): string {
  return `Measured ${measuredOn(results)} (\`bench/results/${results.name}.json\`).`;
}
