/**
 * The checker behind `npm run lint`'s product-talk step (scripts/product-talk.ts): what it refuses
 * and what it lets through. The numbers of the refused phrases are interpolated, so that this file's
 * own text does not hold them.
 */
import { describe, expect, it } from 'vitest';
import { findProductTalk, isTextPath, type ProductTalkRule } from '../../scripts/product-talk.js';

const rulesOf = (file: string, text: string): ProductTalkRule[] => findProductTalk(file, text).map((finding) => finding.rule);
const n = 29;

describe('development-process talk', () => {
  it.each([
    ['stop', `What stop ${n} changed`],
    ['stop', `with stops ${n}–33's cheaper observation`],
    ['issue', `Against issue ${n}'s targets:`],
    ['issue', `# Issue ${n}, token side`],
    ['issue', `see issues ${n} and 30`],
    ['session', `measured in session ${n}`],
  ] as const)('refuses %s in Markdown: %s', (rule, text) => {
    expect(rulesOf('docs/page.md', text)).toContain(rule);
  });

  it('refuses them in comments, in strings (test names) and in code alike', () => {
    expect(rulesOf('test/a.test.ts', `// as in the gem (issue ${n}; it used to throw)\nconst x = 1;\n`)).toEqual(['issue']);
    expect(rulesOf('test/a.test.ts', `it('keeps the rule of stop ${n}', () => {});\n`)).toEqual(['stop']);
    expect(rulesOf('bench/a.ts', `const target = 'session ${n}';\n`)).toEqual(['session']);
  });

  it('names the line of each finding', () => {
    const findings = findProductTalk('README.md', `# Title\n\nFine.\n\nIn stop ${n} we did it.\n`);
    expect(findings).toEqual([{ file: 'README.md', line: 5, rule: 'stop', text: `stop ${n}` }]);
  });

  it('lets the same words through when no number follows', () => {
    expect(rulesOf('src/a.ts', '// the issue query; stop the server; a session cookie\nconst stop = () => 1;\n')).toEqual([]);
    expect(rulesOf('docs/a.md', 'Stops after 5 s; the token is issued 2 s later.')).toEqual([]);
  });
});

describe('§ of an issue', () => {
  it('refuses a § tied to an issue', () => {
    expect(rulesOf('test/a.test.ts', `/** Property-based tests (see §${n} of the issue). */\n`)).toEqual(['section']);
    expect(rulesOf('docs/a.md', `The issue's §${n} asks for it.`)).toEqual(['section']);
  });

  it("lets a specification's sections through, with or without the RFC named beside them", () => {
    expect(rulesOf('src/a.ts', '// as the request asks (RFC 9110 §12.5.3), and x-gzip is gzip (§8.4.1.3)\nconst a = 1;\n')).toEqual([]);
    expect(rulesOf('src/a.ts', '/** keeps this refresh token when the server returns none (§6: "MAY issue a new one"). */\nconst a = 1;\n')).toEqual([]);
    expect(rulesOf('docs/a.md', 'private_key_jwt client authentication (OIDC Core §9); an unknown token (§2.2)')).toEqual([]);
  });
});

describe('commit hashes in prose', () => {
  const hash = ['a5d', 'a495'].join('');

  it('refuses one in Markdown prose, inline code included, and in code comments', () => {
    expect(rulesOf('README.md', `Measured on the code of \`${hash}\`.`)).toEqual(['commit']);
    expect(rulesOf('docs/a.md', `reverted by ${hash}0b1c2d3e`)).toEqual(['commit']);
    expect(rulesOf('src/a.ts', `// since ${hash} the body is read once\nconst a = 1;\n`)).toEqual(['commit']);
    expect(rulesOf('src/a.ts', `const a = 1; /* see ${hash} */\n`)).toEqual(['commit']);
    expect(rulesOf('openapi/a.yaml', `# changed in ${hash}\nopenapi: 3.1.0\n`)).toEqual(['commit']);
  });

  it('lets through code, data and words that only look like one', () => {
    // In code and strings: ids, digests, test data.
    expect(rulesOf('src/a.ts', `const id = '${hash}';\nconst digest = 'sha256:${hash}ffee';\n`)).toEqual([]);
    // In Markdown: fenced code blocks, and hex joined to a longer word (a UUID, a request id, a digest, a path).
    expect(rulesOf('docs/a.md', `\`\`\`sh\ncurl -d '{"memberId":"${hash}"}'\n\`\`\`\n`)).toEqual([]);
    expect(rulesOf('docs/a.md', 'ids like `9f3c0e5b7a1d2c48-1a`, `514e28b7-0000-4000-8000-000000000015`, `sha256:07ab12cd…`')).toEqual([]);
    // Only digits (a tier id, a year), only letters (a word), too short (a colour, an abbreviation).
    expect(rulesOf('docs/a.md', 'tier 8100004 since 2026; a facade; #ff00aa; 4e3 requests')).toEqual([]);
    // Data files are not prose.
    expect(rulesOf('package-lock.json', `{ "integrity": "sha512-${hash}" , "x": "${hash}" }`)).toEqual([]);
  });
});

describe('files read', () => {
  it('skips binary formats', () => {
    expect(isTextPath('docs/charts/graph.svg')).toBe(true);
    expect(isTextPath('test-artifacts/graphiql.png')).toBe(false);
  });
});
