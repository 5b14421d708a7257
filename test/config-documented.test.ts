import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHANNEL_SETTINGS } from '../src/config.js';
import { GRAPH_SETTINGS } from '../src/graphql/graph-settings.js';
import { documentedDefault, type SettingDeclarations } from '../src/lib/settings.js';
import { SANDBOX_SETTINGS } from '../src/sandbox/settings.js';

/**
 * The docs' settings tables (the configuration of docs/operating.md, the graph's of docs/graph.md,
 * the sandbox's of docs/sandbox.md) and `.env.example` against the declarations they document: a
 * setting added, renamed or given another default without its documentation fails here.
 */
const PAGES = ['README.md', ...readdirSync(new URL('../docs', import.meta.url)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const DOCS = PAGES.map((page) => readFileSync(new URL(`../${page}`, import.meta.url), 'utf8')).join('\n');
const ENV_EXAMPLE = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');

const DECLARED: SettingDeclarations[] = [CHANNEL_SETTINGS, GRAPH_SETTINGS, SANDBOX_SETTINGS];
const declared = new Map(DECLARED.flatMap((group) => Object.values(group).map((setting) => [setting.name, setting] as const)));

/** Rows `| \`NAME\` | default | … |` of the tables whose first header cell is "Variable". */
function settingsTableRows(markdown: string): { name: string; documentedDefault: string }[] {
  const rows: { name: string; documentedDefault: string }[] = [];
  let inSettingsTable = false;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      inSettingsTable = false;
      continue;
    }
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
    if (/^variable$/i.test(cells[0] ?? '')) inSettingsTable = true;
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0] ?? '')?.[1];
    if (inSettingsTable && name !== undefined) rows.push({ name, documentedDefault: cells[1] ?? '' });
  }
  return rows;
}

describe('the settings tables of the docs', () => {
  const rows = settingsTableRows(DOCS);

  it('list every declared setting once, and nothing that is not declared', () => {
    const names = rows.map((row) => row.name);
    expect(new Set(names).size, 'a variable listed twice').toBe(names.length);
    expect([...names].sort()).toEqual([...declared.keys()].sort());
  });

  it("give each setting's declared default", () => {
    for (const row of rows) {
      const setting = declared.get(row.name);
      if (setting !== undefined) expect(row.documentedDefault, row.name).toBe(documentedDefault(setting));
    }
  });
});

describe('.env.example', () => {
  /** `NAME=value` or `# NAME=value`. */
  const lines = new Map([...ENV_EXAMPLE.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1] as string, match[2] as string]));
  /** Read from the process environment only: it names the file itself. */
  const notInTheFile = new Set([CHANNEL_SETTINGS.envFile.name]);

  it('has a line for every setting of npm start, with its default (empty when there is none or it follows another)', () => {
    for (const group of [CHANNEL_SETTINGS, GRAPH_SETTINGS]) {
      for (const setting of Object.values(group)) {
        if (notInTheFile.has(setting.name)) continue;
        expect(lines.has(setting.name), `${setting.name} missing`).toBe(true);
        const fallback: unknown = setting.default;
        const expected = typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean' ? String(fallback) : '';
        expect(lines.get(setting.name), setting.name).toBe(expected);
      }
    }
  });

  it('names no variable that is not a setting', () => {
    for (const name of lines.keys()) expect(declared.has(name), name).toBe(true);
  });
});

describe('the examples of the README and the docs', () => {
  /** Every loopback URL in the README and the docs, with its port and path. */
  const urls = [...DOCS.matchAll(/(?:localhost|127\.0\.0\.1):(\d+)(\/[^\s'"`)]*)?/g)].map((match) => ({ port: Number(match[1]), path: match[2] ?? '/', text: match[0] }));

  it('reach the channel API on its default PORT (a webhook posted to another port goes nowhere)', () => {
    const apiUrls = urls.filter((url) => /^\/(membership|video|healthz)\b/.test(url.path));
    expect(apiUrls.length).toBeGreaterThan(5);
    for (const url of apiUrls) expect(url.port, url.text).toBe(CHANNEL_SETTINGS.port.default);
  });

  it('reach the sandbox on its default SANDBOX_PORT', () => {
    const sandboxUrls = urls.filter((url) => url.path.startsWith('/__sandbox'));
    expect(sandboxUrls.length).toBeGreaterThan(0);
    for (const url of sandboxUrls) expect(url.port, url.text).toBe(SANDBOX_SETTINGS.port.default);
  });
});
