import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a whole file so that readers (and a process that restarts after a crash) see either the
 * old content or the new content, never half of it: write a temporary file in the same directory,
 * flush it to disk, then rename it over the target (rename is atomic within one file system, POSIX).
 * `renameFile` is replaceable so tests can simulate a crash between the write and the rename.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  { mode = 0o600, renameFile = rename }: { mode?: number; renameFile?: (from: string, to: string) => Promise<void> } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await renameFile(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The file's text, or null when it does not exist (any other failure is thrown). */
export async function readFileIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
