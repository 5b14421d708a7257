/**
 * Part of `npm run lint`: no import cycle in src/, type-only imports included. madge finds the cycles
 * (ESLint's import-x/no-cycle cannot be used: it skips type-only imports).
 *
 * KNOWN_CYCLES are the cycles that predate this check, each with the reason it is still there. A new
 * cycle fails, and so does a listed cycle that no longer exists: the list only shrinks.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

/**
 * The OAuth2 library's client and the tokens, strategies and errors it creates refer to each other's
 * types (the Ruby gem's interface: `token.client`, `client.getToken()`, `error.response`,
 * `response.error`). Inverting these dependencies is part of the library's restructuring (issue 13).
 */
const KNOWN_CYCLES = new Set([
  'oauth2/access-token.ts > oauth2/client.ts',
  'oauth2/errors.ts > oauth2/response.ts',
  ...['assertion', 'auth-code', 'client-credentials', 'password'].flatMap((strategy) => [
    `oauth2/access-token.ts > oauth2/client.ts > oauth2/strategies/${strategy}.ts`,
    `oauth2/client.ts > oauth2/strategies/${strategy}.ts`,
  ]),
  'oauth2/client.ts > oauth2/strategies/implicit.ts',
]);

const madge = createRequire(import.meta.url).resolve('madge/bin/cli.js');
const { stdout } = await promisify(execFile)(process.execPath, [madge, '--circular', '--json', '--extensions', 'ts', '--ts-config', 'tsconfig.json', 'src'], {
  maxBuffer: 16 * 2 ** 20,
}).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' })); // madge exits 1 when it finds a cycle
const found = new Set((JSON.parse(stdout) as string[][]).map((cycle) => cycle.join(' > ')));

const added = [...found].filter((cycle) => !KNOWN_CYCLES.has(cycle));
const gone = [...KNOWN_CYCLES].filter((cycle) => !found.has(cycle));
for (const cycle of added) console.error(`import cycle in src/: ${cycle}`);
for (const cycle of gone) console.error(`scripts/check-import-cycles.ts: "${cycle}" is gone; remove it from KNOWN_CYCLES`);
if (added.length > 0 || gone.length > 0) process.exit(1);
console.log(`no new import cycle in src/ (${found.size} known, in src/oauth2)`);
