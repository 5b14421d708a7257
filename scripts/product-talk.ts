/**
 * What `scripts/check-product-talk.ts` (part of `npm run lint`) refuses in the repository's text:
 * talk of how the product was developed instead of what it is. The code, its comments, test names,
 * the docs and the READMEs say what the product does and why; a tracker, the working sessions that
 * built it and its commits are not part of the repository.
 *
 * - `stop <n>`, `issue <n>`, `session <n>` (any case, plural too), anywhere in a file: in prose, in
 *   comments and in strings (a test's name is a string);
 * - a `§<n>` tied to an issue (a section "of the issue", "the issue's" section); a section of a
 *   specification (`RFC 9110 §12.5.3`, `OIDC Core §9`, or `§4.1.3` in a file about RFC 6749) is not;
 * - a commit hash in prose: 7 to 40 hexadecimal digits with at least one digit and one letter, as a
 *   word of its own, in Markdown outside fenced code blocks and in code comments. Code and data are
 *   not read for it: identifiers, digests and ids hold such words (`sha256:07ab…`, a UUID, a
 *   lockfile's integrity), and a hash joined to a longer word by `-`, `:`, `.`, `/` or `@` is one.
 */
import ts from 'typescript';

export type ProductTalkRule = 'stop' | 'issue' | 'session' | 'section' | 'commit';

export interface ProductTalkFinding {
  file: string;
  /** 1-based. */
  line: number;
  rule: ProductTalkRule;
  /** The words found. */
  text: string;
}

/** The rules read in a file's whole text. */
const WORDS: ReadonlyArray<{ rule: ProductTalkRule; pattern: RegExp }> = [
  { rule: 'stop', pattern: /\bstops? #?\d+/gi },
  { rule: 'issue', pattern: /\bissues? #?\d+/gi },
  { rule: 'session', pattern: /\bsessions? #?\d+/gi },
];
const SECTION = /§\s?\d+(?:\.\d+)*/g;
/** How far around a `§` an issue is looked for: the clause it is in. */
const SECTION_CONTEXT_BEFORE = 60;
const SECTION_CONTEXT_AFTER = 30;
/** An issue as a thing referred to ("the issue's", "issue" and a number), not the verb ("MAY issue a new one"). */
const ISSUE_WORD = /\b(?:the|this|that|an|its|our)\s+issue(?:'s)?\b|\bissue(?:'s)?\s+#?\d|\btracker\b/i;
/** A hex word of its own: not part of an identifier, a digest, a UUID, a path or a URL. */
const HEX_WORD = /(?<![\w\-:./@#])[0-9a-f]{7,40}(?![\w\-:./@])/g;

/** Where a file's prose is, for the commit-hash rule. */
type ProseKind = 'markdown' | 'script' | 'hash-comments' | 'markup' | 'none';

function proseKindOf(path: string): ProseKind {
  if (/\.md$/i.test(path)) return 'markdown';
  if (/\.(?:[cm]?[jt]s|tsx)$/.test(path) && !path.endsWith('.d.ts.txt')) return 'script';
  if (/\.(?:ya?ml|graphql|sh)$/.test(path) || /(?:^|\/)(?:\.gitignore|\.env\.example|run)$/.test(path)) return 'hash-comments';
  if (/\.(?:html|css)$/.test(path)) return 'markup';
  return 'none';
}

/** Spans of `text` (start offsets kept) that are prose for the commit-hash rule. */
export function proseSpans(path: string, text: string): Array<{ start: number; text: string }> {
  switch (proseKindOf(path)) {
    case 'markdown':
      return markdownProse(text);
    case 'script':
      return scriptComments(path, text);
    case 'hash-comments':
      return [...text.matchAll(/(?:^|[ \t])#(.*)$/gm)].map((match) => ({ start: (match.index ?? 0) + match[0].length - (match[1] ?? '').length, text: match[1] ?? '' }));
    case 'markup':
      return [...text.matchAll(/<!--([\s\S]*?)-->|\/\*([\s\S]*?)\*\//g)].map((match) => ({ start: match.index ?? 0, text: match[0] }));
    case 'none':
      return [];
  }
}

/** Everything outside fenced code blocks (inline code is prose: a hash quoted in a sentence is still one). */
function markdownProse(text: string): Array<{ start: number; text: string }> {
  const spans: Array<{ start: number; text: string }> = [];
  let offset = 0;
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && marker !== undefined && marker.startsWith(fence) && /^\s*[`~]+\s*$/.test(line)) fence = undefined;
    else if (fence === undefined) spans.push({ start: offset, text: line });
    offset += line.length + 1;
  }
  return spans;
}

/** The comments of a JavaScript or TypeScript file, found by TypeScript's own parser. */
function scriptComments(path: string, text: string): Array<{ start: number; text: string }> {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, /\.[cm]?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const seen = new Map<number, string>();
  const collect = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const range of ranges ?? []) seen.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen].map(([start, comment]) => ({ start, text: comment }));
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** Every finding in one file's text. */
export function findProductTalk(file: string, text: string): ProductTalkFinding[] {
  const findings: ProductTalkFinding[] = [];
  const found = (rule: ProductTalkRule, offset: number, words: string): void => {
    findings.push({ file, line: lineOf(text, offset), rule, text: words });
  };
  for (const { rule, pattern } of WORDS) for (const match of text.matchAll(pattern)) found(rule, match.index ?? 0, match[0]);
  for (const match of text.matchAll(SECTION)) {
    const at = match.index ?? 0;
    const around = text.slice(Math.max(0, at - SECTION_CONTEXT_BEFORE), at + match[0].length + SECTION_CONTEXT_AFTER);
    if (ISSUE_WORD.test(around)) found('section', at, match[0]);
  }
  for (const span of proseSpans(file, text)) {
    for (const match of span.text.matchAll(HEX_WORD)) {
      if (/\d/.test(match[0]) && /[a-f]/.test(match[0])) found('commit', span.start + (match.index ?? 0), match[0]);
    }
  }
  return findings.sort((a, b) => a.line - b.line);
}

/** Files that hold no text to read (images, archives). */
export function isTextPath(path: string): boolean {
  return !/\.(?:png|jpe?g|gif|ico|webp|woff2?|ttf|gz|br|zst|tgz|zip|pdf)$/i.test(path);
}
