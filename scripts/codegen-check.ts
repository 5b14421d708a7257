/**
 * `npm run codegen:check` (CI): graphql-codegen's check mode on codegen.ts (`graphql-codegen --check`
 * through its programmatic API), which writes nothing and lists the outputs that differ from what
 * their inputs give. The CLI prints nothing when all is current and, when not, a list without what to
 * do: this says both, in one line each.
 */
import { resolve } from 'node:path';
import { CodegenContext, generate } from '@graphql-codegen/cli';
import config from '../codegen.js';
import { reportCodegenFailure } from './codegen-failure.js';

const context = new CodegenContext({ config, filepath: resolve('codegen.ts') });
context.enableCheckMode();
try {
  await generate(context, true);
} catch (error) {
  // What `npm run codegen` says of the same inputs (codegen.ts's onError hook).
  await reportCodegenFailure(config, error instanceof Error ? error.message : String(error));
  process.exit(1);
}
const stale = (context.checkModeStaleFiles as string[]).sort();
if (stale.length > 0) {
  process.stderr.write(`codegen:check: generated/ is not what codegen.ts makes of its inputs; these differ:\n${stale.map((file) => `  ${file}`).join('\n')}\n`);
  process.stderr.write('codegen:check: run `npm run codegen` and commit generated/ with the inputs that changed.\n');
  process.exit(1);
}
process.stdout.write(`codegen:check: generated/ is current (${Object.keys(config.generates).length} outputs of codegen.ts checked against their inputs)\n`);
// The OpenAPI preset's worker does not keep the process alive; the CLI's other handles may.
process.exit(0);
