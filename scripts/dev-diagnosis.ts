/**
 * What `npm run dev` prints after a codegen run (scripts/dev.ts loads this on the first one, so that
 * its start does not wait for the schema tooling): why a run failed, with file and line where the
 * inputs say, and the classification of the schema against the last release.
 */
import { readFile } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import { parseDocument } from 'yaml';
import config from '../codegen.js';
import { projectsOf } from './codegen-failure.js';
import { diagnoseProjects, formatDiagnostic } from './graphql-diagnostics.js';
import { checkSchema, releasedBaseline } from './schema-changes.js';
import { formatSchemaReport } from './schema-report.js';

/** YAML errors of the OpenAPI contracts, as `file:line:column message` (openapi-typescript's would not say where). */
async function contractProblems(): Promise<string[]> {
  const problems: string[] = [];
  for (const file of (await glob(['openapi/*.yaml'])).sort()) {
    for (const error of parseDocument(await readFile(file, 'utf8')).errors) {
      const [start] = error.linePos ?? [];
      problems.push(`${file}:${start?.line ?? 1}:${start?.col ?? 1} ${error.message.split('\n')[0] ?? ''}`);
    }
  }
  return problems;
}

/** Why a run failed, with file and line where the inputs say; the CLI's message when they do not. */
export async function failureLines(cliMessage: string): Promise<string[]> {
  const problems = [...(await diagnoseProjects(projectsOf(config))).map(formatDiagnostic), ...(await contractProblems())];
  return ['cannot regenerate; the server keeps the last good schema:', ...(problems.length > 0 ? problems : cliMessage.split('\n')).map((problem) => `  ${problem}`)];
}

/** The schema check's report (`npm run schema:check`), line by line. */
export async function classification(): Promise<string[]> {
  try {
    return formatSchemaReport(await checkSchema(await releasedBaseline()));
  } catch (error) {
    return [`not classified: ${error instanceof Error ? error.message : String(error)}`];
  }
}
