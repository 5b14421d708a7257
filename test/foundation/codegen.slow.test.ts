/**
 * The schema-first loop, proved on a copy of the project:
 * a field added to the Star Wars SDL without a resolver makes `npm run typecheck` fail naming that
 * field, and `npm run codegen:check` (graphql-codegen's check mode) fails listing the stale file and
 * saying to run `npm run codegen`, until it runs; it says when all is current. A codegen error is
 * one message with file and line, no stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, type ProjectCopy, type ScriptRun } from '../support/project-copy.js';

const sdlPath = 'examples/starwars/schema/starwars.graphql';
const staleFile = 'generated/starwars/resolvers-types.ts';

/** Adds `Human.heightInMeters` and the root field `Query.starship`, both without resolvers. */
function addFields(sdl: string): string {
  const withHeight = sdl.replace(
    /(type Human implements Character \{\n)/,
    '$1  "Height in meters."\n  heightInMeters: String\n',
  );
  const withStarship = withHeight.replace(
    /(type Query \{\n)/,
    '$1  "A starship by id."\n  starship(\n    "The starship\'s id."\n    id: String!\n  ): String\n',
  );
  if (withStarship === withHeight || withHeight === sdl) throw new Error(`${sdlPath} no longer has the expected shape`);
  return withStarship;
}

/** `error TS` lines of a tsc run. */
function compilerErrors(output: string): string[] {
  return output.split('\n').filter((line) => line.includes('error TS'));
}

let project: ProjectCopy;
/** `npm run typecheck` of the unmodified copy. */
let baseline: ScriptRun;
beforeAll(async () => {
  // Typechecked from the working tree's records, as a developer's second `npm run typecheck` is:
  // what the test proves is which errors an SDL change brings, not how long a cold check takes.
  project = await copyProject({ typecheckRecords: true });
  // Start from generated files that match the copied sources, whatever state the tree is in.
  const codegen = await project.npmRun('codegen');
  expect(codegen.output).not.toMatch(/error/i);
  expect(codegen.exitCode).toBe(0);
  baseline = await project.npmRun('typecheck');
}, 300_000);
afterAll(() => project.remove());
// Each step runs a whole codegen (every output, the contracts' and migrations' types included) or a
// typecheck in a copy of the project: minutes, not seconds, when the suite loads both cores.

describe('an unmodified project', () => {
  it('passes codegen:check, which says so', async () => {
    const check = await project.npmRun('codegen:check');
    expect(check.output).toMatch(/^codegen:check: generated\/ is current \(\d+ outputs of codegen\.ts checked/m);
    expect(check.exitCode).toBe(0);
  }, 180_000);

  it('typechecks', () => {
    expect(compilerErrors(baseline.output)).toEqual([]);
    expect(baseline.exitCode).toBe(0);
  });
});

describe('after a field is added to the Star Wars SDL', () => {
  beforeAll(async () => {
    await project.writeText(sdlPath, addFields(await project.readText(sdlPath)));
  });

  it('codegen:check fails, listing exactly the stale generated file, until codegen runs', async () => {
    const stale = await project.npmRun('codegen:check');
    expect(stale.exitCode).not.toBe(0);
    // Each stale file on a line of its own, then what to do.
    const listed = stale.output.split('\n').filter((line) => line.startsWith('  '));
    expect(listed).toEqual([`  ${staleFile}`]);
    expect(stale.output).toContain('codegen:check: run `npm run codegen` and commit generated/ with the inputs that changed.');

    expect((await project.npmRun('codegen')).exitCode).toBe(0);
  }, 240_000);

  it('typecheck then fails, naming each new field and the resolver map that lacks it', async () => {
    const generated = await project.readText(staleFile);
    expect(generated).toContain('heightInMeters: Resolver<');
    expect(generated).toContain('starship: Resolver<');

    const typecheck = await project.npmRun('typecheck');
    expect(typecheck.exitCode).not.toBe(0);
    // Compared with the unmodified copy, so that an unrelated error elsewhere cannot hide the point.
    const baselineErrors = compilerErrors(baseline.output);
    const errors = compilerErrors(typecheck.output).filter((line) => !baselineErrors.includes(line));
    expect(errors).toHaveLength(2);
    // Every new error is in the example's resolvers and is about one of the two new fields.
    for (const error of errors) {
      expect(error).toMatch(/^examples\/starwars\/resolvers\.ts\(\d+,\d+\): error TS2741: Property '(heightInMeters|starship)' is missing/);
    }
    expect(typecheck.output).toMatch(/Property 'heightInMeters' is missing in type .* but required in type 'HumanResolvers</);
    expect(typecheck.output).toMatch(/Property 'starship' is missing in type .* but required in type 'QueryResolvers</);
  }, 240_000);
});

describe('a codegen error', () => {
  const channelSdl = 'schema/channel.graphql';
  let original: string;
  beforeAll(async () => {
    original = await project.readText(channelSdl);
  });
  afterAll(() => project.writeText(channelSdl, original));

  it('is one message naming the file, line and problem, without a stack trace, from codegen and codegen:check', async () => {
    await project.writeText(channelSdl, original.replace('type Tier {', 'type Tier {{'));
    const line = original.split('\n').findIndex((text) => text.startsWith('type Tier {')) + 1;
    for (const script of ['codegen', 'codegen:check']) {
      const run = await project.npmRun(script);
      expect(run.exitCode).not.toBe(0);
      expect(run.output).toContain(`codegen failed:\nschema/channel.graphql:${line}:12 Syntax Error: Expected Name, found "{".`);
      expect(run.output).not.toMatch(/^\s+at /m);
      expect(run.output).not.toContain('output: [');
    }
  }, 240_000);

  it('names the operation and field that no longer validate', async () => {
    await project.writeText(channelSdl, original.replace('  "Everything the patron has paid the campaign so far, in cents."\n  lifetimeCents: Int\n', ''));
    const run = await project.npmRun('codegen');
    expect(run.exitCode).not.toBe(0);
    expect(run.output).toMatch(/packages\/client\/operations\/supporter-fields\.graphql:\d+:\d+ fragment SupporterFields: Cannot query field "lifetimeCents" on type "Patron"\./);
    expect(run.output).not.toMatch(/^\s+at /m);
  }, 180_000);
});
