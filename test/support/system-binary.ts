/**
 * Tests that drive a program of the system (headless Chromium, redis-server). On a developer
 * machine without it their suite is reported skipped, with the reason and how to install it; in CI
 * (`CI=true`) a missing program fails the run instead, so a broken CI image cannot pass silently.
 *
 *   const chromium = findSystemBinary({ name: 'Chromium', command: 'chromium', envVar: 'CHROMIUM_PATH', install: 'apt-get install chromium' });
 *   describeWithBinary(chromium, 'GraphiQL in headless Chromium', (executablePath) => { … });
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { describe, it } from 'vitest';

export interface SystemBinary {
  /** What the program is, for messages (e.g. `redis-server`). */
  name: string;
  /** Its absolute path, undefined when it was not found. */
  path: string | undefined;
  /** Where it was looked for, and how to install it. */
  lookedFor: string;
  install: string;
}

export interface BinaryQuery {
  name: string;
  /** The command, looked up on PATH (or an absolute path). */
  command: string;
  /** An environment variable that, when set, names the program's path instead. */
  envVar?: string;
  /** How to install it, e.g. `apt-get install redis-server`. */
  install: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findSystemBinary(query: BinaryQuery, env: NodeJS.ProcessEnv = process.env): SystemBinary {
  const configured = query.envVar === undefined ? undefined : env[query.envVar];
  if (configured !== undefined && configured !== '') {
    return { name: query.name, path: isExecutable(configured) ? configured : undefined, lookedFor: `${query.envVar}=${configured}`, install: query.install };
  }
  const candidates = isAbsolute(query.command) ? [query.command] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, query.command));
  return { name: query.name, path: candidates.find(isExecutable), lookedFor: isAbsolute(query.command) ? query.command : `${query.command} on PATH`, install: query.install };
}

/** CI sets CI=true (GitHub Actions, GitLab, .ci/run …). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['true', '1'].includes((env.CI ?? '').toLowerCase());
}

export type BinaryRequirement = { run: true; path: string } | { run: false; skipReason: string } | { run: false; failure: string };

/** Whether the suite runs, is skipped (developer machine) or fails (CI) for lack of the program. */
export function binaryRequirement(binary: SystemBinary, ci: boolean): BinaryRequirement {
  if (binary.path !== undefined) return { run: true, path: binary.path };
  const missing = `${binary.name} not found (looked for ${binary.lookedFor}; ${binary.install})`;
  return ci ? { run: false, failure: `${missing}: CI must provide it` } : { run: false, skipReason: `skipped: ${missing}` };
}

/** `describe` for a suite that needs `binary`; `body` gets its path. */
export function describeWithBinary(binary: SystemBinary, title: string, body: (path: string) => void, ci = isCi()): void {
  const requirement = binaryRequirement(binary, ci);
  if (requirement.run) {
    describe(title, () => body(requirement.path));
  } else if ('skipReason' in requirement) {
    // Also on stderr: the default reporter names skipped files, not their titles.
    console.warn(`${title}: ${requirement.skipReason}`);
    describe.skip(`${title} (${requirement.skipReason})`, () => body(''));
  } else {
    describe(title, () => {
      it(`has ${binary.name}`, () => {
        throw new Error(requirement.failure);
      });
    });
  }
}
