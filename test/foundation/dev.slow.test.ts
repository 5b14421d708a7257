/**
 * `npm run dev` (scripts/dev.ts) on a copy of the project, serving the Star Wars example: an SDL
 * save regenerates the types and restarts the server with the new field (warning that it has no
 * resolver, while the incremental typecheck names the missing resolver and the schema classification
 * is printed), an SDL save that does not parse is reported with file and line while the server keeps
 * serving the last good schema, a new OpenAPI contract is turned into types, and SIGINT stops
 * everything with exit code 0.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { copyProject, type ProjectCopy } from '../support/project-copy.js';

let project: ProjectCopy;
let dev: ChildProcess;
let output = '';

/** Waits until `probe` gives a value, checking every 50 ms; fails with the dev output after `timeoutMs`. */
function devEvent<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 60_000): Promise<Exclude<T, undefined | false>> {
  return eventually(what, probe, { timeoutMs, intervalMs: 50, detail: () => `dev output:\n${output}` });
}

const count = (pattern: RegExp): number => output.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
/** graphql-codegen prints it when it starts watching and after every run, failed or not. */
const CODEGEN_RUN_DONE = /\[codegen\] .*Watching for changes/;
/** dev.ts prints it for every regeneration, and restarts the server only after one. */
const REGENERATED = /\[codegen\] regenerated \d+ file\(s\)/;

/** The pid of the [codegen] child (scripts/dev-codegen.ts) in dev's process group. */
function codegenPids(group: number): number[] {
  return execFileSync('ps', ['-o', 'pid=,args=', '--sid', String(group)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('dev-codegen.ts'))
    .map((line) => Number.parseInt(line.trim(), 10));
}

/**
 * Whether process `pid` has an inotify watch on `directory` (Linux: /proc/<pid>/fdinfo lists one line
 * per watch, naming the watched inode in hex). @parcel/watcher's inotify backend watches every
 * directory under the project: once the schema's is watched, a save there is seen.
 */
async function watchesDirectory(pid: number, directory: string): Promise<boolean> {
  const inode = ` ino:${(await stat(directory)).ino.toString(16)} `;
  for (const fd of await readdir(`/proc/${pid}/fdinfo`).catch(() => [])) {
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
    if (info.split('\n').some((line) => line.startsWith('inotify ') && line.includes(inode))) return true;
  }
  return false;
}

/** The URL of the most recent server start logged by the example's main.ts. */
function serverUrls(): string[] {
  return [...output.matchAll(/\[server\] Star Wars graph at (http:\/\/localhost:\d+\/graphql)/g)].map((match) => match[1] ?? '');
}

async function query(url: string, text: string): Promise<unknown> {
  const response = await fetch(url.replace('localhost', '127.0.0.1'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text }),
  });
  return response.json();
}

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

it('serves the graph, regenerates and restarts on an SDL save, follows openapi/, and stops on SIGINT', async () => {
  const firstUrl = await devEvent('the server to start', () => serverUrls()[0]);
  expect(await query(firstUrl, '{ hero { name } }')).toEqual({ data: { hero: { name: 'R2-D2' } } });

  const sdlPath = 'examples/starwars/schema/starwars.graphql';
  const sdl = await project.readText(sdlPath);
  // The watcher subscribes after it first reports "Watching for changes": a save before that is not seen.
  const codegen = await devEvent("the [codegen] child in dev's process group", () => codegenPids(dev.pid ?? 0)[0]);
  await devEvent('the codegen watcher to watch the schema directory', () => watchesDirectory(codegen, join(project.dir, 'examples/starwars/schema')));
  await project.writeText(
    sdlPath,
    sdl.replace('type Human implements Character {\n', 'type Human implements Character {\n  "Height in meters."\n  heightInMeters: String\n'),
  );
  await devEvent('the generated resolver types to name the new field', async () =>
    (await project.readText('generated/starwars/resolvers-types.ts')).includes('heightInMeters: Resolver<') ? true : undefined,
  );
  const restartedUrl = await devEvent('the server to restart', () => serverUrls()[1]);
  expect(await query(restartedUrl, '{ human(id: "1000") { name heightInMeters } }')).toEqual({
    data: { human: { name: 'Luke Skywalker', heightInMeters: null } },
  });
  expect(output).toMatch(/\[server\] !!! WARNING: 1 schema field\(s\) have no resolver, so they would always be null: Human\.heightInMeters\./);
  await devEvent('the schema classification', () => (/\[schema\] schema check passed/.test(output) ? true : undefined));
  await devEvent(
    'the incremental typecheck to name the missing resolver',
    () => (/\[types\] examples\/starwars\/resolvers\.ts\(\d+,\d+\): error TS2741: Property 'heightInMeters' is missing/.test(output) ? true : undefined),
    180_000,
  );

  // A save that does not parse: reported with file and line; no regeneration, no restart.
  const edited = await project.readText(sdlPath);
  const brokenLine = edited.split('\n').findIndex((line) => line.startsWith('type Droid implements Character {')) + 1;
  const [runsBefore, regenerationsBefore] = [count(CODEGEN_RUN_DONE), count(REGENERATED)];
  await project.writeText(sdlPath, edited.replace('type Droid implements Character {', 'type Droid implements Character {{'));
  await devEvent('the syntax error with its file and line', () =>
    output.includes(`[codegen]   ${sdlPath}:${brokenLine}:34 Syntax Error: Expected Name, found "{".`) ? true : undefined,
  );
  // Codegen has finished its run on the broken save (it says so after every run); a regeneration
  // would have been reported before that (its message to dev.ts is sent first), and dev.ts restarts
  // the server only after one.
  await devEvent("codegen's run on the broken save", () => count(CODEGEN_RUN_DONE) > runsBefore);
  expect(count(REGENERATED)).toBe(regenerationsBefore);
  expect(serverUrls()).toHaveLength(2);
  expect(await query(restartedUrl, '{ human(id: "1000") { name heightInMeters } }')).toEqual({
    data: { human: { name: 'Luke Skywalker', heightInMeters: null } },
  });
  await project.writeText(sdlPath, edited);

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

  // A codegen watcher that cannot let go (@parcel/watcher's native unsubscribe can block its thread;
  // SIGSTOP does the same to the whole child) must not keep dev from stopping: it is killed.
  const group = dev.pid ?? 0;
  expect(codegenPids(group)).toEqual([codegen]);
  process.kill(codegen, 'SIGSTOP');

  // What Ctrl-C in a terminal does: SIGINT to the whole foreground process group. npm itself then
  // ends by that signal; dev.ts stops its children and exits 0 after logging "stopped".
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
  await expect(fetch(restartedUrl.replace('localhost', '127.0.0.1'))).rejects.toThrow();
}, 360_000);
