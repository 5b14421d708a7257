/**
 * `npm run schema:check [-- --base <git ref>]`: every change of schema/ and of the published OpenAPI
 * contracts since the last release (released/, or the given git revision), classified; fails on a
 * breaking change not accepted in schema/accepted-changes.json, and on any shipped operation or
 * trusted document that no longer validates.
 */
import { parseArgs } from 'node:util';
import { checkSchema, gitBaseline, releasedBaseline, reportFails } from './schema-changes.js';
import { formatSchemaReport } from './schema-report.js';

const { values } = parseArgs({ options: { base: { type: 'string' } } });
try {
  const report = await checkSchema(values.base ? await gitBaseline(values.base) : await releasedBaseline());
  console.log(formatSchemaReport(report).join('\n'));
  process.exitCode = reportFails(report) ? 1 : 0;
} catch (error) {
  console.error(`schema check failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
