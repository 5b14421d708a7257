import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import config from '../../codegen.js';
import { generatedIsCurrent, inputsOf, matchesFingerprint, saveFingerprint } from '../../scripts/codegen-fingerprint.js';

/**
 * The fingerprint `npm run dev` starts from (scripts/codegen-fingerprint.ts), on a small project of
 * codegen.ts's layout: it matches only the inputs and the generated files it was taken of.
 */
let root: string;
const write = async (path: string, text: string): Promise<void> => {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), text);
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'codegen-fingerprint-'));
  await write('schema/channel.graphql', 'type Query { a: Int }\n');
  await write('openapi/channel-api.yaml', 'openapi: 3.1.0\n');
  await write('package-lock.json', '{}\n');
  await write('generated/channel/resolvers-types.ts', 'export type A = number;\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

it('matches the files it was taken of, and no longer once an input, a generated file or the lock file changes', async () => {
  expect(await matchesFingerprint(root)).toBe(false); // none saved yet
  await saveFingerprint(root);
  expect(await matchesFingerprint(root)).toBe(true);
  for (const [path, changed] of [
    ['schema/channel.graphql', 'type Query { a: Int b: Int }\n'],
    ['openapi/channel-api.yaml', 'openapi: 3.1.1\n'],
    ['generated/channel/resolvers-types.ts', 'export type A = string;\n'],
    ['package-lock.json', '{ "lockfileVersion": 3 }\n'],
  ] as const) {
    const original = await readFile(join(root, path), 'utf8');
    await write(path, changed);
    expect(await matchesFingerprint(root), path).toBe(false);
    await write(path, original);
    expect(await matchesFingerprint(root), path).toBe(true);
  }
  // A new generated file, and a new input file, count too.
  await write('generated/channel/extra.ts', '\n');
  expect(await matchesFingerprint(root)).toBe(false);
  await rm(join(root, 'generated/channel/extra.ts'));
  await write('schema/extra.graphql', 'extend type Query { c: Int }\n');
  expect(await matchesFingerprint(root)).toBe(false);
  await rm(join(root, 'schema/extra.graphql'));
  expect(await matchesFingerprint(root)).toBe(true);
});

it('does not hash itself, and a fingerprint that is not one (hand-edited, truncated) never matches', async () => {
  await saveFingerprint(root);
  const saved = await readFile(join(root, 'generated/.codegen-fingerprint.json'), 'utf8');
  await saveFingerprint(root);
  expect(await readFile(join(root, 'generated/.codegen-fingerprint.json'), 'utf8')).toBe(saved);
  await write('generated/.codegen-fingerprint.json', saved.slice(0, 20));
  expect(await matchesFingerprint(root)).toBe(false);
});

it("takes an output's watch pattern as its input when it has one (a preset that reads other files)", () => {
  expect(inputsOf({ schema: 'schema/*.graphql', preset: 'x', watchPattern: 'openapi/*.yaml' } as never)).toEqual(['openapi/*.yaml']);
  expect(inputsOf({ schema: ['a.graphql', 'b.graphql'], documents: 'ops/*.graphql', plugins: [] })).toEqual(['a.graphql', 'b.graphql', 'ops/*.graphql']);
});

it('says generated/ is current (nothing to generate at start) only when every output of codegen.ts exists and the fingerprint matches', async () => {
  // An output is a file, or a directory (a preset's, ending in /).
  const outputs = Object.keys(config.generates);
  for (const path of outputs) await (path.endsWith('/') ? mkdir(join(root, path), { recursive: true }) : write(path, '// generated\n'));
  await saveFingerprint(root);
  expect(await generatedIsCurrent(root)).toBe(true);
  // A missing output is generated even under a fingerprint taken without it.
  const file = outputs.find((path) => !path.endsWith('/')) ?? '';
  await rm(join(root, file));
  await saveFingerprint(root);
  expect(await matchesFingerprint(root)).toBe(true);
  expect(await generatedIsCurrent(root)).toBe(false);
});
