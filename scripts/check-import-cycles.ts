/**
 * Part of `npm run lint`: no import cycle in src/ nor in a package's sources (packages/<name>/src),
 * type-only imports included. madge finds the cycles (ESLint's import-x/no-cycle cannot be used: it
 * skips type-only imports). Any cycle fails: where two modules need each other's types, one depends
 * on an interface of what it needs instead (as AccessToken on TokenClient and the grant strategies
 * on GrantClient in packages/oauth2). Through tsconfig.json's paths, src/ reaches the packages'
 * sources too, so a cycle across a package boundary is found as well.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const ROOTS = ['src', 'packages/oauth2/src', 'packages/client/src'];
const madge = createRequire(import.meta.url).resolve('madge/bin/cli.js');
const { stdout } = await promisify(execFile)(process.execPath, [madge, '--circular', '--json', '--extensions', 'ts', '--ts-config', 'tsconfig.json', ...ROOTS], {
  maxBuffer: 16 * 2 ** 20,
}).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' })); // madge exits 1 when it finds a cycle
const found = new Set((JSON.parse(stdout) as string[][]).map((cycle) => cycle.join(' > ')));

for (const cycle of found) console.error(`import cycle: ${cycle}`);
if (found.size > 0) process.exit(1);
console.log(`no import cycle in ${ROOTS.join(', ')}`);
