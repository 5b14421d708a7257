/**
 * The docs hold together: the README stays a front door, every page starts with what a reader comes
 * for, every relative link and anchor resolves (the pages', the packages' READMEs', and the ones the
 * service's messages print), and every figures table and chart is what `npm run bench:report` writes
 * from bench/results/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReport, staleFiles, fillRegions } from '../../scripts/bench-report/report.js';
import { parseResults } from '../../scripts/bench-report/results.js';
import { anchorsOf, docPages, linksOf, splitFences } from '../support/markdown.js';
import { projectRoot } from '../support/project-copy.js';

const README_MAX_LINES = 300;
const read = (path: string): string => readFileSync(join(projectRoot, path), 'utf8');
const PAGES = docPages();
const LINKED_FROM = [...PAGES, 'packages/client/README.md', 'packages/oauth2/README.md'];

/** Where `target` (relative to `from`) leads, or what is wrong with it. */
function brokenLink(from: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? from : normalize(join(dirname(from), decodeURIComponent(path)));
  if (file.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(join(projectRoot, file))) return `${target}: no file ${file}`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
  return anchorsOf(read(file)).has(anchor) ? undefined : `${target}: no heading of ${file} has the anchor #${anchor}`;
}

/** The top-level folders whose paths the docs name: a path under one of them must exist. */
const REPOSITORY_FOLDERS = ['src', 'test', 'bench', 'scripts', 'examples', 'packages', 'schema', 'openapi', 'generated', 'docs', 'released'];
const REPOSITORY_PATH = new RegExp(`(?:^|[\\s(])((?:${REPOSITORY_FOLDERS.join('|')})/[\\w./@-]*[\\w/])`, 'g');

/** The repository paths a line of prose names in its code spans; a pattern (`*`, `<name>`, `{a,b}`) names none. */
function repositoryPathsIn(line: string): string[] {
  return [...line.matchAll(/`([^`]+)`/g)].flatMap((span) =>
    [...(span[1] ?? '').matchAll(REPOSITORY_PATH)].map((match) => match[1] ?? '').filter((path) => !/[*<>{}]/.test(path)),
  );
}

/** Files the service reads at run time that the repository does not hold (an operator writes them). */
const RUNTIME_FILES = new Set(['members.json', 'membership-token.json']);

/** Every file under `folder` (node_modules, dist and .git left out), by name. */
function fileNamesUnder(folder: string): Set<string> {
  const names = new Set<string>();
  const root = join(projectRoot, folder);
  if (!existsSync(root)) return names;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !/(^|\/)(node_modules|dist|\.git)(\/|$)/.test(relative(root, entry.parentPath))) names.add(entry.name);
  }
  return names;
}

/**
 * The files a layout listing names that do not exist. An entry starts at column 0 with its folder
 * (`src/lib/`) or file (`src/config.ts`); a file named with a slash is a path from the root, a bare
 * name must exist somewhere under its entry's folder.
 */
function filesMissingFromLayout(layout: string): string[] {
  const missing: string[] = [];
  let folder = '.';
  for (const line of layout.split('\n')) {
    if (!line.startsWith(' ')) {
      const first = line.split(/\s+/)[0] ?? '.';
      folder = first.endsWith('/') ? first.slice(0, -1) : dirname(first);
    }
    for (const match of line.matchAll(/(?<![\w/.*-])([\w./-]+\.(?:ts|mjs|json|graphql|yaml|md))\b/g)) {
      const name = match[1] ?? '';
      const found = name.includes('/') ? existsSync(join(projectRoot, name)) : RUNTIME_FILES.has(name) || fileNamesUnder(folder).has(name) || existsSync(join(projectRoot, name));
      if (!found) missing.push(`${folder}: ${name}`);
    }
  }
  return missing;
}

describe('the README', () => {
  it(`is a front door of at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').split('\n').length - 1;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links every page of docs/', () => {
    const linked = new Set(linksOf(read('README.md')).map((link) => link.target.split('#')[0]));
    for (const page of PAGES.filter((path) => path.startsWith('docs/'))) expect(linked, page).toContain(page);
  });
});

describe('each page of docs/', () => {
  it.each(PAGES.filter((path) => path.startsWith('docs/')))('%s starts with its title, then what a reader comes for', (page) => {
    const [title, blank, purpose = ''] = splitFences(read(page)).prose;
    expect(title).toMatch(/^# \S/);
    expect(blank).toBe('');
    expect(purpose).toMatch(/^[A-Z`]/);
  });
});

describe('links', () => {
  it.each(LINKED_FROM)('every relative link and anchor of %s resolves', (page) => {
    const broken = linksOf(read(page))
      .filter((link) => !/^[a-z][a-z+.-]*:/i.test(link.target))
      .map((link) => ({ ...link, problem: brokenLink(page, link.target) }))
      .filter((link) => link.problem !== undefined)
      .map((link) => `${page}:${link.line}: ${link.problem}`);
    expect(broken).toEqual([]);
  });

  it("every page, anchor and heading the service's messages and the code's comments point at exists", () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'scripts', 'bench', 'packages/*/src', '.env.example', '.ci'], { cwd: projectRoot, encoding: 'utf8' })
      .split('\n')
      .filter((file) => file !== '' && existsSync(join(projectRoot, file)));
    // `docs/x.md#anchor`, or `docs/x.md, "The heading"` / `docs/x.md "The heading"` (the start of a heading's text).
    const references = files.flatMap((file) =>
      [...read(file).matchAll(/\b((?:docs\/[\w-]+|README)\.md(?:#[\w-]+)?)(?:,? "([^"\n]+)")?/g)].map((match) => ({ file, target: match[1] ?? '', heading: match[2] })),
    );
    expect(references.map((reference) => reference.target)).toEqual(expect.arrayContaining(['docs/operating.md#setup-for-your-channel', 'docs/sandbox.md#test-credentials']));
    for (const { file, target, heading } of references) {
      expect(brokenLink('README.md', target), `${file}: ${target}`).toBeUndefined();
      if (heading === undefined) continue;
      const headings = splitFences(read(target)).prose.flatMap((line) => /^#{1,6}\s+(.*)$/.exec(line)?.[1] ?? []);
      expect(headings.some((text) => text.startsWith(heading)), `${file}: ${target} has no heading "${heading}"`).toBe(true);
    }
  });

  it.each(LINKED_FROM)('every file and folder of the repository that %s names in a code span exists', (page) => {
    const missing = splitFences(read(page)).prose.flatMap((text, index) =>
      repositoryPathsIn(text)
        .filter((path) => !existsSync(join(projectRoot, path)))
        .map((path) => `${page}:${index + 1}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("every file the layout of docs/development.md names exists, under the folder of its entry", () => {
    const layout = /## Layout\n\n```\n([\s\S]*?)\n```/.exec(read('docs/development.md'))?.[1];
    expect(layout, 'docs/development.md has a Layout section with one code block').toBeDefined();
    expect(filesMissingFromLayout(layout ?? '')).toEqual([]);
  });

  it('finds a broken anchor, a missing file, an anchor in a code block and the paths of code spans', () => {
    expect(brokenLink('docs/operating.md', 'graph.md#no-such-heading')).toMatch(/no heading of docs\/graph\.md/);
    expect(brokenLink('docs/operating.md', 'no-such-page.md')).toMatch(/no file docs\/no-such-page\.md/);
    expect(filesMissingFromLayout('src/lib/          body.ts, gone.ts\n                  etag.ts\nsrc/app.ts        src/cli/gone.ts')).toEqual(['src/lib: gone.ts', 'src: src/cli/gone.ts']);
    expect(repositoryPathsIn('see `src/app.ts`, `bench/<name>/run.ts`, `npx tsx bench/graph/run.ts` (`test/redis/`), src/not-in-code.ts')).toEqual(['src/app.ts', 'bench/graph/run.ts', 'test/redis/']);
    expect(anchorsOf('```sh\n# not a heading\n```\n## A `code` heading (twice)\n## A `code` heading (twice)\n')).toEqual(new Set(['a-code-heading-twice', 'a-code-heading-twice-1']));
  });
});

describe('the figures (npm run bench:report)', () => {
  it('every generated table and chart is what bench/results/ gives', async () => {
    const files = await renderReport(projectRoot);
    expect([...files.keys()]).toEqual(expect.arrayContaining(['docs/benchmarks.md', 'docs/charts/graph-throughput.svg', 'docs/charts/instructions.svg']));
    expect(await staleFiles(projectRoot, files), 'run npm run bench:report').toEqual([]);
  });

  it('puts back a figure edited by hand', async () => {
    const files = await renderReport(projectRoot);
    const page = files.get('docs/benchmarks.md') ?? '';
    // The first figure with a thousands separator in the graph's table, changed.
    const edited = page.replace(/(<!-- bench-report:graph -->[\s\S]*?\| )\d{1,3}(?:,\d{3})+( \|)/, '$1999,999$2');
    expect(edited).not.toBe(page);
    const rendered = new Map([...page.matchAll(/<!-- bench-report:([\w-]+) -->\n([\s\S]*?)\n<!-- \/bench-report -->/g)].map((match) => [match[1] ?? '', match[2] ?? '']));
    expect(fillRegions(edited, 'docs/benchmarks.md', rendered)).toBe(page);
  });

  it('refuses a region it does not know and one that is not closed', () => {
    expect(() => fillRegions('<!-- bench-report:nonsense -->\n<!-- /bench-report -->\n', 'docs/x.md', new Map())).toThrow(/docs\/x\.md: <!-- bench-report:nonsense -->: no such region/);
    expect(() => fillRegions('<!-- bench-report:graph -->\n| a |\n', 'docs/x.md', new Map([['graph', '']]))).toThrow(/not closed/);
  });

  it('names the file and the field a results file lacks', () => {
    const graph = JSON.parse(read('bench/results/graph.json')) as { rows: Array<{ result: Record<string, unknown> }> };
    delete graph.rows[1]?.result.requestsPerSecond;
    expect(() => parseResults('graph', JSON.stringify(graph))).toThrow(/^bench\/results\/graph\.json: rows\.1\.result\.requestsPerSecond: /);
    expect(() => parseResults('events', '{ "name": "events" }')).toThrow(/^bench\/results\/events\.json: measuredAt: /);
  });
});
