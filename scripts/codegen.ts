/**
 * `npm run codegen`: every output of codegen.ts (scripts/codegen-graphql.ts) and every
 * openapi/*.yaml (openapi-typescript, scripts/codegen-openapi.ts). A cold run is mostly module
 * loading, so the two halves load in parallel: openapi-typescript in a child process started first,
 * GraphQL in this one. Fails when either half fails.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Same Node flags (`--import tsx`) for the child; CODEGEN_OUT_DIR passes through the environment.
const openapi = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./codegen-openapi.ts', import.meta.url))], { stdio: 'inherit' });
const openapiExit = new Promise<number>((resolve) => {
  openapi.once('error', () => resolve(1));
  openapi.once('exit', (code) => resolve(code ?? 1));
});

try {
  const [{ generateGraphQL }, { default: config }] = await Promise.all([import('./codegen-graphql.js'), import('../codegen.js')]);
  await generateGraphQL(config);
} catch (error) {
  openapi.kill();
  throw error;
}
if ((await openapiExit) !== 0) {
  console.error('scripts/codegen-openapi.ts failed');
  process.exitCode = 1;
}
