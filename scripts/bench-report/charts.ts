/**
 * The benchmarks page's charts: horizontal bars, one group per scenario, each group on a scale of
 * its own (a 221 KB answer and a cache hit differ by orders of magnitude), written as plain SVG.
 * The chart carries its own opaque background and text colours, switched together under
 * `prefers-color-scheme: dark`, so it reads on a light and on a dark page alike.
 */
import { int, instructions, times } from './format.js';
import { GRAPH_SCENARIOS, INSTRUCTION_SCENARIOS, type ReadResults } from './tables.js';

type BarKind = 'ours' | 'cache' | 'peer' | 'floor';

interface Bar {
  label: string;
  value: number;
  /** Written after the bar. */
  text: string;
  kind: BarKind;
}

interface Group {
  title: string;
  bars: Bar[];
}

const WIDTH = 820;
const LABEL_WIDTH = 250;
const BAR_SPACE = 370;
const BAR_HEIGHT = 16;
const ROW = 22;
const GROUP_TITLE = 28;
const MARGIN = 16;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Markdown code spans in a label become plain text. */
const plain = (markdown: string): string => markdown.replace(/`/g, '').replace(/\*\*/g, '');

function barChart(title: string, subtitle: string, groups: readonly Group[]): string {
  const height = MARGIN * 2 + 44 + groups.reduce((sum, group) => sum + GROUP_TITLE + group.bars.length * ROW, 0) + 24;
  const parts: string[] = [];
  let y = MARGIN + 44;
  for (const group of groups) {
    y += GROUP_TITLE;
    parts.push(`  <text class="text" x="${MARGIN}" y="${y - 8}" font-weight="600">${escape(group.title)}</text>`);
    const largest = Math.max(...group.bars.map((bar) => bar.value));
    for (const bar of group.bars) {
      const width = largest > 0 ? Math.max(1, Math.round((bar.value / largest) * BAR_SPACE)) : 1;
      const x = MARGIN + LABEL_WIDTH;
      parts.push(
        `  <text class="text" x="${x - 8}" y="${y + 12}" text-anchor="end">${escape(bar.label)}</text>`,
        `  <rect class="${bar.kind}" x="${x}" y="${y}" width="${width}" height="${BAR_HEIGHT}" rx="2"/>`,
        `  <text class="muted" x="${x + width + 6}" y="${y + 12}">${escape(bar.text)}</text>`,
      );
      y += ROW;
    }
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="title">`,
    `  <title id="title">${escape(title)}</title>`,
    '  <style>',
    '    text { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 13px; }',
    '    .background { fill: #ffffff; } .text { fill: #1f2328; } .muted { fill: #59636e; }',
    '    .ours { fill: #0969da; } .cache { fill: #54aeff; } .peer { fill: #bf8700; } .floor { fill: #818b98; }',
    '    @media (prefers-color-scheme: dark) {',
    '      .background { fill: #0d1117; } .text { fill: #f0f6fc; } .muted { fill: #9198a1; }',
    '      .ours { fill: #4493f8; } .cache { fill: #80ccff; } .peer { fill: #d29922; } .floor { fill: #9198a1; }',
    '    }',
    '  </style>',
    `  <rect class="background" width="${WIDTH}" height="${height}" rx="6"/>`,
    `  <text class="text" x="${MARGIN}" y="${MARGIN + 14}" font-size="15" font-weight="600">${escape(title)}</text>`,
    `  <text class="muted" x="${MARGIN}" y="${MARGIN + 34}">${escape(subtitle)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

const SHORT_TARGETS: Readonly<Record<string, { label: string; kind: BarKind }>> = {
  ours: { label: 'ours (npm start, cache off)', kind: 'ours' },
  'ours+cache': { label: 'ours (npm start)', kind: 'cache' },
  'yoga+jit': { label: 'yoga + graphql-jit', kind: 'peer' },
  'yoga+jit+cache': { label: 'yoga + jit + response cache', kind: 'peer' },
  'mercurius+jit': { label: 'mercurius + graphql-jit', kind: 'peer' },
  'mercurius+jit+cache': { label: 'mercurius + jit + cache', kind: 'peer' },
  main: { label: 'previous main, cache off', kind: 'floor' },
  'main+cache': { label: 'previous main', kind: 'floor' },
  'floor/rest': { label: 'node:http floor', kind: 'floor' },
};

/** Requests per second under load (graph.json): ours beside the peers, per scenario. */
async function graphThroughput(read: ReadResults): Promise<string> {
  const results = await read('graph');
  const scenarios = [...new Set(results.rows.map((row) => row.scenario))];
  const groups = scenarios.map((scenario): Group => {
    const rows = results.rows.filter((row) => row.scenario === scenario && SHORT_TARGETS[row.target] !== undefined);
    const ours = rows.find((row) => row.target === 'ours' || row.target === 'ours+cache');
    if (ours === undefined) throw new Error(`bench/results/graph.json: rows: no row of ours for ${scenario}`);
    const title = GRAPH_SCENARIOS[scenario];
    if (title === undefined) throw new Error(`bench/results/graph.json: rows[].scenario: "${scenario}" has no label in scripts/bench-report/tables.ts`);
    return {
      title: plain(title),
      bars: rows.map((row) => {
        const { label, kind } = SHORT_TARGETS[row.target] as { label: string; kind: BarKind };
        const rps = row.result.requestsPerSecond;
        return { label, kind, value: rps, text: row === ours ? `${int(rps)} req/s` : `${int(rps)} req/s · ours ${times(ours.result.requestsPerSecond / rps)} this` };
      }),
    };
  });
  return barChart(
    'Requests per second under load (more is better)',
    `bench/graph, ${results.measuredAt.slice(0, 10)}, ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}; each scenario on its own scale`,
    groups,
  );
}

const INSTRUCTION_BARS: ReadonlyArray<[target: string, label: string, kind: BarKind]> = [
  ['observed', 'ours (npm start)', 'ours'],
  ['yoga+jit', 'yoga + graphql-jit', 'peer'],
  ['yoga+jit+cache', 'yoga + jit + response cache', 'peer'],
  ['mercurius+jit', 'mercurius + graphql-jit', 'peer'],
  ['floor', 'node:http floor', 'floor'],
  ['floor/headers', 'floor with the same headers', 'floor'],
];

/** Instructions per request on the main thread (instructions.json): ours beside mercurius+jit and the floors. */
async function instructionCounts(read: ReadResults): Promise<string> {
  const results = await read('instructions');
  const groups = results.rows
    .filter((row) => row.threads === 'main' && INSTRUCTION_BARS.some(([target]) => target !== 'observed' && row.targets[target] !== undefined))
    .map((row): Group => {
      const title = INSTRUCTION_SCENARIOS[row.scenario];
      if (title === undefined) throw new Error(`bench/results/instructions.json: rows[].scenario: "${row.scenario}" has no label in scripts/bench-report/tables.ts`);
      const ours = row.targets['observed']?.lowest;
      if (ours === undefined) throw new Error(`bench/results/instructions.json: rows: no "observed" count for ${row.scenario}`);
      return {
        title: plain(title),
        bars: INSTRUCTION_BARS.flatMap(([target, label, kind]): Bar[] => {
          const count = row.targets[target]?.lowest;
          if (count === undefined) return [];
          return [{ label, kind, value: count, text: target === 'observed' ? instructions(count) : `${instructions(count)} · ${times(count / ours)} ours` }];
        }),
      };
    });
  return barChart(
    'Instructions per request, main thread (fewer is better)',
    `bench/instructions (callgrind), ${results.measuredAt.slice(0, 10)}, Node ${results.machine.node}; lowest of ${results.rounds} process(es); each scenario on its own scale`,
    groups,
  );
}

/** Every chart, by its path from the repository's root. */
export const CHARTS: Readonly<Record<string, (read: ReadResults) => Promise<string>>> = {
  'docs/charts/graph-throughput.svg': graphThroughput,
  'docs/charts/instructions.svg': instructionCounts,
};
