/**
 * The fingerprint of generated/: a hash of codegen's inputs (the files codegen.ts's outputs read,
 * codegen.ts itself, our OpenAPI preset, and package-lock.json for the generators' versions) and a
 * hash of every file under generated/, as a codegen run left them. It is committed beside the
 * outputs (`generated/.codegen-fingerprint.json`): `npm run codegen` writes it after graphql-codegen,
 * and the dev loop after each of its runs. So `npm run dev` on a fresh clone sees at once that
 * generated/ is what its inputs give, and generates nothing at start.
 *
 * It is only ever a reason to skip work, never to trust a file: when either hash differs from the
 * files on disk (an input edited, an output touched by hand, another lock file), the dev loop
 * generates everything. graphql-codegen's `--check` is what proves generated/ current;
 * `npm run codegen:check` (CI) also fails on a stale fingerprint, so that a fresh clone of a
 * checked tree starts without generating.
 *
 *   node --import tsx scripts/codegen-fingerprint.ts            writes the fingerprint of the files as they are
 *   node --import tsx scripts/codegen-fingerprint.ts --check    exit 1 when it does not match them
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { glob } from 'tinyglobby';
import config from '../codegen.js';

/** A dot file: not matched by `generated/**`, so the fingerprint does not hash itself. */
const FINGERPRINT_FILE = 'generated/.codegen-fingerprint.json';
/** Besides the inputs of the outputs: what decides how they are generated. */
const GENERATOR_FILES = ['codegen.ts', 'scripts/codegen-openapi.ts', 'scripts/codegen-db.ts', 'src/db/migrate.ts', 'package-lock.json'];

export type CodegenOutput = Exclude<CodegenConfig['generates'][string], unknown[]>;

interface Fingerprint {
  inputs: string;
  outputs: string;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');

/**
 * The input patterns of an output. codegen.ts gives an output whose preset reads other files (the
 * OpenAPI contracts) a schema only because the CLI requires one: its `watchPattern` is its input.
 */
export function inputsOf(output: CodegenOutput): string[] {
  const { watchPattern } = output as { watchPattern?: string | string[] };
  if (watchPattern !== undefined) return asList(watchPattern);
  return [...asList((output as { schema?: unknown }).schema), ...asList((output as { documents?: unknown }).documents)];
}

/** Every input pattern of codegen.ts's outputs. */
export const allInputPatterns = [...new Set(Object.values(config.generates).flatMap((output) => inputsOf(output as CodegenOutput)))];

async function hashFiles(root: string, files: readonly string[]): Promise<string> {
  const contents = await Promise.all(files.map(async (file) => [file, await readFile(join(root, file), 'utf8').catch(() => '')]));
  const hash = createHash('sha256');
  for (const part of contents.flat()) hash.update(part).update('\0');
  return hash.digest('base64url');
}

async function fingerprint(root: string): Promise<Fingerprint> {
  const inputs = [...(await glob(allInputPatterns, { cwd: root, expandDirectories: false })), ...GENERATOR_FILES].sort();
  const generated = (await glob(['generated/**'], { cwd: root, expandDirectories: false })).sort();
  return { inputs: await hashFiles(root, inputs), outputs: await hashFiles(root, generated) };
}

/** The committed fingerprint; undefined when there is none, or not one this module wrote. */
async function readSaved(root: string): Promise<Partial<Fingerprint> | undefined> {
  try {
    return JSON.parse(await readFile(join(root, FINGERPRINT_FILE), 'utf8')) as Partial<Fingerprint>;
  } catch {
    return undefined;
  }
}

/** Whether generated/ under the project directory `root` is what a codegen run made from the inputs as they are now. */
export async function matchesFingerprint(root: string): Promise<boolean> {
  const [now, saved] = await Promise.all([fingerprint(root), readSaved(root)]);
  return saved?.inputs === now.inputs && saved.outputs === now.outputs;
}

/** Whether every output of codegen.ts exists under `root` and generated/ matches its fingerprint: nothing to generate at start. */
export async function generatedIsCurrent(root: string): Promise<boolean> {
  return Object.keys(config.generates).every((path) => existsSync(join(root, path))) && (await matchesFingerprint(root));
}

/** Records the files under the project directory `root` as they are now: call once a codegen run has written them. */
export async function saveFingerprint(root: string): Promise<void> {
  await writeFile(join(root, FINGERPRINT_FILE), `${JSON.stringify(await fingerprint(root), null, 2)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--check')) await saveFingerprint(process.cwd());
  else if (!(await matchesFingerprint(process.cwd()))) {
    process.stderr.write(`${FINGERPRINT_FILE} does not match the codegen inputs and generated/ as they are: run npm run codegen (it writes both)\n`);
    process.exitCode = 1;
  }
}
