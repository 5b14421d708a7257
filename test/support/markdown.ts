/**
 * What the docs tests read in Markdown: fenced code blocks with their info string, links, and the
 * anchors GitHub gives headings.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-copy.js';

/** README.md and every page of docs/, from the repository's root. */
export function docPages(): string[] {
  const docs = readdirSync(join(projectRoot, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

export interface CodeBlock {
  /** The info string after the opening fence: `ts`, `ts fragment`, `sh runnable`. */
  info: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a Markdown text, and its lines outside them (blank in their place). */
export function splitFences(markdown: string): { blocks: CodeBlock[]; prose: string[] } {
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fence = /^(`{3,}|~{3,})\s*(.*)$/.exec(text);
    if (open === undefined && fence !== null) {
      open = { fence: fence[1] ?? '```', info: (fence[2] ?? '').trim(), line: index + 1, lines: [] };
      prose.push('');
    } else if (open !== undefined && fence !== null && (fence[1] ?? '').startsWith(open.fence) && fence[2] === '') {
      blocks.push({ info: open.info, code: open.lines.join('\n'), line: open.line });
      open = undefined;
      prose.push('');
    } else if (open !== undefined) {
      open.lines.push(text);
      prose.push('');
    } else {
      prose.push(text);
    }
  });
  if (open !== undefined) throw new Error(`a code block opened on line ${open.line} is not closed`);
  return { blocks, prose };
}

/** GitHub's anchor of a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a Markdown text's headings (outside code blocks), a repeated one numbered as GitHub numbers it. */
export function anchorsOf(markdown: string): Set<string> {
  const counts = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of splitFences(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const seen = counts.get(slug) ?? 0;
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
    counts.set(slug, seen + 1);
  }
  return anchors;
}

export interface Link {
  target: string;
  line: number;
}

/** The links and images of a Markdown text's prose (not inside code blocks or code spans). */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  splitFences(markdown).prose.forEach((text, index) => {
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const match of outsideCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: match[1] ?? '', line: index + 1 });
  });
  return links;
}
