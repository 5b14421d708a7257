/**
 * `npm run dev` (scripts/dev.ts) on a copy of the project, serving the Star Wars example, in one run:
 * - an SDL save regenerates the types and the running server serves the new schema (the same
 *   process: no restart), warning that the new field has no resolver, while the typecheck names it
 *   with the file to add it to;
 * - bad input leaves the last good server answering, each with `file:line:column`: an SDL that does
 *   not parse, an SDL codegen cannot build, a resolver module that does not build, one that throws
 *   at import; a codegen process that dies is restarted;
 * - a resolver edit restarts the server on the new code;
 * - 50 files saved in one burst make one regeneration; a deleted generated/ is regenerated;
 * - a second `npm run dev` in the tree is refused and says why, leaving generated/ as it was;
 * - SIGINT stops everything (a codegen process that hangs is killed) and exits 0.
 * Every wait is for a line of output or an answer, never for a time.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { copyProject, type ProjectCopy } from '../support/project-copy.js';

let project: ProjectCopy;
let dev: ChildProcess;
let output = '';

/** Waits until `probe` gives a value, checking every 50 ms; fails with the dev output after `timeoutMs`. */
function devEvent<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 90_000): Promise<Exclude<T, undefined | false>> {
  return eventually(what, probe, { timeoutMs, intervalMs: 50, detail: () => `dev output:\n${output}` });
}

const count = (pattern: RegExp): number => output.match(new RegExp(pattern, 'g'))?.length ?? 0;
/** Waits for one more line matching `pattern` than there were when `since` was taken. */
const untilMore = (what: string, pattern: RegExp, since: number, timeoutMs?: number): Promise<true> =>
  devEvent(what, () => (count(pattern) > since ? true : undefined), timeoutMs);

/** The GraphQL URL of the server now answering: the banner's, or that of its latest restart. */
function graphUrl(): string | undefined {
  const urls = [...output.matchAll(/\[dev\] +GraphQL +(http:\/\/\S+)|\[server\] restarted in \d+ ms \(now at GraphQL (http:\/\/\S+)\)/g)];
  const last = urls.at(-1);
  return (last?.[1] ?? last?.[2])?.replace('localhost', '127.0.0.1');
}

async function query(text: string): Promise<unknown> {
  const response = await fetch(graphUrl() ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }) });
  return response.json();
}

async function generatedDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of (await readdir(join(project.dir, 'generated'), { recursive: true })).sort()) {
    hash.update(file).update(await readFile(join(project.dir, 'generated', file)).catch(() => Buffer.alloc(0)));
  }
  return hash.digest('hex');
}

const SDL = 'examples/starwars/schema/starwars.graphql';
const RESOLVERS = 'examples/starwars/resolvers.ts';
const HUMAN = 'type Human implements Character {\n';

beforeAll(async () => {
  project = await copyProject();
  dev = spawn('npm', ['run', '--silent', 'dev', '--', 'examples/starwars/main.ts'], {
    cwd: project.dir,
    // NODE_ENV unset, as in a terminal (vitest sets it to "test"): `npm run dev` picks development itself.
    env: { ...process.env, NODE_ENV: undefined, PORT: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a failed run can be cleaned up with every child it started.
    detached: true,
  });
  for (const stream of [dev.stdout, dev.stderr]) stream?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  if (dev.pid === undefined) throw new Error('npm run dev did not start');
}, 60_000);

afterAll(async () => {
  if (dev.pid !== undefined && dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid, 'SIGKILL');
  await project.remove();
});

it('swaps a new schema into the running server, keeps the last good one on bad input, restarts on code, and stops on SIGINT', async () => {
  await devEvent('the banner', () => graphUrl());
  expect(output).toMatch(/\[dev\] ready in \d+ ms \(Ctrl-C stops\)/);
  expect(await query('{ hero { name } }')).toEqual({ data: { hero: { name: 'R2-D2' } } });
  // generated/ is what its committed fingerprint says: nothing is generated at start. Then the first typecheck.
  await devEvent('the start-up check of generated/', () => (output.includes('[codegen] generated/ is up to date (its fingerprint matches its inputs)') ? true : undefined));
  expect(output).not.toContain('[codegen] regenerated');
  await devEvent('the first typecheck', () => (/\[types\] .*Found 0 errors/.test(output) ? true : undefined), 240_000);

  // An SDL save: regenerated, and swapped into the same server process.
  const url = graphUrl();
  const sdl = await project.readText(SDL);
  await project.writeText(SDL, sdl.replace(HUMAN, `${HUMAN}  "Height in meters."\n  heightInMeters: String\n`));
  await devEvent('the new schema to be served', () => (/\[server\] new schema served in \d+ ms/.test(output) ? true : undefined));
  expect(await project.readText('generated/starwars/resolvers-types.ts')).toContain('heightInMeters: Resolver<');
  expect(await query('{ human(id: "1000") { name heightInMeters } }')).toEqual({ data: { human: { name: 'Luke Skywalker', heightInMeters: null } } });
  // The same process (a new one would listen on another port, PORT=0, and say "restarted").
  expect(graphUrl()).toBe(url);
  expect(output).not.toContain('[server] restarted');
  expect(output).toMatch(/\[server\] !!! WARNING: 1 schema field\(s\) have no resolver, so they would always be null: Human\.heightInMeters\./);
  await devEvent(
    'the typecheck to name the missing resolver and where to add it',
    () => (/\[types\] {3}↳ no resolver for Human\.heightInMeters: add it to the Human resolvers at examples\/starwars\/resolvers\.ts:\d+:\d+/.test(output) ? true : undefined),
    180_000,
  );
  expect(output).toMatch(/\[types\] examples\/starwars\/resolvers\.ts\(\d+,\d+\): error TS2741: Property 'heightInMeters' is missing/);
  await devEvent('the schema classification', () => (/\[schema\] schema check passed/.test(output) ? true : undefined));

  const answersHeight = { data: { human: { name: 'Luke Skywalker', heightInMeters: null } } };
  const edited = await project.readText(SDL);

  // An SDL save that does not parse: reported with file and line; nothing regenerated or swapped.
  const brokenLine = edited.split('\n').findIndex((line) => line.startsWith('type Droid implements Character {')) + 1;
  await project.writeText(SDL, edited.replace('type Droid implements Character {', 'type Droid implements Character {{'));
  await devEvent('the syntax error with its file and line', () =>
    output.includes(`[codegen]   ${SDL}:${brokenLine}:34 Syntax Error: Expected Name, found "{".`) ? true : undefined,
  );
  expect(await query('{ human(id: "1000") { name heightInMeters } }')).toEqual(answersHeight);

  // An SDL that parses but does not build (codegen fails): the same.
  const unknownLine = edited.split('\n').findIndex((line) => line.includes('heightInMeters: String')) + 1;
  await project.writeText(SDL, edited.replace('heightInMeters: String', 'heightInMeters: Meters'));
  await devEvent('the unknown type with its file and line', () =>
    new RegExp(`\\[codegen\\] {3}${SDL.replaceAll('.', '\\.')}:${unknownLine}:\\d+ Unknown type "Meters"`).test(output) ? true : undefined,
  );
  expect(await query('{ human(id: "1000") { name heightInMeters } }')).toEqual(answersHeight);

  // The SDL fixed: regenerated (no file changes: generated/ is what the last good run made).
  const beforeFix = count(/\[codegen\] regenerated in/g);
  await project.writeText(SDL, edited);
  await untilMore('a regeneration of the fixed SDL', /\[codegen\] regenerated in/g, beforeFix);

  // The codegen process dies: restarted, it finds generated/ up to date, and the next save regenerates.
  // (Killed once it is idle: a broken save can make more than one failing run, and a report of the
  // old process printed after the restart would pass for one of the new.)
  const codegenPid = Number.parseInt(execFileSync('ps', ['-o', 'pid=,args=', '--sid', String(dev.pid)], { encoding: 'utf8' }).split('\n').find((line) => line.includes('dev-codegen.ts')) ?? '', 10);
  const upToDate = count(/\[codegen\] generated\/ is up to date/g);
  process.kill(codegenPid, 'SIGKILL');
  await devEvent('codegen to be restarted', () => (output.includes('[codegen] exited (SIGKILL); restarting it (the server keeps serving)') ? true : undefined));
  await untilMore('the restarted codegen to check generated/', /\[codegen\] generated\/ is up to date/g, upToDate);
  const regenerated = count(/\[codegen\] regenerated in/g);
  await project.writeText(SDL, `${edited}\n# Saved again after the codegen process was restarted.\n`);
  await untilMore('a regeneration by the restarted codegen', /\[codegen\] regenerated in/g, regenerated);
  await project.writeText(SDL, edited);
  await untilMore('a regeneration of the SDL as it was', /\[codegen\] regenerated in/g, regenerated + 1);

  // A resolver module that does not build (a syntax error): the dev build's error located (esbuild's
  // `file:line:column:` line), and the last good server still answers.
  const resolvers = await project.readText(RESOLVERS);
  const refusals = /\[server\] not restarted \(examples\/starwars\/resolvers\.ts changed\): the code does not load/g;
  const unbuildable = resolvers.replace('export const resolvers: Resolvers = {', 'export const resolvers: Resolvers = {{');
  const unbuildableLine = unbuildable.split('\n').findIndex((line) => line.startsWith('export const resolvers: Resolvers = {{')) + 1;
  const refusedBefore = count(refusals);
  await project.writeText(RESOLVERS, unbuildable);
  await devEvent('the build error with its file, line and column', () =>
    new RegExp(`\\[server\\] +${RESOLVERS.replaceAll('.', '\\.')}:${unbuildableLine}:\\d+:`).test(output) ? true : undefined,
  );
  await untilMore('the refusal to replace the server on code that does not build', refusals, refusedBefore);
  expect(await query('{ human(id: "1000") { name heightInMeters } }')).toEqual(answersHeight);

  // A resolver module that throws at import: the same, the throw located (source maps: the TypeScript position).
  const throwing = resolvers.replace('export const resolvers: Resolvers = {', "throw new Error('resolvers cannot load');\nexport const resolvers: Resolvers = {");
  const throwLine = throwing.split('\n').findIndex((line) => line.startsWith('throw new Error')) + 1;
  await project.writeText(RESOLVERS, throwing);
  await devEvent('the import failure with its file, line and column', () =>
    output.includes(`[server] ${RESOLVERS}:${throwLine}:7 Error: resolvers cannot load`) ? true : undefined,
  );
  await untilMore('the refusal to replace the server on code that throws at import', refusals, refusedBefore + 1);
  expect(await query('{ human(id: "1000") { name heightInMeters } }')).toEqual(answersHeight);

  // The resolver implemented: a new server on the new code.
  const restarts = count(/\[server\] restarted in \d+ ms/g);
  await project.writeText(RESOLVERS, resolvers.replace("    homePlanet: property('homePlanet'),\n", "    homePlanet: property('homePlanet'),\n    heightInMeters: () => '1.72',\n"));
  await untilMore('the server to restart on the new code', /\[server\] restarted in \d+ ms/g, restarts);
  expect(await query('{ human(id: "1000") { name heightInMeters } }')).toEqual({ data: { human: { name: 'Luke Skywalker', heightInMeters: '1.72' } } });

  // 50 SDL files saved in one burst: one regeneration, one swap.
  const regenerations = count(/\[codegen\] regenerated in/g);
  const swapsBefore = count(/\[server\] new schema served/g);
  const extra = Array.from({ length: 50 }, (_, index) => `examples/starwars/schema/extra-${index}.graphql`);
  // Written beside the project first (no watcher sees its root), then moved in at once, as a branch
  // switch puts them: 50 renames, not 50 opens, writes and closes spread by a loaded machine.
  await mkdir(join(project.dir, '.burst'));
  await Promise.all(extra.map((_, index) => project.writeText(`.burst/extra-${index}.graphql`, `extend type Human {\n  extra${index}: Int\n}\n`)));
  await Promise.all(extra.map((path, index) => rename(join(project.dir, `.burst/extra-${index}.graphql`), join(project.dir, path))));
  await untilMore('the burst to be regenerated', /\[codegen\] regenerated in/g, regenerations);
  await untilMore('the burst to be served', /\[server\] new schema served/g, swapsBefore);
  expect(await query('{ human(id: "1000") { extra0 extra49 } }')).toEqual({ data: { human: { extra0: null, extra49: null } } });
  await Promise.all(extra.map((path) => rm(join(project.dir, path))));
  await untilMore('the removals to be regenerated', /\[codegen\] regenerated in/g, regenerations + 1);
  await untilMore('the removals to be served', /\[server\] new schema served/g, swapsBefore + 1);
  expect(count(/\[codegen\] regenerated in/g)).toBe(regenerations + 2);
  expect(count(/\[server\] new schema served/g)).toBe(swapsBefore + 2);

  // A second `npm run dev` in the same tree: refused, saying why, and generated/ untouched. Taken
  // here, where every save has been regenerated and served (counted above), so the loop writes nothing.
  const digest = await generatedDigest();
  const second = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'dev', '--', 'examples/starwars/main.ts'], { cwd: project.dir, env: { ...process.env, NODE_ENV: undefined, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('exit', (code) => resolve({ code, text }));
  });
  expect(second.code).toBe(1);
  const owner = /\[dev\] refused: npm run dev is already running in this directory \(pid (\d+), since /.exec(second.text)?.[1];
  expect(owner, second.text).toBeDefined();
  // The PID named is the running loop's.
  expect(execFileSync('ps', ['-o', 'args=', '-p', owner ?? '0'], { encoding: 'utf8' })).toContain('scripts/dev.mjs');
  expect(await generatedDigest()).toBe(digest);

  // generated/ deleted: regenerated.
  await rm(join(project.dir, 'generated'), { recursive: true });
  await devEvent('generated/ to be regenerated', async () => {
    const text = await readFile(join(project.dir, 'generated', 'starwars', 'resolvers-types.ts'), 'utf8').catch(() => '');
    return text.includes('heightInMeters: Resolver<') ? true : undefined;
  });
  await devEvent('every output to be back', async () => {
    const present = await Promise.all(['generated/client/graphql.ts', 'generated/openapi/channel-api.ts', 'generated/channel/resolvers-types.ts'].map((file) => readFile(join(project.dir, file)).then(() => true, () => false)));
    return present.every(Boolean) ? true : undefined;
  });

  // The OpenAPI contracts are followed too.
  const [contract] = (await readdir(join(project.dir, 'openapi'))).filter((name) => name.endsWith('.yaml'));
  if (contract === undefined) throw new Error('openapi/ holds no *.yaml contract to copy');
  await copyFile(join(project.dir, 'openapi', contract), join(project.dir, 'openapi', 'dev-probe.yaml'));
  const probeTypes = await devEvent('openapi types for the new contract', async () => {
    const text = await readFile(join(project.dir, 'generated', 'openapi', 'dev-probe.ts'), 'utf8').catch(() => '');
    return text.includes('export type paths') && text.includes('export type components') ? text : undefined; // complete, not mid-write
  });
  expect(probeTypes).toContain('from openapi/dev-probe.yaml');
  await writeFile(join(project.dir, 'openapi', 'dev-broken.yaml'), 'openapi: 3.1.0\ninfo: [unclosed\n');
  await devEvent('the contract error with its file and line', () => (/\[codegen\] {3}openapi\/dev-broken\.yaml:\d+:\d+ /.test(output) ? true : undefined));

  // A codegen process that cannot let go (SIGSTOP: it answers no signal) must not keep dev from
  // stopping: it is killed.
  const group = dev.pid ?? 0;
  const codegenPids = execFileSync('ps', ['-o', 'pid=,args=', '--sid', String(group)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('dev-codegen.ts'))
    .map((line) => Number.parseInt(line.trim(), 10));
  expect(codegenPids).toHaveLength(1);
  process.kill(codegenPids[0]!, 'SIGSTOP');

  // What Ctrl-C in a terminal does: SIGINT to the whole foreground process group. npm itself then
  // ends by that signal; dev.ts stops its children and exits 0 after logging "stopped".
  const lastUrl = graphUrl() ?? '';
  process.kill(-group, 'SIGINT');
  await devEvent('dev to stop', () => (output.includes('[dev] stopped') ? true : undefined));
  await devEvent('every process of the group to exit', () => {
    try {
      process.kill(-group, 0);
      return undefined;
    } catch {
      return true;
    }
  });
  expect(output).not.toMatch(/ERR_IPC|Unhandled 'error' event/);
  await expect(fetch(lastUrl)).rejects.toThrow();
  await expect(readFile(join(project.dir, '.dev-loop', 'dev.lock'))).rejects.toThrow();
}, 900_000);
