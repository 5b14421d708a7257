/**
 * Durable whole-file writes for state that cannot be recomputed (the rotated membership token, the
 * last good snapshots): after a crash or a power cut at any moment, a reader finds either the
 * previous content or the new one, complete, never a torn file and never an empty one. The file
 * token store (src/channel/file-token-store.ts) and the snapshot files write with it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface WriteFileAtomicOptions {
  /** Permissions of a new file (default 0600: the state is often a secret). */
  mode?: number;
  /** The rename step, replaceable so that tests can simulate a crash between write and rename. */
  renameFile?: (from: string, to: string) => Promise<void>;
}

/** Temporary files this process is writing now: never leftovers, whatever their pid says. */
const writing = new Set<string>();

/** `<target>.<pid>.<12 hex>.tmp`: the writer's pid tells a leftover from a write in progress. */
function temporaryPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * fsync(2) of a directory makes the entries created or renamed in it durable (POSIX leaves a rename
 * in the page cache until then). Windows cannot open a directory for syncing; there, NTFS journals
 * the rename itself.
 */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `data` to `path`: write a temporary file in the same directory, fsync it, rename it over
 * the target (atomic within one file system, POSIX rename(2)), then fsync the directory so that the
 * rename itself survives a power cut. Resolves only when all of it is on disk.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: WriteFileAtomicOptions = {}): Promise<void> {
  const { mode = 0o600, renameFile = rename } = options;
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = temporaryPath(path);
  writing.add(temporary);
  try {
    const handle = await open(temporary, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameFile(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  } finally {
    writing.delete(temporary);
  }
  await syncDirectory(directory);
}

/** A leftover older than this is removed even if a process with its writer's pid is running. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Last modification time in ms; 0 when the file is gone (its writer renamed it meanwhile). */
export async function modifiedAt(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** A temporary file an interrupted write of the target left behind. */
export interface LeftoverFile {
  path: string;
  modifiedMs: number;
}

/**
 * The temporary files that interrupted writes of `path` left behind (a `kill -9` or a crash between
 * write and rename). A temporary file is not a leftover while its writer may still be writing it:
 * when this process is writing it, or when another running process has the writer's pid and the
 * file is less than an hour old (two processes sharing a data directory). A file with our own pid
 * that we are not writing is from an earlier process that had the same pid (pid 1 in a container).
 */
export async function findLeftoverFiles(path: string): Promise<LeftoverFile[]> {
  const directory = dirname(path);
  const pattern = new RegExp(`^${basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.[0-9a-f]{12}\\.tmp$`);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const leftovers: LeftoverFile[] = [];
  for (const name of names) {
    const writer = pattern.exec(name)?.[1];
    if (writer === undefined) continue;
    const temporary = join(directory, name);
    if (writing.has(temporary)) continue;
    const pid = Number(writer);
    const modifiedMs = await modifiedAt(temporary);
    if (pid !== process.pid && isRunning(pid) && Date.now() - modifiedMs < ABANDONED_AFTER_MS) continue;
    leftovers.push({ path: temporary, modifiedMs });
  }
  return leftovers;
}

/**
 * Removes the leftovers of interrupted writes of `path` (findLeftoverFiles), so they do not pile
 * up: call it before reading the target at start. Resolves with the paths removed.
 */
export async function removeTemporaryFiles(path: string): Promise<string[]> {
  const leftovers = await findLeftoverFiles(path);
  await Promise.all(leftovers.map((leftover) => rm(leftover.path, { force: true })));
  return leftovers.map((leftover) => leftover.path);
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
