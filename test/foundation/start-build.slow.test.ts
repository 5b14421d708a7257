/**
 * `npm start` builds only when the sources changed (prestart: `node scripts/build.mjs --if-stale`),
 * in a throw-away copy of the project: on a built tree it starts without rebuilding (and without
 * esbuild, TypeScript or any devDependency); after a source file is touched it rebuilds first.
 * `--check` sees edited, new and deleted inputs and a file put back with an older mtime. The build
 * transpiles: a type error does not stop it, a syntax error does, and leaves the last good dist/.
 * `--out-dir` (the tests' own build) builds elsewhere and leaves dist/ alone.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, projectRoot, type ProjectCopy } from '../support/project-copy.js';
import { npmStart, type StartedServer } from '../support/npm-start.js';

const RECORD = 'dist/.build-inputs.json';
const BUILD_MESSAGE = 'building dist/';

let copy: ProjectCopy;

/** `node scripts/build.mjs <args>` in the copy, `--check` by default. */
async function check(args: readonly string[] = ['--check']): Promise<{ exitCode: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/build.mjs', ...args], { cwd: copy.dir });
    return { exitCode: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** What a build leaves behind: the compiled entry's identity and the record of the inputs. */
async function buildMarks(): Promise<{ mainIno: number; mainMtimeMs: number; record: string }> {
  const main = await stat(join(copy.dir, 'dist/src/main.js'));
  return { mainIno: main.ino, mainMtimeMs: main.mtimeMs, record: await copy.readText(RECORD) };
}

/**
 * A node_modules holding only the production dependencies (what `npm ci --omit=dev` installs):
 * the top-level packages package-lock.json does not mark dev, linked from the full tree; the
 * workspace packages linked to the copy's own packages/ (their built dist/), as npm links them.
 */
async function productionNodeModules(target: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean; resolved?: string }> };
  const topLevel = Object.entries(lock.packages).filter(([path, entry]) => /^node_modules\/(@[^/]+\/)?[^/@][^/]*$/.test(path) && entry.dev !== true);
  for (const [path, entry] of topLevel) {
    await mkdir(join(target, path, '..'), { recursive: true });
    await symlink(entry.link === true && entry.resolved !== undefined ? join(target, entry.resolved) : join(projectRoot, path), join(target, path), 'dir');
  }
}

/** `{ __typename }` over POST /graphql: the graph is served. */
async function typename(url: string): Promise<unknown> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data?: { __typename?: unknown } }).data?.__typename;
}

beforeAll(async () => {
  copy = await copyProject();
  const build = await copy.npmRun('build');
  expect(build.exitCode, build.output).toBe(0);
}, 300_000);

afterAll(async () => {
  await copy?.remove();
});

describe('npm start on a built tree', () => {
  it('answers without rebuilding, with only the production dependencies installed', async () => {
    const before = await buildMarks();
    expect((await check()).exitCode).toBe(0);
    // Swap in a node_modules without TypeScript, tsx or any other devDependency.
    const full = join(copy.dir, 'node_modules.full');
    await rename(join(copy.dir, 'node_modules'), full);
    await productionNodeModules(copy.dir);
    try {
      for (const builder of ['esbuild', 'typescript']) await expect(stat(join(copy.dir, 'node_modules', builder))).rejects.toThrow(/ENOENT/);
      // Nor the packages' own build (their JS and declarations, written when they are packed).
      for (const name of ['oauth2', 'client']) await expect(stat(join(copy.dir, 'packages', name, 'dist'))).rejects.toThrow(/ENOENT/);
      const server = await npmStart(copy.dir);
      try {
        expect(await typename(server.url)).toBe('Query');
        expect(server.output()).not.toContain(BUILD_MESSAGE);
        console.info(`npm start on a built tree: first answer after ${Math.round(server.firstAnswerMs)} ms`);
      } finally {
        await server.stop();
      }
    } finally {
      await rm(join(copy.dir, 'node_modules'), { recursive: true, force: true });
      await rename(full, join(copy.dir, 'node_modules'));
    }
    expect(await buildMarks()).toEqual(before);
  }, 180_000);
});

describe('--out-dir', () => {
  it('builds into another directory of the project, which --check then finds current, and leaves dist/ as it was', async () => {
    const before = await buildMarks();
    const build = await check(['--if-stale', '--out-dir', 'other-build']);
    expect(build.exitCode, build.output).toBe(0);
    expect(build.output).toContain('building other-build/: other-build/.build-inputs.json is missing');
    await expect(stat(join(copy.dir, 'other-build/src/main.js'))).resolves.toBeDefined();
    expect(JSON.parse(await copy.readText('other-build/.build-inputs.json'))).toMatchObject({ inputs: JSON.parse(before.record).inputs });
    expect(await check(['--check', '--out-dir', 'other-build'])).toEqual({ exitCode: 0, output: '' });
    expect(await buildMarks()).toEqual(before);
    await rm(join(copy.dir, 'other-build'), { recursive: true });
  }, 120_000);

  it('refuses a directory that no build made (a build replaces its directory whole), and a path', async () => {
    const refused = await check(['--out-dir', 'src']);
    expect(refused).toEqual({ exitCode: 2, output: '--out-dir: src/ exists and holds no .build-inputs.json: not a build\'s directory, left alone\n' });
    await expect(stat(join(copy.dir, 'src/main.ts'))).resolves.toBeDefined();
    expect((await check(['--out-dir', '../elsewhere'])).output).toBe('--out-dir: expected the name of a directory in the project root, got "../elsewhere"\n');
  });
});

describe('npm start after a source changed', () => {
  it('--check names an edited file and a new one', async () => {
    const now = new Date();
    await utimes(join(copy.dir, 'src/app.ts'), now, now);
    await copy.writeText('src/notes.txt', 'an input too: anything under src/ is\n');
    const { exitCode, output } = await check();
    expect(exitCode).toBe(1);
    expect(output).toContain('dist/ is out of date: changed since the last build:');
    expect(output).toContain('src/app.ts');
    expect(output).toContain('src/notes.txt (new)');
  });

  it('rebuilds, then answers; the next start does not rebuild again', async () => {
    const before = await buildMarks();
    const server = await npmStart(copy.dir, { timeoutMs: 300_000 });
    try {
      expect(server.output()).toMatch(/building dist\/: changed since the last build: .*src\/app\.ts/);
      expect(await typename(server.url)).toBe('Query');
    } finally {
      await server.stop();
    }
    const after = await buildMarks();
    expect(after.record).not.toBe(before.record);
    expect(after.mainIno).not.toBe(before.mainIno); // a new dist/, not the old one touched
    expect((await check()).exitCode).toBe(0);

    const again = await npmStart(copy.dir);
    try {
      expect(again.output()).not.toContain(BUILD_MESSAGE);
    } finally {
      await again.stop();
    }
    expect(await buildMarks()).toEqual(after);
  }, 420_000);

  it('--check names a deleted file and a file put back with an older mtime', async () => {
    await rm(join(copy.dir, 'src/notes.txt'));
    const oldTime = new Date('2001-01-01T00:00:00Z');
    await utimes(join(copy.dir, 'src/main.ts'), oldTime, oldTime);
    const { exitCode, output } = await check();
    expect(exitCode).toBe(1);
    expect(output).toContain('src/main.ts');
    expect(output).toContain('src/notes.txt (deleted)');
  });

  it('a type error does not stop the build (npm run typecheck reports it)', async () => {
    await writeFile(join(copy.dir, 'src/mistyped.ts'), 'export const mistyped: number = "not a number";\n');
    const build = await copy.npmRun('build');
    expect(build.exitCode, build.output).toBe(0);
    const built = (await import(pathToFileURL(join(copy.dir, 'dist/src/mistyped.js')).href)) as { mistyped: unknown };
    expect(built.mistyped).toBe('not a number');
    await rm(join(copy.dir, 'src/mistyped.ts'));
  }, 120_000);

  it('a build that fails leaves the last good dist/ in place and npm start does not start', async () => {
    const before = await buildMarks();
    await writeFile(join(copy.dir, 'src/broken.ts'), 'export const broken: number = ;\n');
    let server: StartedServer | undefined;
    let failure = '';
    try {
      server = await npmStart(copy.dir, { timeoutMs: 300_000 });
    } catch (error) {
      failure = (error as Error).message;
    } finally {
      await server?.stop();
    }
    expect(server, 'the server started on a tree that does not build').toBeUndefined();
    expect(failure).toMatch(/exited with [1-9]/);
    expect(failure).toContain(BUILD_MESSAGE);
    expect(failure).toMatch(/Unexpected ";"[\s\S]*src\/broken\.ts:1:30/);
    expect(failure).toContain('build failed: dist/ is left as it was');
    expect(await buildMarks()).toEqual(before);
  }, 300_000);
});

describe('the built modules', () => {
  it('each link a source map that holds its TypeScript source', async () => {
    const main = await copy.readText('dist/src/main.js');
    expect(main).toMatch(/\n\/\/# sourceMappingURL=main\.js\.map\n$/);
    const map = JSON.parse(await copy.readText('dist/src/main.js.map')) as { sources: string[]; sourcesContent: string[] };
    expect(map.sources).toEqual(['../../src/main.ts']);
    expect(map.sourcesContent).toEqual([await copy.readText('src/main.ts')]);
  });

  it('are JavaScript only: no declaration is written (a package gets its own when it is packed)', async () => {
    const files = await readdir(join(copy.dir, 'dist'), { recursive: true });
    expect(files).toContain(join('node_modules', '@channel-graph', 'client', 'dist', 'packages', 'client', 'src', 'graphql.js'));
    expect(files.filter((file) => file.endsWith('.d.ts'))).toEqual([]);
  });
});

describe('the packages inside dist/', () => {
  it('hold a module for every file each package compiles (its tsconfig.json), where its package.json "exports" point', async () => {
    for (const name of ['oauth2', 'client']) {
      const config = ts.getParsedCommandLineOfConfigFile(join(copy.dir, 'packages', name, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => expect.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')) });
      const home = join(copy.dir, 'dist/node_modules/@channel-graph', name);
      const sources = (config?.fileNames ?? []).map((file) => relative(copy.dir, file));
      expect(sources).toContain(`packages/${name}/src/${name === 'oauth2' ? 'index' : 'graphql'}.ts`);
      for (const source of sources) await expect(stat(join(home, 'dist', source.replace(/\.ts$/, '.js'))), source).resolves.toBeDefined();
      const manifest = JSON.parse(await readFile(join(home, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
      for (const target of Object.values(manifest.exports)) {
        await expect(stat(join(home, typeof target === 'string' ? target : target.default))).resolves.toBeDefined();
      }
    }
  });
});
