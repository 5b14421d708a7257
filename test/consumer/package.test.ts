import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../http/harness.js';
import { query, startGraphApp } from '../graphql/graph-harness.js';

/**
 * The package as a downstream app gets it: `npm pack` (its prepack builds dist/), the tarball
 * installed into a fresh project, a file importing channel-graph/graphql, /channel-api and /oauth2
 * typechecked (and files with a wrong field name refused), then run against a started server.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

let work: string;
let project: string;

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

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'channel-graph-consumer-'));
  project = join(work, 'downstream');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work, ...NPM_QUIET], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];

  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'downstream', private: true, type: 'module' }));
  await copyFile(join(FIXTURE, 'tsconfig.json.txt'), join(project, 'tsconfig.json'));
  for (const file of await readdir(join(FIXTURE, 'src'))) {
    await copyFile(join(FIXTURE, 'src', file), join(project, 'src', file.replace(/\.txt$/, '')));
  }
  await run('npm', ['install', '--prefer-offline', ...NPM_QUIET, join(work, filename), '@types/node@20'], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package in a fresh project', () => {
  it('typechecks a downstream app importing channel-graph/graphql, /channel-api and /oauth2', async () => {
    const { code, output } = await tsc(['-p', 'tsconfig.json']);
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

  it('runs against a started server: GraphQL and REST agree, the OAuth2 refresh rotates the token', async () => {
    const started = await startGraphApp();
    try {
      const { app } = started;
      const { credentials } = app.sandbox;
      const { stdout } = await run(process.execPath, [join(project, 'dist', 'downstream.js'), `${app.url}/graphql`, app.url, app.sandbox.url, credentials.clientId, credentials.clientSecret, credentials.refreshToken], { cwd: project });
      const result = JSON.parse(stdout);
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
    } finally {
      await started.close();
    }
  });
});
