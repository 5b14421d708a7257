/**
 * `npm run schema:release`: makes the working tree's contracts the released baseline. Refuses while
 * `npm run schema:check` fails; otherwise writes released/schema.graphql and released/<contract>.yaml,
 * writes a changeset (.changeset/) for @channel-graph/client — the package whose types and
 * documents are the contracts — listing every change since the previous release (with the reason of
 * each accepted breaking change), its bump following the change class: major for a breaking change,
 * minor for any other; and empties schema/accepted-changes.json. `npx changeset version` then puts
 * the entry in packages/client/CHANGELOG.md under the version it gives the package.
 */
import { access, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** The package whose changelog the contract changes go to. */
const CONTRACT_PACKAGE = '@channel-graph/client';
const CHANGESET_DIR = '.changeset';
const RELEASED_HEADER = '# The schema as last released (`npm run schema:release`); `npm run schema:check` compares schema/ with it. Do not edit.\n\n';

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** The semver bump of a release: major when it breaks a client, minor for anything else it changes. */
function releaseBump(report: SchemaReport | undefined): 'major' | 'minor' | undefined {
  if (report === undefined) return 'minor';
  if (report.changes.length === 0) return undefined;
  return report.changes.some((change) => change.level === 'breaking') ? 'major' : 'minor';
}

/** The changelog entry of this release: every change, grouped by contract, breaking first. */
function changelogEntry(report: SchemaReport | undefined): string {
  if (report === undefined) return 'First release of the GraphQL schema and the OpenAPI contracts.\n';
  const lines = ['Contract changes since the previous release:', ''];
  const acceptedBecause = new Map(report.acknowledged.map((change) => [change.id, change.acceptedBecause]));
  for (const contract of [...new Set(report.changes.map((change) => change.contract))]) {
    lines.push(contract === 'schema' ? '**GraphQL schema**' : `**${contract}**`, '');
    for (const level of ['breaking', 'dangerous', 'safe'] as const) {
      for (const change of report.changes.filter((candidate) => candidate.contract === contract && candidate.level === level)) {
        const why = acceptedBecause.get(change.id);
        lines.push(`- **${level}** \`${change.path}\`: ${change.message}${why ? ` (accepted: ${why})` : ''}`);
      }
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** A changeset file (the format `changeset add` writes): front matter naming the package and bump, then the entry. */
function changeset(bump: 'major' | 'minor', entry: string): string {
  return `---\n${JSON.stringify(CONTRACT_PACKAGE)}: ${bump}\n---\n\n${entry}`;
}

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
{
  // The migrations as released: schema:check compares what is added after them (scripts/schema-migrations.ts).
  const { readMigrations } = await import('./codegen-db.js');
  const { MIGRATIONS_DIR, RELEASED_MIGRATIONS_PATH } = await import('./schema-migrations.js');
  const released = readMigrations(MIGRATIONS_DIR).map(({ name, checksum }) => ({ name, checksum }));
  await writeFile(RELEASED_MIGRATIONS_PATH, `${JSON.stringify(released, null, 2)}\n`);
}
const bump = releaseBump(report);
let written = 'no contract change, so no changeset';
if (bump !== undefined) {
  const file = join(CHANGESET_DIR, `contracts-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}.md`);
  await mkdir(CHANGESET_DIR, { recursive: true });
  await writeFile(file, changeset(bump, changelogEntry(report)));
  written = `${file} (${CONTRACT_PACKAGE}, ${bump}; \`npx changeset version\` puts it in packages/client/CHANGELOG.md)`;
}
await writeFile(ACCEPTED_CHANGES_PATH, `${JSON.stringify({ accepted: [] }, null, 2)}\n`);
console.log(`released: ${RELEASED_DIR}/ updated, ${ACCEPTED_CHANGES_PATH} emptied, ${written}.`);
