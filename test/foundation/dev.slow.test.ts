/**
 * `npm run dev` (scripts/dev.ts) on a copy of the project, serving the channel graph, in one run:
 * - a field added to schema/channel.graphql is regenerated and swapped into the running server: the
 *   same process (its PID), and a subscription opened before the swap gets the sandbox's next event;
 *   the typecheck names the missing resolver with the file to add it to;
 * - bad input leaves the running server answering, located `file:line:column`: an SDL that does not
 *   parse, code that does not build;
 * - a resolver edit restarts the server on the new code; a new operation changes the trusted
 *   documents' manifest, which the server imports: it restarts, and serves the operation by its id;
 * - 50 SDL files saved at once are served, then their removal (by a swap or a restart: either serves it);
 * - a deleted generated/ is regenerated; a new OpenAPI contract gets its types, a broken one is located;
 * - a second `npm run dev` in the tree is refused, saying why;
 * - SIGINT stops everything and exits 0.
 * Every wait is for a line of output or an answer, never for a time.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { copyProject, type ProjectCopy } from '../support/project-copy.js';

let project: ProjectCopy;
let dev: ChildProcess;
let output = '';

/** Waits until `probe` gives a value, checking every 50 ms; fails with the dev output after `timeoutMs`. */
function devEvent<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 120_000): Promise<Exclude<T, undefined | false>> {
  return eventually(what, probe, { timeoutMs, intervalMs: 50, detail: () => `dev output:\n${output.slice(-12_000)}` });
}

const count = (pattern: RegExp): number => output.match(new RegExp(pattern, 'g'))?.length ?? 0;

/** The GraphQL URL of the server now answering: the banner's, or that of its latest restart (PORT=0: a new port each time). */
function graphUrl(): string | undefined {
  const urls = [...output.matchAll(/\[dev\] +GraphQL +(http:\/\/\S+)|\[server\] restarted in \d+ ms \(pid \d+, now at GraphQL (http:\/\/[^,\s]+)/g)];
  const last = urls.at(-1);
  return last?.[1] ?? last?.[2];
}

interface Answer {
  data?: Record<string, Record<string, unknown> | null> | null;
  errors?: Array<{ message: string }>;
}

async function query(text: string): Promise<Answer> {
  const response = await fetch(graphUrl() ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }) });
  return (await response.json()) as Answer;
}

/** The answer to `text` once `accept` holds for it (a server restarting does not answer for a moment). */
const answered = (what: string, text: string, accept: (answer: Answer) => boolean): Promise<Answer> =>
  devEvent(what, async () => {
    const answer = await query(text).catch(() => undefined);
    return answer !== undefined && accept(answer) ? answer : undefined;
  });

/** The PID of the server process the loop runs (`node … .dev-build/src/main.js`), from the OS. */
function serverPid(): number | undefined {
  const line = execFileSync('ps', ['-o', 'pid=,args=', '--sid', String(dev.pid)], { encoding: 'utf8' })
    .split('\n')
    .find((entry) => entry.includes('.dev-build/src/main.js'));
  return line === undefined ? undefined : Number.parseInt(line, 10);
}

const SDL = 'schema/channel.graphql';
const RESOLVERS = 'src/graphql/schema/resolvers.ts';
const STALE = '  stale: Boolean!\n';

beforeAll(async () => {
  project = await copyProject();
  dev = spawn('npm', ['run', '--silent', 'dev'], {
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

it('swaps a new channel SDL into the same server process, restarts only on what it imports, keeps serving on bad input, and stops on SIGINT', async () => {
  await devEvent('the banner', () => graphUrl());
  expect(output).toMatch(/\[dev\] ready in \d+ ms \(Ctrl-C stops\)/);
  const sandboxUrl = /\[dev\] +sandbox +(http:\/\/\S+)/.exec(output)?.[1] ?? '';
  expect((await query('{ stats { subscribers } }')).data?.stats?.subscribers).toEqual(expect.any(Number));
  // Every output, the database types among them (migrations applied to an in-memory PGlite): minutes on a loaded machine.
  await devEvent('the start-up run of codegen', () => output.includes('[codegen] generated/ is current (checked in'), 300_000);
  const firstPid = serverPid();
  expect(firstPid).toEqual(expect.any(Number));
  // TypeScript 7's watch sees the saves made after its first check (docs/workflow.md).
  await devEvent('the first typecheck', () => /\[types\] .*Found 0 errors/.test(output), 300_000);

  // A subscription open across the swap (GraphQL over SSE), read as it streams.
  const subscription = await fetch(graphUrl() ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { supporterChanged { change supporter { id } } }' }),
  });
  expect(subscription.status).toBe(200);
  let streamed = '';
  const reader = subscription.body!.getReader();
  void (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) streamed += new TextDecoder().decode(chunk.value);
  })().catch(() => undefined);

  // An SDL save: regenerated, and swapped into the same process. introspection.json is rewritten too,
  // and restarts nothing: the server does not import it.
  const sdl = await project.readText(SDL);
  const withProbe = sdl.replace(STALE, `${STALE}  "Added while npm run dev runs."\n  probe: String\n`);
  expect(withProbe).not.toBe(sdl);
  await project.writeText(SDL, withProbe);
  await answered('the new field to be served', '{ stats { probe } }', (answer) => answer.errors === undefined && answer.data?.stats?.probe === null);
  expect(serverPid()).toBe(firstPid);
  // Said over the server's IPC channel, which may come after the answer.
  await devEvent('the swap to be reported', () => new RegExp(`\\[server\\] new schema served in \\d+ ms \\(pid ${firstPid} kept`).test(output));
  expect(output).not.toContain('[server] restarting');
  expect(output).toMatch(/\[codegen\] regenerated in \d+ ms: .*generated\/channel\/resolvers-types\.ts.*generated\/client\/introspection\.json/);
  expect(await project.readText('generated/channel/resolvers-types.ts')).toContain('probe: Resolver<');
  await devEvent('the warning of the field without a resolver', () => output.includes('[server] !!! WARNING: 1 schema field(s) have no resolver, so they would always be null: ChannelStats.probe.'));

  // The subscription opened before the swap, and the sandbox, are the same: a webhook reaches it.
  const pledges = (await (await fetch(`${new URL(graphUrl() ?? '').origin}/membership/pledges`)).json()) as { users: Array<{ id: string }> };
  const leaving = pledges.users.at(-1)?.id ?? '';
  const webhook = await fetch(`${sandboxUrl}/__sandbox/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${new URL(graphUrl() ?? '').origin}/membership/webhook`, event: 'members:pledge:delete', memberId: leaving }),
  });
  expect(((await webhook.json()) as { status?: number }).status).toBe(204);
  await devEvent('the event on the subscription opened before the swap', () => streamed.includes(`"supporter":{"id":"${leaving}"}`));
  expect(streamed).toContain('"change":"LEFT"');
  await reader.cancel();

  await devEvent(
    'the typecheck to name the missing resolver and where to add it',
    () => /\[types\] {3}↳ no resolver for ChannelStats\.probe: add it to the ChannelStats resolvers at src\/graphql\/schema\/resolvers\.ts:\d+:\d+/.test(output),
    300_000,
  );
  expect(output).toMatch(/\[types\] src\/graphql\/schema\/resolvers\.ts\(\d+,\d+\): error TS2741: Property 'probe' is missing/);
  await devEvent('the schema classification', () => /\[schema\] {3}safe +ChannelStats\.probe: Field 'probe' was added/.test(output));

  // An SDL save that does not parse: located; the running server keeps its schema.
  const brokenLine = withProbe.split('\n').findIndex((line) => line.startsWith('type ChannelStats {')) + 1;
  await project.writeText(SDL, withProbe.replace('type ChannelStats {', 'type ChannelStats {{'));
  await devEvent('the syntax error with its file and line', () => output.includes(`[codegen]   ${SDL}:${brokenLine}:20 Syntax Error: Expected Name, found "{".`));
  expect((await query('{ stats { probe } }')).errors).toBeUndefined();
  const regenerations = count(/\[codegen\] regenerated in/g);
  await project.writeText(SDL, withProbe);
  await devEvent('the fixed SDL to be regenerated', () => count(/\[codegen\] regenerated in/g) > regenerations);

  // Code that does not build: esbuild's error located, and the running server keeps answering.
  const resolvers = await project.readText(RESOLVERS);
  await project.writeText(RESOLVERS, resolvers.replace('    ChannelStats: {', '    ChannelStats: {{'));
  await devEvent('the build error with its file, line and column', () => /\[server\] +src\/graphql\/schema\/resolvers\.ts:\d+:\d+:/.test(output));
  await devEvent('the refusal to restart on code that does not build', () => output.includes('[server] not restarted: the code does not build (above); the running server keeps answering'));
  expect((await query('{ stats { probe } }')).errors).toBeUndefined();
  expect(serverPid()).toBe(firstPid);

  // The resolver implemented: a new server process on the new code.
  await project.writeText(RESOLVERS, resolvers.replace("      stale: property('stale'),\n", "      stale: property('stale'),\n      probe: () => 'probed',\n"));
  await answered('the new resolver to be served', '{ stats { probe } }', (answer) => answer.data?.stats?.probe === 'probed');
  expect(output).toContain('[server] restarting: src/graphql/schema/resolvers.ts changed');
  const secondPid = serverPid();
  expect(secondPid).not.toBe(firstPid);

  // A new operation: the trusted documents' manifest, which the server imports, changes: a restart,
  // and the new server serves the operation by its id.
  await project.writeText('packages/client/operations/dev-probe.graphql', 'query DevProbe {\n  stats {\n    probe\n  }\n}\n');
  const documentId = await devEvent('the manifest to list the new operation', async () => {
    // Read while codegen may be writing it: a cut-short file is "not yet".
    const text = await project.readText('generated/client/persisted-documents.json').catch(() => '');
    const manifest = (() => {
      try {
        return JSON.parse(text) as Record<string, string>;
      } catch {
        return {};
      }
    })();
    return Object.entries(manifest).find(([, document]) => document.includes('DevProbe'))?.[0];
  });
  await devEvent('a restart on the new manifest', () => /\[server\] restarting: .*generated\/client\/persisted-documents\.json.* changed/.test(output));
  const byId = await devEvent('the new operation served by its id', async () => {
    const response = await fetch(graphUrl() ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documentId }) }).catch(() => undefined);
    const answer = (await response?.json().catch(() => undefined)) as Answer | undefined;
    return answer?.data?.stats?.probe === 'probed' ? answer : undefined;
  });
  expect(byId.errors).toBeUndefined();
  expect(serverPid()).not.toBe(secondPid);

  // 50 SDL files in one burst (moved in at once, as a branch switch puts them), then removed: each
  // served, whether by a swap or, when a restart is under way, by the new server reading the SDL.
  const extra = Array.from({ length: 50 }, (_, index) => `schema/extra-${index}.graphql`);
  await mkdir(join(project.dir, '.burst'));
  await Promise.all(extra.map((_, index) => project.writeText(`.burst/extra-${index}.graphql`, `extend type ChannelStats {\n  extra${index}: Int\n}\n`)));
  await Promise.all(extra.map((path, index) => rename(join(project.dir, `.burst/extra-${index}.graphql`), join(project.dir, path))));
  await answered('the burst to be served', '{ stats { extra0 extra49 } }', (answer) => answer.errors === undefined && answer.data?.stats?.extra49 === null);
  await Promise.all(extra.map((path) => rm(join(project.dir, path))));
  await answered('the removals to be served', '{ stats { extra0 } }', (answer) => answer.errors?.[0]?.message.includes('Cannot query field "extra0"') === true);

  // A second `npm run dev` in the same tree: refused, saying why.
  const second = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'dev'], { cwd: project.dir, env: { ...process.env, NODE_ENV: undefined, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('exit', (code) => resolve({ code, text }));
  });
  expect(second.code).toBe(1);
  const owner = /\[dev\] refused: npm run dev is already running in this directory \(pid (\d+), since /.exec(second.text)?.[1];
  expect(owner, second.text).toBeDefined();
  expect(execFileSync('ps', ['-o', 'args=', '-p', owner ?? '0'], { encoding: 'utf8' })).toContain('scripts/dev.ts');

  // generated/ deleted: regenerated, every output. Moved away in one step, as `git clean` or a
  // branch switch can leave it (the watcher then reports the directory alone); a recursive rm here
  // would race the loop, which writes the outputs again while rm walks the tree.
  const removedGenerated = `${project.dir}-generated-removed`;
  await rename(join(project.dir, 'generated'), removedGenerated);
  await rm(removedGenerated, { recursive: true });
  await devEvent('every output to be back', async () => {
    const files = ['generated/channel/resolvers-types.ts', 'generated/client/graphql.ts', 'generated/client/persisted-documents.json', 'generated/openapi/channel-api.ts', 'generated/starwars/resolvers-types.ts', 'generated/db/migrations.ts'];
    const texts = await Promise.all(files.map((file) => readFile(join(project.dir, file), 'utf8').catch(() => '')));
    return texts.every((text) => text !== '') && texts[0]?.includes('probe: Resolver<');
  }, 300_000);

  // The OpenAPI contracts are followed too.
  const [contract] = (await readdir(join(project.dir, 'openapi'))).filter((name) => name.endsWith('.yaml'));
  if (contract === undefined) throw new Error('openapi/ holds no *.yaml contract to copy');
  await copyFile(join(project.dir, 'openapi', contract), join(project.dir, 'openapi', 'dev-probe.yaml'));
  await devEvent('openapi types for the new contract', async () => {
    const text = await readFile(join(project.dir, 'generated', 'openapi', 'dev-probe.ts'), 'utf8').catch(() => '');
    return text.includes('export type paths') && text.includes('export type components'); // complete, not mid-write
  });
  await writeFile(join(project.dir, 'openapi', 'dev-broken.yaml'), 'openapi: 3.1.0\ninfo: [unclosed\n');
  await devEvent('the contract error with its file and line', () => /\[codegen\] {3}openapi\/dev-broken\.yaml:\d+:\d+ /.test(output));

  // What Ctrl-C in a terminal does: SIGINT to the whole foreground process group. npm itself then
  // ends by that signal; the loop stops its children and exits 0 after logging "stopped".
  const group = dev.pid ?? 0;
  const lastUrl = graphUrl() ?? '';
  process.kill(-group, 'SIGINT');
  await devEvent('dev to stop', () => output.includes('[dev] stopped'));
  await devEvent('every process of the group to exit', () => {
    try {
      process.kill(-group, 0);
      return false;
    } catch {
      return true;
    }
  });
  expect(output).not.toMatch(/ERR_IPC|Unhandled 'error' event/);
  await expect(fetch(lastUrl)).rejects.toThrow();
  await expect(readFile(join(project.dir, '.dev-loop', 'dev.lock'))).rejects.toThrow();
}, 900_000);
