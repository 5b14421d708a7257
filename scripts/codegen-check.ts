/**
 * `npm run codegen:check`: regenerates everything into a temporary directory and fails, listing the
 * stale files, when the committed `generated/` differs from what the sources produce.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

const fresh = await mkdtemp(join(tmpdir(), 'channel-graph-codegen-'));
try {
  execFileSync('npm', ['run', '-s', 'codegen'], {
    stdio: 'inherit',
    env: { ...process.env, CODEGEN_OUT_DIR: fresh },
  });
  const committed = await listFiles('generated');
  const expected = await listFiles(fresh);
  const stale: string[] = [];
  for (const file of new Set([...committed, ...expected])) {
    const [a, b] = await Promise.all([
      readFile(join('generated', file), 'utf8').catch(() => null),
      readFile(join(fresh, file), 'utf8').catch(() => null),
    ]);
    if (a === null) stale.push(`missing   generated/${file}`);
    else if (b === null) stale.push(`orphaned  generated/${file}`);
    else if (a !== b) stale.push(`stale     generated/${file}`);
  }
  if (stale.length > 0) {
    console.error(`generated/ is out of date with schema/, examples/*/schema/, src/client/operations/ and openapi/:`);
    for (const line of stale) console.error(`  ${line}`);
    console.error('Run `npm run codegen` and commit the result.');
    process.exitCode = 1;
  } else {
    console.log(`generated/ is fresh (${expected.length} files).`);
  }
} finally {
  await rm(fresh, { recursive: true, force: true });
}
