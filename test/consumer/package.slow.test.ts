import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChannelGoalsDocument,
  ChannelHistoryDocument,
  ChannelStatisticsDocument,
  ChannelTotalsDocument,
  MemberByIdDocument,
  NotificationDeliveriesDocument,
  PatronByIdDocument,
  SupporterChangesDocument,
  SupportersDocument,
  SupportersPageDocument,
  TiersWithSupportersDocument,
  TopSupporterDocument,
} from '@channel-graph/client/graphql';
import { request } from '../http/harness.js';
import { memberWithStatus, sendWebhook } from '../events/event-harness.js';
import { query, startGraphApp } from '../graphql/graph-harness.js';
import { eventually } from '../support/eventually.js';
import { installScratchProject, packWorkspacePackages, type PackedPackage, type WorkspacePackage } from '../support/packed-packages.js';

/**
 * The packages as a downstream app gets them: `npm pack` of @channel-graph/client and
 * @channel-graph/oauth2 (from a copy of the project), both tarballs installed into a fresh project
 * with graphql-request, urql (+ graphcache) and Apollo Client, then:
 * - each tarball holds its entries and nothing of the server, the other package or the sources;
 * - the example of each package's README (its ```ts block, extracted here) and
 *   examples/downstream/main.ts typecheck strictly with `moduleResolution` node16 and bundler, and
 *   so does a file whose `@ts-expect-error`s must each meet the error they name (a wrong GraphQL
 *   field, a wrong REST parameter, a wrong REST field);
 * - the same with the floor of the packages' TypeScript (5.4) and the newest (7.x), and each README's
 *   own tsconfig.json with both, its package.json naming the tarball `npm pack` writes;
 * - node10 finds the types through typesVersions; TypeScript 5.3 gets one readable error;
 * - against a started server: every shipped query through graphql-request, urql + graphcache and
 *   Apollo Client; the client README's example (GraphQL, REST, one event of GET /events); the OAuth2
 *   README's example (a client-credentials token from the sandbox's token endpoint, then a call with
 *   it); examples/downstream.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** What a downstream app adds, pinned so that the run is reproducible (npm's cache serves repeats). */
const CLIENTS = ['@types/node@20', 'graphql@16', 'graphql-request@7.4.0', '@urql/core@6.0.3', '@urql/exchange-graphcache@9.0.2', '@apollo/client@4.3.8', 'rxjs@7.8.2'];
/** A TypeScript older than the packages support, in a project of its own. */
const OLD_TYPESCRIPT = 'typescript@5.3.3';
/** The oldest TypeScript the packages support (their READMEs and `types@<5.4` say so), and the newest. */
const SUPPORTED_TYPESCRIPTS = { floor: 'typescript@5.4.5', newest: 'typescript@7.0.2' } as const;

let work: string;
let project: string;
let packed: Record<WorkspacePackage, PackedPackage>;

async function tsc(args: string[], compiler = TSC): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [compiler, ...args], { cwd: project });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

/** The ```<language> blocks of a package's README. */
async function readmeBlocks(name: WorkspacePackage, language: 'ts' | 'json'): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'packages', name, 'README.md'), 'utf8');
  return [...readme.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1] ?? '');
}

/** The one ```ts block of a package's README: its example, compiled and run here as a file of the app. */
async function readmeExample(name: WorkspacePackage): Promise<string> {
  const blocks = await readmeBlocks(name, 'ts');
  expect(blocks, `packages/${name}/README.md has one TypeScript example`).toHaveLength(1);
  return blocks[0] ?? '';
}

/** A package README's consumer package.json and tsconfig.json, in that order. */
async function readmeConsumer(name: WorkspacePackage): Promise<{ packageJson: { type?: string; dependencies?: Record<string, string> }; tsconfig: { compilerOptions: Record<string, unknown> } }> {
  const blocks = await readmeBlocks(name, 'json');
  expect(blocks, `packages/${name}/README.md has a package.json and a tsconfig.json`).toHaveLength(2);
  return { packageJson: JSON.parse(blocks[0] ?? '') as never, tsconfig: JSON.parse(blocks[1] ?? '') as never };
}

/** The tsc of a TypeScript installed in a scratch project of its own under the app. */
const compilerOf = (install: string): string => join(project, install, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs a compiled file of the app with `env`; resolves with its exit code and output once it exits. */
function runApp(script: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [join(project, 'dist', script), ...args], { cwd: project, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, output }));
  return { exited, output: () => output, kill: () => child.kill() };
}

async function runJson(script: string, args: string[]): Promise<unknown> {
  const { code, output } = await runApp(script, {}, args).exited;
  expect(code, output).toBe(0);
  return JSON.parse(output);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'channel-graph-consumer-'));
  project = join(work, 'downstream');
  packed = await packWorkspacePackages(work);

  await mkdir(join(project, 'src'), { recursive: true });
  for (const config of await readdir(FIXTURE)) {
    if (config.endsWith('.json.txt')) await copyFile(join(FIXTURE, config), join(project, config.replace(/\.txt$/, '')));
  }
  for (const file of await readdir(join(FIXTURE, 'src'))) await copyFile(join(FIXTURE, 'src', file), join(project, 'src', file.replace(/\.txt$/, '')));
  for (const name of ['client', 'oauth2'] as const) await writeFile(join(project, 'src', `readme-${name}.ts`), await readmeExample(name));
  await copyFile(join(ROOT, 'examples', 'downstream', 'main.ts'), join(project, 'src', 'example.ts'));
  await installScratchProject(project, [packed.client.tarball, packed.oauth2.tarball, ...CLIENTS]);
  await installScratchProject(join(project, 'old-typescript'), [OLD_TYPESCRIPT]);
  for (const [install, typescript] of Object.entries(SUPPORTED_TYPESCRIPTS)) await installScratchProject(join(project, `typescript-${install}`), [typescript]);
  // Each README's tsconfig.json, for its example alone (the README's `include` is the app's src/).
  for (const name of ['client', 'oauth2'] as const) {
    const { tsconfig } = await readmeConsumer(name);
    await writeFile(join(project, `tsconfig.readme-${name}.json`), JSON.stringify({ compilerOptions: { ...tsconfig.compilerOptions, noEmit: true }, files: [`src/readme-${name}.ts`] }));
  }
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each([
  ['client', ['graphql', 'graphql-cache', 'persisted-documents', 'rest', 'events'], /^dist\/generated\/client\/introspection\.json$/, true],
  // No source maps: its installed size stays within 1 MB on the disk (budgets.slow.test.ts).
  ['oauth2', ['index', 'assertion', 'undici'], /^dist\/generated\/openapi\/oauth2\.d\.ts$/, false],
] as const)('the @channel-graph/%s tarball', (name, entries, generated, sourceMaps) => {
  const files = () => packed[name].files;

  it('holds its entries, the generated code they ship and its README; nothing of the server, the other package or the sources', () => {
    for (const entry of entries) {
      expect(files()).toContain(`dist/packages/${name}/src/${entry}.js`);
      expect(files()).toContain(`dist/packages/${name}/src/${entry}.d.ts`);
    }
    expect(files().some((file) => generated.test(file))).toBe(true);
    expect(files()).toContain('README.md');
    const other = name === 'client' ? 'oauth2' : 'client';
    const unwanted = files().filter((path) => /^(src\/|dist\/src\/|operations\/|tsconfig|dist\/\.tsbuildinfo)/.test(path) || path.startsWith(`dist/packages/${other}/`) || /dist\/generated\/(channel|starwars)\//.test(path));
    expect(unwanted).toEqual([]);
  });

  it('resolves every relative import of its code and types to a file it holds', async () => {
    const root = join(project, 'node_modules', '@channel-graph', name);
    const missing: string[] = [];
    for (const path of files().filter((file) => /\.(js|d\.ts)$/.test(file))) {
      const text = await readFile(join(root, path), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = normalize(join(dirname(path), specifier ?? ''));
        const wanted = path.endsWith('.d.ts') && target.endsWith('.js') ? target.replace(/\.js$/, '.d.ts') : target;
        if (!files().includes(wanted)) missing.push(`${path} → ${specifier}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it(`${sourceMaps ? 'embeds the TypeScript sources in its source maps' : 'ships no source maps'} (the sources are not shipped)`, async () => {
    const maps = files().filter((file) => file.endsWith('.js.map'));
    if (!sourceMaps) {
      expect(maps).toEqual([]);
      return;
    }
    expect(maps.length).toBeGreaterThanOrEqual(entries.length);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(await readFile(join(project, 'node_modules', '@channel-graph', name, map), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect({ map, embedded: sourcesContent?.length }).toEqual({ map, embedded: sources.length });
    }
  });
});

describe('the packed packages in a fresh project', () => {
  it.each(['node16', 'bundler'])('typecheck strictly under moduleResolution %s: the READMEs’ examples, examples/downstream, and each @ts-expect-error met', async (resolution) => {
    const { code, output } = await tsc(['-p', `tsconfig.${resolution}.json`]);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  // Four whole typechecks, each with a compiler of its own: minutes on a loaded machine.
  it.each(Object.entries(SUPPORTED_TYPESCRIPTS))('typecheck the same with the %s TypeScript (%s), and each README example with its README\'s tsconfig.json', async (install) => {
    for (const config of ['tsconfig.node16.json', 'tsconfig.bundler.json', 'tsconfig.readme-client.json', 'tsconfig.readme-oauth2.json']) {
      const { code, output } = await tsc(['-p', config, '--noEmit'], compilerOf(`typescript-${install}`));
      expect(output, config).toBe('');
      expect(code, config).toBe(0);
    }
  }, 300_000);

  it.each(['client', 'oauth2'] as const)('the %s README\'s package.json is an ES module app that depends on the tarball npm pack writes', async (name) => {
    const { packageJson } = await readmeConsumer(name);
    expect(packageJson.type).toBe('module');
    expect(packageJson.dependencies?.[`@channel-graph/${name}`]).toBe(`file:../channel-graph/${basename(packed[name].tarball)}`);
  });

  it('refuse a wrong GraphQL field, a wrong REST parameter and a wrong REST field, each where it is', async () => {
    const source = await readFile(join(project, 'src', 'refusals.ts'), 'utf8');
    const lines = source.split('\n');
    const unguarded = lines.filter((line) => !line.includes('@ts-expect-error')).join('\n');
    await writeFile(join(project, 'src', 'unguarded.ts'), unguarded);
    // The declaration files are the node16 typecheck's: checked there, skipped here (most of a check's time).
    await writeFile(join(project, 'tsconfig.unguarded.json'), JSON.stringify({ extends: './tsconfig.node16.json', compilerOptions: { noEmit: true, skipLibCheck: true }, files: ['src/unguarded.ts'] }));
    const { code, output } = await tsc(['-p', 'tsconfig.unguarded.json']);
    expect(code).not.toBe(0);
    const errors = output.split('\n').filter((line) => line.includes('error TS'));
    const lineOf = (text: string) => unguarded.split('\n').findIndex((line) => line.includes(text)) + 1;
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(new RegExp(`^src/unguarded\\.ts\\(${lineOf('?.amount)')},\\d+\\): error TS2339: Property 'amount' does not exist`));
    expect(errors[1]).toMatch(new RegExp(`^src/unguarded\\.ts\\(${lineOf('order:')},\\d+\\): error TS2353: .*'order' does not exist`));
    expect(errors[2]).toMatch(new RegExp(`^src/unguarded\\.ts\\(${lineOf('subscriberCount')},\\d+\\): error TS(2339|2551): Property 'subscriberCount' does not exist`));
  });

  it('typecheck the three GraphQL clients on the typed documents and the shipped cache data', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.clients.json']);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('typecheck for a moduleResolution node10 consumer (typesVersions)', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.node10.json']);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('give a TypeScript older than 5.4 one error per package, in the file that says which TypeScript is needed', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.old-typescript.json'], compilerOf('old-typescript'));
    expect(code).not.toBe(0);
    const errors = output.split('\n').filter((line) => line.includes('error TS'));
    expect(errors.map((line) => /^node_modules\/@channel-graph\/(\w+)\/needs-typescript-5\.4-or-newer\.d\.ts\(\d+,\d+\): error TS/.exec(line)?.[1]).sort()).toEqual(['client', 'oauth2']);
    for (const name of ['client', 'oauth2']) {
      const file = await readFile(join(project, 'node_modules', '@channel-graph', name, 'needs-typescript-5.4-or-newer.d.ts'), 'utf8');
      expect(file).toContain(`@channel-graph/${name} needs TypeScript 5.4 or newer`);
    }
  });

  describe('against a started server', () => {
    let started: Awaited<ReturnType<typeof startGraphApp>>;
    beforeAll(async () => {
      // The app's JavaScript. The typechecks above have emitted it (tsc emits despite type errors);
      // a run of these tests alone emits it here, so the runs do not depend on the typechecks.
      for (const [config, emits] of [['tsconfig.node16.json', 'example.js'], ['tsconfig.clients.json', 'clients.js']] as const) {
        if (existsSync(join(project, 'dist', emits))) continue;
        const emitted = await tsc(['-p', config, '--noCheck']);
        expect(emitted.output).toBe('');
      }
      started = await startGraphApp({}, {}, { history: true });
    }, 120_000);
    afterAll(() => started.close());

    it("runs the client README's example: GraphQL and REST answers as the server's, then one live event", async () => {
      const { app } = started;
      const listening = app.events.listenerCount;
      const example = runApp('readme-client.js', { CHANNEL_GRAPH_URL: app.url });
      try {
        // The example has printed its GraphQL and REST answers once it listens to GET /events.
        await eventually('the example to open GET /events', () => app.events.listenerCount !== listening, { timeoutMs: 60_000, detail: () => example.output() });
        // What the server answered the example (the event below adds a supporter).
        const { supporters } = (await query(app.url, print(SupportersDocument), { orderBy: 'AMOUNT' })).data as { supporters: Array<{ amountCents: number }> };
        const stats = (await request(app.url, 'GET', '/video/stats')).json<{ subscribers: number | null }>();
        const newcomer = memberWithStatus(app.sandbox, 'former_patron');
        await sendWebhook(app.sandbox, app.url, 'members:pledge:create', newcomer.id, app.sandbox.datasets.membership.tiers[1]!.id);
        const { code, output } = await example.exited;
        expect(code, output).toBe(0);
        const lines = output.trim().split('\n');
        const graphLines = lines.filter((line) => line.startsWith('graphql: '));
        expect(graphLines.map((line) => /gives (\d+) cents/.exec(line)?.[1])).toEqual(supporters.map((supporter) => String(supporter.amountCents)));
        expect(lines).toContain(`rest: ${stats.subscribers ?? 'unknown'} subscribers`);
        expect(lines.filter((line) => line.startsWith('event: '))).toEqual([lines.at(-1)]);
        expect(lines.at(-1)).toMatch(/^event: joined \S/);
      } finally {
        example.kill();
      }
    }, 120_000);

    it("runs the OAuth2 README's example: a client-credentials token from the sandbox's token endpoint, then a call with it", async () => {
      const { sandbox } = started.app;
      const { code, output } = await runApp('readme-oauth2.js', {
        OAUTH2_CLIENT_ID: sandbox.credentials.clientId,
        OAUTH2_CLIENT_SECRET: sandbox.credentials.clientSecret,
        OAUTH2_SITE: sandbox.url,
        OAUTH2_TOKEN_PATH: '/api/oauth2/token',
        OAUTH2_RESOURCE: `/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}`,
      }).exited;
      expect(code, output).toBe(0);
      expect(output).toMatch(/^token: [1-9]\d* characters, expires \d{4}-\d\d-\d\dT/m);
      expect(output).toMatch(/^resource: HTTP 200$/m);
    });

    it('runs every shipped query through graphql-request, urql + graphcache and Apollo Client with the same answers', async () => {
      const { app } = started;
      const patronId = (await request(app.url, 'GET', '/membership/pledges')).json<{ users: Array<{ id: string }> }>().users[0]!.id;
      const memberId = (await request(app.url, 'GET', '/video/members')).json<{ users: Array<{ id: string }> }>().users[0]!.id;
      const operations = {
        Supporters: [SupportersDocument, { orderBy: 'AMOUNT' }],
        TopSupporter: [TopSupporterDocument, {}],
        PatronById: [PatronByIdDocument, { id: patronId }],
        MemberById: [MemberByIdDocument, { id: memberId }],
        TiersWithSupporters: [TiersWithSupportersDocument, {}],
        ChannelStatistics: [ChannelStatisticsDocument, {}],
        ChannelTotals: [ChannelTotalsDocument, {}],
        ChannelHistory: [ChannelHistoryDocument, { from: '2025-01-01T00:00:00Z', interval: 'MONTH' }],
        SupporterChanges: [SupporterChangesDocument, { since: '2025-01-01T00:00:00Z', first: 10 }],
        SupportersPage: [SupportersPageDocument, { first: 5, orderBy: 'AMOUNT' }],
        ChannelGoals: [ChannelGoalsDocument, {}],
        NotificationDeliveries: [NotificationDeliveriesDocument, { first: 5 }],
      } as const;
      // The history's queries need its database open.
      await eventually('the history database to open', () => app.history?.health().state === 'open', { timeoutMs: 90_000 });
      // Every query the package ships is exercised (its subscriptions stream: test/events covers them).
      const manifest = JSON.parse(await readFile(join(ROOT, 'generated', 'client', 'persisted-documents.json'), 'utf8')) as Record<string, string>;
      const shipped = Object.values(manifest).map((text) => /\b(query|subscription) (\w+)/.exec(text));
      expect(shipped.every((match) => match !== null)).toBe(true);
      expect(Object.keys(operations).sort()).toEqual(shipped.filter((match) => match?.[1] === 'query').map((match) => match?.[2]).sort());

      const results = (await runJson('clients.js', [`${app.url}/graphql`, patronId, memberId])) as Record<'graphqlRequest' | 'urql' | 'apollo', Record<string, unknown>> & { datesParsed: Record<string, boolean> };
      for (const [name, [document, variables]] of Object.entries(operations)) {
        const expected = (await query(app.url, print(document), variables)).data;
        expect(expected).toBeTruthy();
        expect(results.graphqlRequest[name]).toEqual(expected);
        // The caching clients add `__typename` to every object; everything else is the same.
        expect(results.urql[name]).toMatchObject(expected as object);
        expect(results.apollo[name]).toMatchObject(expected as object);
      }
      // Fragments on Supporter resolved to the concrete type: the Patron / ChannelMember fields are there.
      for (const client of ['graphqlRequest', 'urql', 'apollo'] as const) {
        const supporters = (results[client]['Supporters'] as { supporters: Array<Record<string, unknown>> }).supporters;
        expect(supporters.length).toBeGreaterThan(0);
        for (const supporter of supporters) {
          expect(supporter['__typename']).toBe(supporter['platform'] === 'MEMBERSHIP' ? 'Patron' : 'ChannelMember');
          expect(supporter).toHaveProperty(supporter['__typename'] === 'Patron' ? 'lifetimeCents' : 'daysAtTier');
        }
        expect((results[client]['PatronById'] as { patron: { __typename: string } }).patron.__typename).toBe('Patron');
        expect((results[client]['MemberById'] as { member: { __typename: string } }).member.__typename).toBe('ChannelMember');
      }
      // DateTime values parsed by the clients that can: Apollo's type policies, urql graphcache's resolvers.
      expect(results.datesParsed).toEqual({ urql: true, apollo: true });
    });

    it('runs examples/downstream against it', async () => {
      const { app } = started;
      const result = (await runJson('example.js', [`${app.url}/graphql`])) as { supporters: number; patrons: Array<{ id: string }>; members: Array<{ id: string }>; topSupporter: { __typename: string } | null };
      const pledges = (await request(app.url, 'GET', '/membership/pledges')).json<{ users: Array<{ id: string }> }>().users;
      const members = (await request(app.url, 'GET', '/video/members')).json<{ users: Array<{ id: string }> }>().users;
      expect(result.supporters).toBe(pledges.length + members.length);
      expect(result.patrons.map((patron) => patron.id).sort()).toEqual(pledges.map((user) => user.id).sort());
      expect(result.members.map((member) => member.id).sort()).toEqual(members.map((member) => member.id).sort());
      expect(result.topSupporter?.__typename).toMatch(/^(Patron|ChannelMember)$/);
    });
  });
});
