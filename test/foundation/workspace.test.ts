/**
 * The workspace agrees with itself: the entries that dev, tests and scripts run from the packages'
 * sources (tsconfig.json "paths", which vitest.config.ts reads too) are exactly each package.json's
 * "exports", file for file; every CHANGELOG.md's latest version is its package.json's; the service
 * depends on the packages' current versions (another range would make npm fetch them from the registry).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/project-copy.js';

const PACKAGES = ['oauth2', 'client'] as const;

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, string | { types: string; default: string }>;
  dependencies?: Record<string, string>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(projectRoot, path), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as T;
const manifest = (name: string): Manifest => readJson(`packages/${name}/package.json`);

describe('tsconfig.json paths and the packages’ exports', () => {
  it('name the same entries, each path the source of what the export ships', () => {
    const { paths } = readJson<{ compilerOptions: { paths: Record<string, string[]> } }>('tsconfig.json').compilerOptions;
    const fromExports: Record<string, string[]> = {};
    for (const name of PACKAGES) {
      const { name: packageName, exports } = manifest(name);
      for (const [subpath, target] of Object.entries(exports)) {
        if (typeof target === 'string') continue; // ./package.json
        const source = target.types.replace(`./dist/packages/${name}/src/`, `./packages/${name}/src/`).replace(/\.d\.ts$/, '.ts');
        expect(target.default.replace(/\.js$/, '.d.ts')).toBe(target.types);
        fromExports[subpath === '.' ? packageName : `${packageName}/${subpath.slice(2)}`] = [source];
      }
    }
    expect(paths).toEqual(fromExports);
  });
});

describe('versions', () => {
  const latest = (changelog: string): string | undefined => /^## (\d+\.\d+\.\d+)\b/m.exec(readFileSync(join(projectRoot, changelog), 'utf8'))?.[1];

  it('each CHANGELOG.md names its package.json version last released', () => {
    expect(latest('CHANGELOG.md')).toBe(readJson<Manifest>('package.json').version);
    for (const name of PACKAGES) expect(latest(`packages/${name}/CHANGELOG.md`)).toBe(manifest(name).version);
  });

  it('the service depends on the current version of each package (npm links it from the workspace)', () => {
    const { dependencies = {} } = readJson<Manifest>('package.json');
    for (const name of PACKAGES) {
      const { name: packageName, version } = manifest(name);
      expect(dependencies[packageName]).toBe(`^${version}`);
    }
  });
});
