/**
 * `npm run schema:check` and `npm run schema:release` (the breaking-change check) on a copy
 * of the project: a breaking SDL edit and a breaking OpenAPI edit each fail with the path named, a
 * safe edit passes, an operation that no longer validates is named, an accepted breaking change
 * passes and is written by the release as a changeset of @channel-graph/client (which `changeset
 * version` turns into its next major version and changelog entry), and `--base <git ref>` compares
 * with a commit.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, projectRoot, type ProjectCopy } from '../support/project-copy.js';

const SDL = 'schema/channel.graphql';
const CONTRACT = 'openapi/channel-api.yaml';
const ACCEPTED = 'schema/accepted-changes.json';

let project: ProjectCopy;
const originals = new Map<string, string>();

async function edit(path: string, change: (text: string) => string): Promise<void> {
  if (!originals.has(path)) originals.set(path, await project.readText(path));
  const before = await project.readText(path);
  const after = change(before);
  if (after === before) throw new Error(`${path} no longer has the expected shape`);
  await project.writeText(path, after);
}

/** Adds a described field to ChannelMember: a safe change. */
const addMonths = (sdl: string): string =>
  sdl.replace('  daysAtTier: Int\n}', '  daysAtTier: Int\n  "Whole months at the current level."\n  monthsAtTier: Int\n}');
/** Tier.amountCents from Int to String: breaking for clients, while every shipped operation still validates. */
const retypeAmount = (sdl: string): string =>
  sdl.replace('"The monthly price of the tier, in cents; null when the platform does not say."\n  amountCents: Int', '"The monthly price of the tier, in cents; null when the platform does not say."\n  amountCents: String');

beforeAll(async () => {
  project = await copyProject();
}, 60_000);
afterAll(() => project.remove());
afterEach(async () => {
  for (const [path, text] of originals) await project.writeText(path, text);
  originals.clear();
});

describe('schema:check', () => {
  it('passes on the released contracts', async () => {
    const check = await project.npmRun('schema:check');
    expect(check.output).toContain('no change since released/');
    expect(check.exitCode).toBe(0);
  }, 60_000);

  it('passes a safe SDL edit, listing it as safe with its path', async () => {
    await edit(SDL, addMonths);
    const check = await project.npmRun('schema:check');
    expect(check.output).toMatch(/^ {2}safe +ChannelMember\.monthsAtTier: Field 'monthsAtTier' was added to object type 'ChannelMember'/m);
    expect(check.output).toContain('schema check passed');
    expect(check.exitCode).toBe(0);
  }, 60_000);

  it('fails a breaking SDL edit, naming the field path and the reason', async () => {
    await edit(SDL, retypeAmount);
    const check = await project.npmRun('schema:check');
    expect(check.output).toMatch(/^ {2}breaking +Tier\.amountCents: Field 'Tier\.amountCents' changed type from 'Int' to 'String'/m);
    expect(check.output).toContain('[schema FIELD_TYPE_CHANGED Tier.amountCents]');
    expect(check.output).toContain('1 breaking change(s) not accepted');
    expect(check.exitCode).toBe(1);
  }, 60_000);

  it('fails a breaking OpenAPI edit, naming the JSON path', async () => {
    await edit(CONTRACT, (yaml) =>
      yaml
        .replace("        subscribers:\n          type: [integer, 'null']\n          minimum: 0\n          description: Lifetime subscriber count; null when the dashboard gives none.\n", '')
        .replace('required: [subscribers, fetched_at, stale]', 'required: [fetched_at, stale]'),
    );
    const check = await project.npmRun('schema:check');
    expect(check.output).toMatch(/^ {2}breaking +openapi\/channel-api\.yaml \/paths\/~1video~1stats\/get\/responses\/200\/content\/application~1json\/schema\/properties\/subscribers: \[Removed\] property `subscribers`/m);
    expect(check.exitCode).toBe(1);
  }, 60_000);

  it('fails a new required OpenAPI parameter', async () => {
    await edit(CONTRACT, (yaml) =>
      yaml.replace(
        "      summary: The video channel's statistics.\n      parameters:\n",
        "      summary: The video channel's statistics.\n      parameters:\n        - name: channel\n          in: query\n          required: true\n          schema: { type: string }\n",
      ),
    );
    const check = await project.npmRun('schema:check');
    expect(check.output).toMatch(/^ {2}breaking +openapi\/channel-api\.yaml \/paths\/~1video~1stats\/get\/parameters\/\d+: \[Added\] required query parameter `channel`/m);
    expect(check.exitCode).toBe(1);
  }, 60_000);

  it('names every shipped operation and trusted document that no longer validates', async () => {
    await edit(SDL, (sdl) => sdl.replace('  "Everything the patron has paid the campaign so far, in cents."\n  lifetimeCents: Int\n', ''));
    const check = await project.npmRun('schema:check');
    expect(check.output).toMatch(/^ {2}breaking +Patron\.lifetimeCents: Field 'lifetimeCents' was removed from object type 'Patron'/m);
    expect(check.output).toMatch(/^ {2}packages\/client\/operations\/supporter-fields\.graphql:\d+:\d+ fragment SupporterFields: Cannot query field "lifetimeCents" on type "Patron"\./m);
    // Each persisted document spreading the fragment, named by operation and id.
    for (const operation of ['Supporters', 'TopSupporter', 'PatronById', 'MemberById', 'SupportersPage']) {
      expect(check.output).toMatch(new RegExp(`generated/client/persisted-documents\\.json \\[query ${operation}, sha256:[0-9a-f]{64}\\]:\\d+:\\d+ fragment SupporterFields: Cannot query field "lifetimeCents"`));
    }
    // The closing hint says to fix them, not only how to accept the breaking change.
    expect(check.output).toMatch(/^7 operation\(s\) above no longer valid: fix each at its file:line:column/m); // as many as are listed
    expect(check.output).toContain('1 breaking change(s) not accepted');
    expect(check.exitCode).toBe(1);
  }, 60_000);

  it("passes an accepted breaking change, which schema:release then writes as a major changeset of @channel-graph/client, and changeset version into its CHANGELOG.md", async () => {
    await edit(SDL, (sdl) => addMonths(retypeAmount(sdl)));
    await edit(ACCEPTED, () =>
      JSON.stringify({ accepted: [{ change: 'schema FIELD_TYPE_CHANGED Tier.amountCents', reason: 'Amounts become decimal strings.' }] }),
    );
    const check = await project.npmRun('schema:check');
    expect(check.output).toContain('accepted  [schema FIELD_TYPE_CHANGED Tier.amountCents]: Amounts become decimal strings.');
    expect(check.exitCode).toBe(0);

    const clientVersion = (JSON.parse(await project.readText('packages/client/package.json')) as { version: string }).version;
    const release = await project.npmRun('schema:release');
    expect(release.exitCode, release.output).toBe(0);
    const [written] = /\.changeset\/contracts-\d+\.md/.exec(release.output) ?? [];
    expect(written, release.output).toBeDefined();
    expect(await project.readText(written!)).toMatch(
      /^---\n"@channel-graph\/client": major\n---\n\nContract changes since the previous release:\n\n\*\*GraphQL schema\*\*\n\n- \*\*breaking\*\* `Tier\.amountCents`: .*\(accepted: Amounts become decimal strings\.\)\n(?:- .*\n)*- \*\*safe\*\* `ChannelMember\.monthsAtTier`/,
    );
    // The changesets CLI turns it into the package's next major version and its changelog entry.
    const version = await promisify(execFile)(process.execPath, [join(projectRoot, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], { cwd: project.dir });
    expect(version.stderr).not.toMatch(/error/i);
    const bumped = (JSON.parse(await project.readText('packages/client/package.json')) as { version: string }).version;
    expect(Number(bumped.split('.')[0])).toBe(Number(clientVersion.split('.')[0]) + 1);
    const changelog = await project.readText('packages/client/CHANGELOG.md');
    expect(changelog).toMatch(new RegExp(`^# @channel-graph/client\\n\\n## ${bumped.replace(/\./g, '\\.')}\\n\\n### Major Changes\\n\\n- Contract changes since the previous release:`));
    expect(changelog).toContain('- **breaking** `Tier.amountCents`');
    expect(JSON.parse(await project.readText(ACCEPTED))).toEqual({ accepted: [] });
    expect(await project.readText('released/schema.graphql')).toContain('monthsAtTier: Int');
    const after = await project.npmRun('schema:check');
    expect(after.output).toContain('no change since released/');
    expect(after.exitCode).toBe(0);
  }, 90_000);

  it('compares with a git revision given by --base', async () => {
    const git = (...args: string[]) => promisify(execFile)('git', args, { cwd: project.dir });
    await git('init', '-q');
    await git('add', '-A');
    await git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'base');
    await edit(SDL, retypeAmount);
    const check = await project.npmRun('schema:check', ['--base', 'HEAD']);
    expect(check.output).toContain('changes since git HEAD: 1 breaking');
    expect(check.output).toContain('[schema FIELD_TYPE_CHANGED Tier.amountCents]');
    expect(check.exitCode).toBe(1);
  }, 60_000);
});
