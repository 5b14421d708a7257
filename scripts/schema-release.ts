/**
 * `npm run schema:release [-- --version <v>]`: makes the working tree's contracts the released
 * baseline. Refuses while `npm run schema:check` fails; otherwise writes released/schema.graphql and
 * released/<contract>.yaml, adds a section to CHANGELOG.md listing every change since the previous
 * release (with the reason of each accepted breaking change), and empties schema/accepted-changes.json.
 */
import { access, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readSources } from './graphql-diagnostics.js';
import {
  ACCEPTED_CHANGES_PATH,
  checkSchema,
  PUBLISHED_CONTRACTS,
  RELEASED_DIR,
  RELEASED_SCHEMA_PATH,
  releasedBaseline,
  releasedContractPath,
  reportFails,
  SCHEMA_PATTERNS,
  type SchemaReport,
} from './schema-changes.js';
import { formatSchemaReport } from './schema-report.js';

const CHANGELOG_PATH = 'CHANGELOG.md';
const CHANGELOG_TITLE = '# Changelog\n';
const RELEASED_HEADER = '# The schema as last released (`npm run schema:release`); `npm run schema:check` compares schema/ with it. Do not edit.\n\n';

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** The CHANGELOG.md section of this release: every change, grouped by contract, breaking first. */
export function changelogSection(version: string, date: string, report: SchemaReport | undefined): string {
  const lines = [`## ${version} — ${date}`, ''];
  if (report === undefined) lines.push('First release of the GraphQL schema and the OpenAPI contracts.');
  else if (report.changes.length === 0) lines.push('No change to the GraphQL schema or the OpenAPI contracts.');
  else {
    const acceptedBecause = new Map(report.acknowledged.map((change) => [change.id, change.acceptedBecause]));
    for (const contract of [...new Set(report.changes.map((change) => change.contract))]) {
      lines.push(contract === 'schema' ? '### GraphQL schema' : `### ${contract}`, '');
      for (const level of ['breaking', 'dangerous', 'safe'] as const) {
        for (const change of report.changes.filter((candidate) => candidate.contract === contract && candidate.level === level)) {
          const why = acceptedBecause.get(change.id);
          lines.push(`- **${level}** \`${change.path}\`: ${change.message}${why ? ` (accepted: ${why})` : ''}`);
        }
      }
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

async function addToChangelog(section: string): Promise<void> {
  const current = (await readFile(CHANGELOG_PATH, 'utf8').catch(() => CHANGELOG_TITLE)) || CHANGELOG_TITLE;
  const body = current.startsWith(CHANGELOG_TITLE) ? current.slice(CHANGELOG_TITLE.length).trimStart() : current;
  await writeFile(CHANGELOG_PATH, `${CHANGELOG_TITLE}\n${section}${body ? `\n${body}` : ''}`);
}

const { values } = parseArgs({ options: { version: { type: 'string' } } });
const version = values.version ?? (JSON.parse(await readFile('package.json', 'utf8')) as { version: string }).version;

const firstRelease = !(await exists(RELEASED_SCHEMA_PATH));
const report = firstRelease ? undefined : await checkSchema(await releasedBaseline());
if (report) console.log(formatSchemaReport(report).join('\n'));
if (report && reportFails(report)) {
  console.error('schema:release refused: fix what schema:check reports first.');
  process.exit(1);
}

await mkdir(RELEASED_DIR, { recursive: true });
const sources = await readSources(SCHEMA_PATTERNS);
const sdl = sources.length === 1 ? (sources[0]?.body ?? '') : sources.map((source) => `# ${source.name}\n${source.body}`).join('\n');
await writeFile(RELEASED_SCHEMA_PATH, RELEASED_HEADER + sdl);
for (const contract of PUBLISHED_CONTRACTS) await copyFile(contract, releasedContractPath(contract));
await addToChangelog(changelogSection(version, new Date().toISOString().slice(0, 10), report));
await writeFile(ACCEPTED_CHANGES_PATH, `${JSON.stringify({ accepted: [] }, null, 2)}\n`);
console.log(`released ${version}: ${RELEASED_DIR}/ updated, ${CHANGELOG_PATH} has its section, ${ACCEPTED_CHANGES_PATH} emptied.`);
