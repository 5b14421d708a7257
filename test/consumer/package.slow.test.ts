import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChannelStatisticsDocument,
  MemberByIdDocument,
  PatronByIdDocument,
  SupportersDocument,
  TiersWithSupportersDocument,
  TopSupporterDocument,
} from '@channel-graph/client/graphql';
import { request } from '../http/harness.js';
import { query, startGraphApp } from '../graphql/graph-harness.js';
import { copyProject, type ProjectCopy } from '../support/project-copy.js';

/**
 * The package as a downstream app gets it: `npm pack` of a temporary copy of the project (its
 * prepack builds dist/ there, not in the working tree), the tarball installed into a fresh project
 * with graphql-request, urql (+ graphcache) and Apollo Client, then:
 * - the tarball holds what the entries need and nothing of the server, sandbox or tests;
 * - a file importing channel-graph/graphql, /channel-api and /oauth2 typechecks (files with a wrong
 *   field name are refused), also under `moduleResolution: node10`;
 * - every shipped operation runs through the three clients against a started server;
 * - examples/downstream/main.ts typechecks and runs against the package.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];
/** The clients a downstream app would use, pinned so that the run is reproducible (npm's cache serves repeats). */
const CLIENTS = ['@types/node@20', 'graphql-request@7.4.0', '@urql/core@6.0.3', '@urql/exchange-graphcache@9.0.2', '@apollo/client@4.3.8', 'rxjs@7.8.2'];

let work: string;
let copy: ProjectCopy;
let project: string;
let packed: string[];

async function tsc(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [TSC, ...args], { cwd: project });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

/** Typechecks one file with the project's compiler options (the package's own .d.ts are checked by the first test). */
async function typecheckOnly(file: string): Promise<{ code: number; output: string }> {
  const config = join(project, `tsconfig.${file.replace(/\W/g, '-')}.json`);
  await writeFile(config, JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true, skipLibCheck: true }, files: [file] }));
  return tsc(['-p', config]);
}

async function runNode(script: string, args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [join(project, 'dist', script), ...args], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'channel-graph-consumer-'));
  project = join(work, 'downstream');
  copy = await copyProject();
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work, ...NPM_QUIET], { cwd: copy.dir, maxBuffer: 64 * 1024 * 1024 });
  const [{ filename, files }] = JSON.parse(stdout) as [{ filename: string; files: Array<{ path: string }> }];
  packed = files.map((file) => file.path);

  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'downstream', private: true, type: 'module' }));
  for (const config of ['tsconfig.json', 'tsconfig.clients.json', 'tsconfig.node10.json']) await copyFile(join(FIXTURE, `${config}.txt`), join(project, config));
  for (const file of await readdir(join(FIXTURE, 'src'))) {
    await copyFile(join(FIXTURE, 'src', file), join(project, 'src', file.replace(/\.txt$/, '')));
  }
  await copyFile(join(ROOT, 'examples', 'downstream', 'main.ts'), join(project, 'src', 'example.ts'));
  await run('npm', ['install', '--prefer-offline', ...NPM_QUIET, join(work, filename), ...CLIENTS], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  await copy?.remove();
});

describe('the tarball', () => {
  it('holds the entries, their generated code, the SDL and the contracts; no server, sandbox, test or source code', () => {
    for (const entry of ['dist/src/oauth2/index.js', 'dist/src/client/graphql.js', 'dist/src/client/graphql-cache.js', 'dist/src/client/channel-api.js']) {
      expect(packed).toContain(entry);
      expect(packed).toContain(entry.replace(/\.js$/, '.d.ts'));
    }
    expect(packed).toContain('dist/generated/client/introspection.json');
    expect(packed).toContain('schema/channel.graphql');
    expect(packed).toContain('openapi/channel-api.yaml');
    const unwanted = packed.filter((path) => /^(dist\/src\/(sandbox|http|graphql|channel|app|main|config)\b|dist\/examples\/|dist\/generated\/(channel|starwars)\/|src\/|test\/|bench\/|scripts\/|released\/|schema\/accepted-changes\.json)/.test(path));
    expect(unwanted).toEqual([]);
  });

  it('resolves every relative import of its code and types to a file it holds', async () => {
    const root = join(project, 'node_modules', 'channel-graph');
    const missing: string[] = [];
    for (const path of packed.filter((file) => /\.(js|d\.ts)$/.test(file))) {
      const text = await readFile(join(root, path), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = normalize(join(dirname(path), specifier ?? ''));
        const wanted = path.endsWith('.d.ts') && target.endsWith('.js') ? target.replace(/\.js$/, '.d.ts') : target;
        if (!packed.includes(wanted)) missing.push(`${path} → ${specifier}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('embeds the TypeScript sources in its source maps (src/ is not shipped)', async () => {
    const maps = packed.filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(10);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(await readFile(join(project, 'node_modules', 'channel-graph', map), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect({ map, embedded: sourcesContent?.length }).toEqual({ map, embedded: sources.length });
      expect(sourcesContent?.every((content) => content.length > 0)).toBe(true);
    }
  });
});

describe('the packed package in a fresh project', () => {
  it('typechecks a downstream app importing channel-graph/graphql, /channel-api and /oauth2, and examples/downstream', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.json']);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('typechecks the three clients on the typed documents and the shipped cache data', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.clients.json']);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('typechecks for a moduleResolution node10 consumer (typesVersions)', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.node10.json']);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('refuses a wrong field name on a GraphQL operation result', async () => {
    const { code, output } = await typecheckOnly('src/wrong-graph-field.ts');
    expect(code).not.toBe(0);
    expect(output).toMatch(/src\/wrong-graph-field\.ts\(\d+,\d+\): error TS2339: Property 'amount' does not exist on type/);
  });

  it('refuses a wrong field name on a REST response', async () => {
    const { code, output } = await typecheckOnly('src/wrong-rest-field.ts');
    expect(code).not.toBe(0);
    expect(output).toMatch(/src\/wrong-rest-field\.ts\(\d+,\d+\): error TS(2339|2551): Property 'subscriberCount' does not exist on type/);
  });

  describe('against a started server', () => {
    let started: Awaited<ReturnType<typeof startGraphApp>>;
    beforeAll(async () => {
      started = await startGraphApp();
    });
    afterAll(() => started.close());

    it('runs: GraphQL and REST agree, the OAuth2 refresh rotates the token', async () => {
      const { app } = started;
      const { credentials } = app.sandbox;
      const result = await runNode('downstream.js', [`${app.url}/graphql`, app.url, app.sandbox.url, credentials.clientId, credentials.clientSecret, credentials.refreshToken]);
      const rest = (await request(app.url, 'GET', '/membership/pledges?sort=amount')).json<{ users: Array<{ id: string }> }>();
      const stats = (await query(app.url, '{ stats { subscribers } }')).data!.stats;
      expect(result).toEqual({
        graphIds: rest.users.map((user) => user.id),
        restIds: rest.users.map((user) => user.id),
        lifetimeKnown: true,
        topAmount: expect.any(Number),
        subscribers: stats.subscribers,
        rotated: true,
      });
    });

    it('runs every shipped operation through graphql-request, urql + graphcache and Apollo Client with the same answers', async () => {
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
      } as const;
      // Every query the package ships is exercised (its subscriptions stream: test/events covers them).
      const manifest = JSON.parse(await readFile(join(ROOT, 'generated', 'client', 'persisted-documents.json'), 'utf8')) as Record<string, string>;
      const shipped = Object.values(manifest).map((text) => /\b(query|subscription) (\w+)/.exec(text));
      expect(shipped.every((match) => match !== null)).toBe(true);
      expect(Object.keys(operations).sort()).toEqual(shipped.filter((match) => match?.[1] === 'query').map((match) => match?.[2]).sort());

      const results = (await runNode('clients.js', [`${app.url}/graphql`, patronId, memberId])) as Record<'graphqlRequest' | 'urql' | 'apollo', Record<string, unknown>> & { datesParsed: Record<string, boolean> };
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
      const result = (await runNode('example.js', [`${app.url}/graphql`])) as { supporters: number; patrons: Array<{ id: string }>; members: Array<{ id: string }>; topSupporter: { __typename: string } | null };
      const pledges = (await request(app.url, 'GET', '/membership/pledges')).json<{ users: Array<{ id: string }> }>().users;
      const members = (await request(app.url, 'GET', '/video/members')).json<{ users: Array<{ id: string }> }>().users;
      expect(result.supporters).toBe(pledges.length + members.length);
      expect(result.patrons.map((patron) => patron.id).sort()).toEqual(pledges.map((user) => user.id).sort());
      expect(result.members.map((member) => member.id).sort()).toEqual(members.map((member) => member.id).sort());
      expect(result.topSupporter?.__typename).toMatch(/^(Patron|ChannelMember)$/);
    });
  });
});
