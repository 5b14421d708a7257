/**
 * The workspace packages as npm would publish them: `npm pack` of each in a throw-away copy of the
 * project (their prepack builds dist/ there, not in the working tree), and scratch projects that
 * install tarballs the way a downstream app does — from the local npm cache where it has them
 * (`--prefer-offline`), the registry only for what it has never seen.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { copyProject } from './project-copy.js';

const run = promisify(execFile);
export const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

export const WORKSPACE_PACKAGES = ['oauth2', 'client'] as const;
export type WorkspacePackage = (typeof WORKSPACE_PACKAGES)[number];

export interface PackedPackage {
  /** `@channel-graph/<name>` */
  name: string;
  /** Absolute path of the tarball. */
  tarball: string;
  /** The paths the tarball holds, relative to the package root. */
  files: string[];
}

/** Packs every workspace package into `destination`. */
export async function packWorkspacePackages(destination: string): Promise<Record<WorkspacePackage, PackedPackage>> {
  const copy = await copyProject();
  try {
    const packed = {} as Record<WorkspacePackage, PackedPackage>;
    for (const name of WORKSPACE_PACKAGES) {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination, ...NPM_QUIET], {
        cwd: join(copy.dir, 'packages', name),
        maxBuffer: 64 * 1024 * 1024,
      });
      const [result] = JSON.parse(stdout) as [{ name: string; filename: string; files: Array<{ path: string }> }];
      packed[name] = { name: result.name, tarball: join(destination, result.filename), files: result.files.map((file) => file.path) };
    }
    return packed;
  } finally {
    await copy.remove();
  }
}

/** A fresh ESM project in `dir` with `specs` installed (tarball paths or `name@version`). */
export async function installScratchProject(dir: string, specs: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', ...NPM_QUIET, ...specs], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
}

export interface Installed {
  /** Installed packages, peer dependencies left out: the package itself and what it brings. */
  packages: string[];
  /** Bytes of their files (the sum of file sizes). */
  bytes: number;
  /** What they take on the disk (allocated blocks, as `du` counts them: every small file a whole block). */
  diskBytes: number;
}

async function directoryBytes(dir: string): Promise<{ bytes: number; diskBytes: number }> {
  const total = { bytes: 0, diskBytes: 0 };
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // A nested node_modules holds other packages: they are counted as entries of their own.
    const counted = entry.isDirectory() ? (entry.name === 'node_modules' ? undefined : await directoryBytes(path)) : entry.isFile() ? await stat(path).then((file) => ({ bytes: file.size, diskBytes: file.blocks * 512 })) : undefined;
    total.bytes += counted?.bytes ?? 0;
    total.diskBytes += counted?.diskBytes ?? 0;
  }
  return total;
}

/** What the scratch project's install put in node_modules, read from its package-lock.json (npm marks peers `peer: true`). */
export async function installedFootprint(dir: string): Promise<Installed> {
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { peer?: boolean; link?: boolean }> };
  const paths = Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && entry.peer !== true && entry.link !== true)
    .map(([path]) => path);
  const total = { bytes: 0, diskBytes: 0 };
  for (const path of paths) {
    const counted = await directoryBytes(join(dir, path));
    total.bytes += counted.bytes;
    total.diskBytes += counted.diskBytes;
  }
  return { packages: paths.map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)), ...total };
}
