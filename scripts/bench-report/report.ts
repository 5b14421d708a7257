/**
 * The report as a whole: the pages' generated regions and the charts, computed from the results
 * files, and compared with (or written over) what is on disk.
 *
 * A region is `<!-- bench-report:<name> -->`, a newline, whatever is generated, a newline and
 * `<!-- /bench-report -->`, in README.md or a page of docs/. Each region of REGIONS appears exactly
 * once across the pages (one figure, one place), and a page names no region that does not exist.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHARTS } from './charts.js';
import { readResults, type Results, type ResultsName } from './results.js';
import { REGIONS, type ReadResults } from './tables.js';

const REGION = /<!-- bench-report:([\w-]+) -->\n[\s\S]*?<!-- \/bench-report -->/g;
const OPENING = /<!-- bench-report:([\w-]+) -->/g;

/** The pages that may hold regions: README.md and docs/*.md. */
export async function pagePaths(root: string): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** `page` with every region's content replaced by what `render` gives for its name. */
export function fillRegions(page: string, file: string, rendered: ReadonlyMap<string, string>): string {
  const openings = [...page.matchAll(OPENING)].length;
  const filled = page.replace(REGION, (_whole, name: string) => {
    const content = rendered.get(name);
    if (content === undefined) throw new Error(`${file}: <!-- bench-report:${name} -->: no such region (known: ${Object.keys(REGIONS).join(', ')})`);
    return `<!-- bench-report:${name} -->\n${content}\n<!-- /bench-report -->`;
  });
  const closed = [...page.matchAll(REGION)].length;
  if (closed !== openings) throw new Error(`${file}: a <!-- bench-report:… --> region is not closed by <!-- /bench-report --> on a line of its own`);
  return filled;
}

/** Every file the report writes, with its text: the pages that hold regions, and the charts. */
export async function renderReport(root: string, read: ReadResults = cachedReader(root)): Promise<Map<string, string>> {
  const rendered = new Map<string, string>();
  for (const [name, render] of Object.entries(REGIONS)) rendered.set(name, await render(read));
  const files = new Map<string, string>();
  const placed = new Map<string, string>();
  for (const path of await pagePaths(root)) {
    const page = await readFile(join(root, path), 'utf8');
    for (const [, name = ''] of page.matchAll(OPENING)) {
      const other = placed.get(name);
      if (other !== undefined) throw new Error(`${path}: <!-- bench-report:${name} -->: already in ${other} (a figure has one place)`);
      placed.set(name, path);
    }
    if ([...page.matchAll(OPENING)].length > 0) files.set(path, fillRegions(page, path, rendered));
  }
  const missing = Object.keys(REGIONS).filter((name) => !placed.has(name));
  if (missing.length > 0) throw new Error(`no page holds <!-- bench-report:${missing.join(' -->, <!-- bench-report:')} -->: every results file is shown somewhere`);
  for (const [path, render] of Object.entries(CHARTS)) files.set(path, await render(read));
  return files;
}

/** Reads each results file once. */
export function cachedReader(root: string): ReadResults {
  const cache = new Map<ResultsName, Promise<unknown>>();
  return <N extends ResultsName>(name: N): Promise<Results<N>> => {
    if (!cache.has(name)) cache.set(name, readResults(root, name));
    return cache.get(name) as Promise<Results<N>>;
  };
}

/** The files whose text on disk differs from the report's (a missing file differs). */
export async function staleFiles(root: string, files: ReadonlyMap<string, string>): Promise<string[]> {
  const stale: string[] = [];
  for (const [path, text] of files) {
    const current = await readFile(join(root, path), 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
    if (current !== text) stale.push(path);
  }
  return stale;
}
