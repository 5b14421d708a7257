/**
 * Part of `npm run lint`: the repository speaks of the product only. Reads every file git tracks,
 * and every new one it does not ignore (the working tree's content), and fails, naming file, line and words, on what
 * `scripts/product-talk.ts` refuses: `stop <n>`, `issue <n>`, `session <n>`, a `§` of an issue, a
 * commit hash in prose.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { findProductTalk, isTextPath } from './product-talk.js';

const { stdout } = await promisify(execFile)('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { maxBuffer: 16 * 2 ** 20 });
const files = stdout.split('\0').filter((path) => path !== '' && isTextPath(path));
let count = 0;
for (const file of files) {
  // A file deleted in the working tree but not yet in the index has nothing to say.
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  if (text === undefined || text.includes('\0')) continue;
  for (const finding of findProductTalk(file, text)) {
    console.error(`${finding.file}:${finding.line}: ${finding.rule}: "${finding.text}" (the repository speaks of the product, not of its development)`);
    count += 1;
  }
}
if (count > 0) process.exit(1);
console.log(`no development-process talk in ${files.length} tracked files`);
