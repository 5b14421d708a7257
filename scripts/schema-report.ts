/** The text of a schema check, as `npm run schema:check` and `npm run dev` print it. */
import { formatDiagnostic } from './graphql-diagnostics.js';
import { ACCEPTED_CHANGES_PATH, reportFails, type ChangeLevel, type ContractChange, type SchemaReport } from './schema-changes.js';

const LEVELS: readonly ChangeLevel[] = ['breaking', 'dangerous', 'safe'];

function changeLine(change: ContractChange): string {
  const reason = change.reason ? ` — ${change.reason}` : '';
  return `  ${change.level.padEnd(9)} ${change.contract === 'schema' ? change.path : `${change.contract} ${change.path}`}: ${change.message}${reason}\n            [${change.id}]`;
}

export function formatSchemaReport(report: SchemaReport): string[] {
  const lines: string[] = [];
  if (report.changes.length === 0) lines.push(`no change since ${report.baseline}`);
  else {
    const counts = LEVELS.map((level) => `${report.changes.filter((change) => change.level === level).length} ${level}`);
    lines.push(`changes since ${report.baseline}: ${counts.join(', ')}`);
    for (const level of LEVELS) lines.push(...report.changes.filter((change) => change.level === level).map(changeLine));
  }
  for (const change of report.acknowledged) lines.push(`accepted  [${change.id}]: ${change.acceptedBecause}`);
  for (const entry of report.unmatched) lines.push(`warning: ${ACCEPTED_CHANGES_PATH} accepts "${entry.change}", which is not a current change`);
  if (report.problems.length > 0) {
    lines.push('no longer valid against the edited schema:');
    lines.push(...report.problems.map((problem) => `  ${formatDiagnostic(problem)}`));
  }
  if (report.problems.length > 0) {
    // Accepting the change does not make them valid: they are what this project ships to clients.
    lines.push(
      `${report.problems.length} operation(s) above no longer valid: fix each at its file:line:column (a trusted document by editing`,
      'the operation it came from, then `npm run codegen`), or undo the schema change',
    );
  }
  if (report.unacknowledged.length > 0) {
    lines.push(
      `${report.unacknowledged.length} breaking change(s) not accepted: undo them, or add each id above to ${ACCEPTED_CHANGES_PATH}`,
      `with the reason clients may break, e.g. { "accepted": [{ "change": "${report.unacknowledged[0]?.id ?? ''}", "reason": "…" }] }`,
    );
  }
  lines.push(reportFails(report) ? 'schema check failed' : 'schema check passed');
  return lines;
}
