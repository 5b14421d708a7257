/**
 * Part of `npm run lint`: no import cycle in src/, type-only imports included. madge finds the cycles
 * (ESLint's import-x/no-cycle cannot be used: it skips type-only imports). Any cycle fails: where
 * two modules need each other's types, one depends on an interface of what it needs instead (as
 * AccessToken on TokenClient and the grant strategies on GrantClient in src/oauth2).
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const madge = createRequire(import.meta.url).resolve('madge/bin/cli.js');
const { stdout } = await promisify(execFile)(process.execPath, [madge, '--circular', '--json', '--extensions', 'ts', '--ts-config', 'tsconfig.json', 'src'], {
  maxBuffer: 16 * 2 ** 20,
}).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' })); // madge exits 1 when it finds a cycle
const found = new Set((JSON.parse(stdout) as string[][]).map((cycle) => cycle.join(' > ')));

for (const cycle of found) console.error(`import cycle in src/: ${cycle}`);
if (found.size > 0) process.exit(1);
console.log('no import cycle in src/');
