/**
 * A throw-away copy of the project in a temp directory (node_modules linked, not copied), so
 * tests and benchmarks can edit SDL and run the real npm scripts without touching the working tree.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const projectRoot = resolve(import.meta.dirname, '..', '..');

/**
 * The project's sources: what git tracks plus new files it does not ignore — so never node_modules,
 * dist/, .env or runtime data.
 */
async function listSources(): Promise<string[]> {
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
  const { stdout } = await promisify(execFile)('git', args, { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 });
  return stdout.split('\0').filter((path) => path.length > 0);
}

export interface ScriptRun {
  exitCode: number;
  /** stdout and stderr together, in the order they were written per stream. */
  output: string;
}

export interface ProjectCopy {
  dir: string;
  /** `npm run <script> [-- <args>]` inside the copy; never throws on a non-zero exit. */
  npmRun(script: string, args?: readonly string[]): Promise<ScriptRun>;
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

/** The workspace packages' scope in node_modules: npm links it to packages/, which the copy has its own of. */
const WORKSPACE_SCOPE = '@channel-graph';

/**
 * node_modules of the copy: every entry linked to the project's, except the workspace packages,
 * linked to the copy's own packages/ (as npm links them), so the copy builds and runs its own.
 */
async function linkNodeModules(dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, WORKSPACE_SCOPE), { recursive: true });
  for (const name of await readdir(join(projectRoot, 'node_modules'))) {
    if (name !== WORKSPACE_SCOPE) await symlink(join(projectRoot, 'node_modules', name), join(modules, name));
  }
  for (const name of await readdir(join(projectRoot, 'node_modules', WORKSPACE_SCOPE))) {
    await symlink(join(dir, 'packages', name), join(modules, WORKSPACE_SCOPE, name), 'dir');
  }
}

/**
 * The records of `npm run typecheck` (tsc -b --incremental): the root's *.tsbuildinfo and the
 * packages' dist/ (their declarations and records). tsc keeps a hash of every file it checked, so a
 * copy that starts from them rechecks only the files that differ, as a second run in the tree does.
 */
async function copyTypecheckRecords(dir: string): Promise<void> {
  const records = [
    ...(await readdir(projectRoot)).filter((name) => name.endsWith('.tsbuildinfo')),
    ...(await readdir(join(projectRoot, 'packages'))).map((name) => join('packages', name, 'dist')),
  ];
  for (const path of records) {
    await cp(join(projectRoot, path), join(dir, path), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

export interface CopyOptions {
  /** Start from the working tree's typecheck records, when it has them (default false: a fresh clone's state). */
  typecheckRecords?: boolean;
}

export async function copyProject(options: CopyOptions = {}): Promise<ProjectCopy> {
  const dir = await mkdtemp(join(tmpdir(), 'channel-graph-copy-'));
  for (const path of await listSources()) {
    // A file deleted in the working tree but still in the index is not part of the sources.
    await cp(join(projectRoot, path), join(dir, path)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  if (options.typecheckRecords === true) await copyTypecheckRecords(dir);
  await linkNodeModules(dir);
  return {
    dir,
    npmRun: (script, args = []) =>
      new Promise((done) => {
        execFile(
          'npm',
          ['run', '--silent', script, ...(args.length > 0 ? ['--', ...args] : [])],
          { cwd: dir, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, maxBuffer: 32 * 1024 * 1024 },
          (error, stdout, stderr) => {
            const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
            done({ exitCode, output: `${stdout}\n${stderr}` });
          },
        );
      }),
    readText: (path) => readFile(join(dir, path), 'utf8'),
    writeText: (path, text) => writeFile(join(dir, path), text),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
