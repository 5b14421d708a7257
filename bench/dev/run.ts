/**
 * The dev loop's waits (`npm run dev`), each against the usual setup on the same SDL — graphql-yoga +
 * `graphql-codegen --watch` + `tsc --watch` + `tsx watch` (bench/dev/peer.ts) — in one run, as
 * ours ÷ peer, with the machine's 1-minute load average beside every figure:
 *   first answer, first codegen, first typecheck — `npm run dev` (the channel service, and the Star
 *     Wars example the loop steps use), from the command to the first GraphQL answer, to codegen's
 *     first run done, to the checker's first "Found 0 errors"; the channel's are the medians of
 *     BENCH_RUNS first starts, each in a fresh copy of the project;
 *   SDL save → types written → new schema served → TypeScript error naming the missing resolver
 *     printed; resolver implemented → served (Star Wars example; BENCH_RUNS saves, default 3).
 * Also: a code edit → the restarted channel server answers, and tsgo's diagnostics against tsc's on
 * the project with a missing resolver.
 * Targets (quiet machine: each first start waits until the 1-minute load average is at most
 * BENCH_QUIET_LOAD, default 1, for up to two minutes): first answer ≤ 3 s, first codegen ≤ 3 s,
 * first typecheck ≤ 10 s, SDL → types ≤ 0.3 s, → served ≤ 1 s, → error printed ≤ 2 s,
 * resolver edit → served ≤ 1.5 s.
 * Run: `npx tsx bench/dev/run.ts`; results in bench/results/dev.json.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { copyProject, formatTable, projectRoot, saveResults, type ProjectCopy } from '../lib/index.js';
import { PEER_FILES, PEER_WATCHERS } from './peer.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const SDL = 'examples/starwars/schema/starwars.graphql';
const HUMAN = 'type Human implements Character {\n';
const TARGETS_MS = { firstAnswer: 3000, firstCodegen: 3000, firstTypecheck: 10_000, sdlToTypes: 300, sdlToServed: 1000, sdlToError: 2000, resolverToServed: 1500 } as const;
type Step = keyof typeof TARGETS_MS;

interface Sample {
  ms: number;
  /** The 1-minute load average when the step ended. */
  load: number;
}

const sample = (since: number): Sample => ({ ms: Math.round(performance.now() - since), load: Math.round(loadavg()[0]! * 100) / 100 });

/** The 1-minute load average a first start waits for (BENCH_QUIET_LOAD): the targets are for a quiet machine. */
const QUIET_LOAD = Number(process.env.BENCH_QUIET_LOAD ?? 1);
/** The longest a first start waits for it. */
const QUIET_WAIT_MS = 120_000;

/** Before a first start: what the last one left (a checker, a server stopping) gone from the load average, as far as it goes. */
async function untilQuiet(): Promise<void> {
  const deadline = performance.now() + QUIET_WAIT_MS;
  while (loadavg()[0]! > QUIET_LOAD && performance.now() < deadline) await sleep(2_000);
}

/** Every process group started, stopped at the end whatever happened. */
const processGroups: Watched[] = [];
/** The peer's temp directories, removed at the end. */
const peerDirs: string[] = [];

/** A process group whose output is kept, with waits for lines of it. */
class Watched {
  output = '';
  readonly #waiters: Array<{ pattern: RegExp; from: number; resolve: () => void; timer: NodeJS.Timeout }> = [];
  readonly child: ChildProcess;

  constructor(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(command, args, { cwd, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    processGroups.push(this);
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        this.output += chunk.toString();
        for (const waiter of [...this.#waiters]) {
          if (waiter.pattern.test(this.output.slice(waiter.from))) {
            this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      });
    }
  }

  /** Resolves once `pattern` appears in the output written from `from` (default: from now) on. */
  until(pattern: RegExp, timeoutMs = 300_000, from = this.output.length): Promise<void> {
    if (pattern.test(this.output.slice(from))) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${this.output.slice(-4000)}`)), timeoutMs);
      this.#waiters.push({ pattern, from, resolve: () => (clearTimeout(timer), resolve()), timer });
    });
  }

  async stop(): Promise<void> {
    // Waits that lost a race to another process's output: their deadlines would keep the run alive.
    for (const waiter of this.#waiters.splice(0)) clearTimeout(waiter.timer);
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    process.kill(-pid, 'SIGINT');
    const kill = setTimeout(() => process.kill(-pid, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(kill);
    // Whatever of the group is left (a watcher that ignored SIGINT).
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // The group is gone.
    }
  }
}

/** Polls `url` with `text` until `accept` holds for the answer (every 10 ms, each request bounded). */
async function untilAnswer(url: () => string | undefined, text: string, accept: (body: { data?: Record<string, unknown> | null; errors?: unknown[] }) => boolean, timeoutMs = 300_000): Promise<Record<string, unknown>> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const target = url();
    if (target !== undefined) {
      try {
        const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }), signal: AbortSignal.timeout(2_000) });
        const body = (await response.json()) as { data?: Record<string, unknown> | null; errors?: unknown[] };
        if (accept(body)) return body.data ?? {};
      } catch {
        // Not listening yet, or restarting.
      }
    }
    await sleep(10);
  }
  throw new Error(`${text} was not answered as expected within ${timeoutMs} ms`);
}

async function untilFileHas(path: string, needle: string, timeoutMs = 300_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if ((await readFile(path, 'utf8').catch(() => '')).includes(needle)) return;
    await sleep(5);
  }
  throw new Error(`${path} did not mention ${needle} within ${timeoutMs} ms`);
}

interface LoopSetup {
  dir: string;
  sdl: string;
  resolvers: string;
  /** Where the Human resolvers get a new field. */
  resolverAnchor: string;
  generated: string;
  /** The loop's processes (ours: one; the peer's: three), whose output is read. */
  watched: readonly Watched[];
  url: () => string | undefined;
  /** The printed line that names the missing resolver of `field`. */
  errorLine: (field: string) => RegExp;
}

type LoopSamples = Record<'sdlToTypes' | 'sdlToServed' | 'sdlToError' | 'resolverToServed', Sample[]>;

/** BENCH_RUNS SDL saves, each adding a field, then its resolver. */
async function measureLoop(setup: LoopSetup): Promise<LoopSamples> {
  const samples: LoopSamples = { sdlToTypes: [], sdlToServed: [], sdlToError: [], resolverToServed: [] };
  for (let run = 0; run < runs; run += 1) {
    const field = `benchField${run}`;
    const sdl = await readFile(join(setup.dir, setup.sdl), 'utf8');
    const marks = setup.watched.map((watched) => watched.output.length);
    const printed = (pattern: RegExp): Promise<unknown> => Promise.race(setup.watched.map((watched, index) => watched.until(pattern, 300_000, marks[index])));
    const saved = performance.now();
    await writeFile(join(setup.dir, setup.sdl), sdl.replace(HUMAN, `${HUMAN}  "Added by the benchmark."\n  ${field}: String\n`));
    const types = untilFileHas(join(setup.dir, setup.generated), `${field}: Resolver<`).then(() => samples.sdlToTypes.push(sample(saved)));
    const served = untilAnswer(setup.url, `{ human(id: "1000") { ${field} } }`, (body) => body.errors === undefined && body.data !== undefined).then(() => samples.sdlToServed.push(sample(saved)));
    const error = printed(setup.errorLine(field)).then(() => samples.sdlToError.push(sample(saved)));
    await Promise.all([types, served, error]);

    const resolvers = await readFile(join(setup.dir, setup.resolvers), 'utf8');
    const implemented = performance.now();
    await writeFile(join(setup.dir, setup.resolvers), resolvers.replace(setup.resolverAnchor, `${setup.resolverAnchor}    ${field}: () => 'value ${run}',\n`));
    await untilAnswer(setup.url, `{ human(id: "1000") { ${field} } }`, (body) => (body.data?.human as Record<string, unknown> | undefined)?.[field] === `value ${run}`);
    samples.resolverToServed.push(sample(implemented));
    // The checker agrees before the next save (a save mid-check would measure the previous one).
    await printed(/Found 0 errors/);
  }
  return samples;
}

/** `npm run dev [-- entry]` in the copy: its first answer, first codegen run and first typecheck. */
async function startOurs(project: ProjectCopy, entry: string | undefined, probe: string): Promise<{ watched: Watched; url: () => string | undefined; first: Record<'firstAnswer' | 'firstCodegen' | 'firstTypecheck', Sample> }> {
  await untilQuiet();
  const started = performance.now();
  const watched = new Watched('npm', ['run', '--silent', 'dev', ...(entry === undefined ? [] : ['--', entry])], project.dir, { ...process.env, NODE_ENV: undefined, PORT: '0' });
  const url = (): string | undefined => {
    const urls = [...watched.output.matchAll(/\[dev\] +GraphQL +(http:\/\/\S+)|\[server\] restarted in \d+ ms \(now at GraphQL (http:\/\/\S+)[,)]/g)];
    const last = urls.at(-1);
    return (last?.[1] ?? last?.[2])?.replace('localhost', '127.0.0.1');
  };
  const answer = untilAnswer(url, probe, (body) => body.errors === undefined).then(() => sample(started));
  const codegen = watched.until(/\[codegen\] (regenerated in|generated\/ is up to date)/).then(() => sample(started));
  const types = watched.until(/\[types\] .*Found 0 errors/).then(() => sample(started));
  const [firstAnswer, firstCodegen, firstTypecheck] = await Promise.all([answer, codegen, types]);
  return { watched, url, first: { firstAnswer, firstCodegen, firstTypecheck } };
}

async function startPeer(): Promise<{ dir: string; watched: Watched[]; url: () => string | undefined; first: Record<'firstAnswer' | 'firstCodegen' | 'firstTypecheck', Sample> }> {
  const dir = await mkdtemp(join(tmpdir(), 'dev-loop-peer-'));
  peerDirs.push(dir);
  for (const [name, text] of Object.entries(PEER_FILES)) await writeFile(join(dir, name), text);
  await writeFile(join(dir, 'schema.graphql'), await readFile(join(projectRoot, SDL), 'utf8'));
  await symlink(join(projectRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // Its generated types exist before the start, as ours are committed.
  await mkdir(join(dir, 'generated'));
  await promisify(execFile)(join(dir, 'node_modules', '.bin', 'graphql-codegen'), ['--config', 'codegen.ts'], { cwd: dir });
  const bin = (name: string): string => join(dir, 'node_modules', '.bin', name);
  await untilQuiet();
  const started = performance.now();
  const [codegenArgs, typesArgs, serverArgs] = [PEER_WATCHERS.codegen, PEER_WATCHERS.types, PEER_WATCHERS.server];
  const codegen = new Watched(bin(codegenArgs[0]), codegenArgs.slice(1), dir);
  const types = new Watched(bin(typesArgs[0]), typesArgs.slice(1), dir);
  const server = new Watched(bin(serverArgs[0]), serverArgs.slice(1), dir, { ...process.env, PORT: '0' });
  const url = (): string | undefined => [...server.output.matchAll(/peer graph at (http:\/\/\S+)/g)].at(-1)?.[1];
  const [firstAnswer, firstCodegen, firstTypecheck] = await Promise.all([
    untilAnswer(url, '{ hero { name } }', (body) => body.errors === undefined).then(() => sample(started)),
    codegen.until(/Watching for changes/).then(() => sample(started)),
    types.until(/Found 0 errors/).then(() => sample(started)),
  ]);
  return { dir, watched: [codegen, types, server], url, first: { firstAnswer, firstCodegen, firstTypecheck } };
}

/** `file(line,col): error TSnnnn` of a checker's output, sorted: what tsc and tsgo must agree on. */
const diagnosticsOf = (text: string): string[] => [...text.matchAll(/^(.+\(\d+,\d+\): error TS\d+)/gm)].map((match) => match[1] ?? '').sort();

async function compareCheckers(dir: string): Promise<{ tsc: string[]; tsgo: string[]; agree: boolean; tscMs: number; tsgoMs: number }> {
  const run = async (command: string, args: string[]): Promise<{ text: string; ms: number }> => {
    const started = performance.now();
    const { stdout } = await promisify(execFile)(command, args, { cwd: dir, maxBuffer: 16 * 2 ** 20 }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return { text: stdout, ms: Math.round(performance.now() - started) };
  };
  const args = ['--noEmit', '--pretty', 'false', '-p', 'tsconfig.dev.json'];
  const tsc = await run(join(dir, 'node_modules', '.bin', 'tsc'), args);
  const tsgo = await run(join(dir, 'node_modules', '.bin', 'tsgo'), args);
  const [a, b] = [diagnosticsOf(tsc.text), diagnosticsOf(tsgo.text)];
  return { tsc: a, tsgo: b, agree: JSON.stringify(a) === JSON.stringify(b), tscMs: tsc.ms, tsgoMs: tsgo.ms };
}

const median = (samples: readonly Sample[]): Sample => {
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  return sorted[Math.floor(sorted.length / 2)] ?? { ms: Number.NaN, load: Number.NaN };
};

type ChannelStart = Record<'firstAnswer' | 'firstCodegen' | 'firstTypecheck' | 'codeEditToServed', Sample>;

/** The channel service in `copy`: first answer, codegen and typecheck, then a restart on a code edit. */
async function measureChannelStart(copy: ProjectCopy): Promise<ChannelStart> {
  const channel = await startOurs(copy, undefined, '{ stats { subscribers } }');
  const restarts = (channel.watched.output.match(/\[server\] restarted in/g) ?? []).length;
  const touched = performance.now();
  await writeFile(join(copy.dir, 'src/graphql/plugins/limits.ts'), `${await copy.readText('src/graphql/plugins/limits.ts')}\n`);
  await channel.watched.until(new RegExp(`(?:[\\s\\S]*\\[server\\] restarted in){${restarts + 1}}`), 300_000, 0);
  await untilAnswer(channel.url, '{ stats { subscribers } }', (body) => body.errors === undefined);
  const restart = sample(touched);
  await channel.watched.stop();
  return { ...channel.first, codeEditToServed: restart };
}

const project = await copyProject();
const results: Record<string, unknown> = { runs, quietLoad: QUIET_LOAD };
try {
  // The channel service, BENCH_RUNS first starts, each in a fresh copy (the first start of a fresh
  // clone: a copy has no dev build, and tsx's cache of transpiled modules is per path): one start
  // varies by seconds on these machines, so each row is the median of its samples. The first copy
  // is then the Star Wars example's.
  const channelStarts: ChannelStart[] = [];
  for (let run = 0; run < runs; run += 1) {
    const copy = run === 0 ? project : await copyProject();
    try {
      channelStarts.push(await measureChannelStart(copy));
    } finally {
      if (copy !== project) await copy.remove();
    }
    console.log(`channel, start ${run + 1}: ${JSON.stringify(channelStarts.at(-1))}`);
  }
  const channelMedian = (step: keyof ChannelStart): Sample => median(channelStarts.map((start) => start[step]));
  const restart = channelMedian('codeEditToServed');
  const channelFirst = { firstAnswer: channelMedian('firstAnswer'), firstCodegen: channelMedian('firstCodegen'), firstTypecheck: channelMedian('firstTypecheck') };
  results.channel = { ...channelFirst, codeEditToServed: restart };

  // The Star Wars example: the loop steps, ours then the peer's.
  const ours = await startOurs(project, 'examples/starwars/main.ts', '{ hero { name } }');
  const ourLoop = await measureLoop({
    dir: project.dir,
    sdl: SDL,
    resolvers: 'examples/starwars/resolvers.ts',
    resolverAnchor: "    homePlanet: property('homePlanet'),\n",
    generated: 'generated/starwars/resolvers-types.ts',
    watched: [ours.watched],
    url: ours.url,
    errorLine: (field) => new RegExp(`no resolver for Human\\.${field}: add it to the Human resolvers at examples/starwars/resolvers\\.ts:\\d+:\\d+`),
  });
  await ours.watched.stop();
  console.log(`ours (Star Wars): ${JSON.stringify({ ...ours.first, ...ourLoop })}`);
  // With the last field's resolver removed again: a diagnostic to agree on.
  await writeFile(join(project.dir, SDL), (await project.readText(SDL)).replace(HUMAN, `${HUMAN}  unresolved: String\n`));
  await project.npmRun('codegen');
  results.checkers = await compareCheckers(project.dir);
  console.log(`checkers: ${JSON.stringify(results.checkers)}`);

  const peer = await startPeer();
  const peerLoop = await measureLoop({
    dir: peer.dir,
    sdl: 'schema.graphql',
    resolvers: 'resolvers.ts',
    resolverAnchor: '    homePlanet: (character) => character.homePlanet ?? null,\n',
    generated: 'generated/resolvers-types.ts',
    watched: peer.watched,
    url: peer.url,
    errorLine: (field) => new RegExp(`error TS2741: Property '${field}' is missing`),
  });
  await Promise.all(peer.watched.map((watched) => watched.stop()));

  const steps: Array<[Step, string, Sample, Sample]> = [
    ['firstAnswer', 'npm run dev: first answer (Star Wars)', ours.first.firstAnswer, peer.first.firstAnswer],
    ['firstCodegen', 'npm run dev: first codegen', ours.first.firstCodegen, peer.first.firstCodegen],
    ['firstTypecheck', 'npm run dev: first typecheck', ours.first.firstTypecheck, peer.first.firstTypecheck],
    ['sdlToTypes', 'SDL save → types written', median(ourLoop.sdlToTypes), median(peerLoop.sdlToTypes)],
    ['sdlToServed', '→ new schema served', median(ourLoop.sdlToServed), median(peerLoop.sdlToServed)],
    ['sdlToError', '→ TS error naming the resolver', median(ourLoop.sdlToError), median(peerLoop.sdlToError)],
    ['resolverToServed', 'resolver edit → served', median(ourLoop.resolverToServed), median(peerLoop.resolverToServed)],
  ];
  console.log(`\ndev loop, ${runs} saves per loop step and ${runs} first starts of the channel service (medians), load = 1-minute load average at the end of the step\n`);
  console.log(
    formatTable(
      ['step', 'ours ms', 'load', 'peer ms', 'load', 'ours / peer', 'target ms'],
      [
        ['npm run dev: first answer (channel)', String(channelFirst.firstAnswer.ms), String(channelFirst.firstAnswer.load), '', '', '', `≤ ${TARGETS_MS.firstAnswer}`],
        ['npm run dev: first codegen (channel)', String(channelFirst.firstCodegen.ms), String(channelFirst.firstCodegen.load), '', '', '', `≤ ${TARGETS_MS.firstCodegen}`],
        ['npm run dev: first typecheck (channel)', String(channelFirst.firstTypecheck.ms), String(channelFirst.firstTypecheck.load), '', '', '', `≤ ${TARGETS_MS.firstTypecheck}`],
        ['code edit → restarted server answers (channel)', String(restart.ms), String(restart.load), '', '', '', ''],
        ...steps.map(([step, name, mine, theirs]) => [name, String(mine.ms), String(mine.load), String(theirs.ms), String(theirs.load), (mine.ms / theirs.ms).toFixed(2), `≤ ${TARGETS_MS[step]}`]),
      ],
    ),
  );
  const checkers = results.checkers as Awaited<ReturnType<typeof compareCheckers>>;
  console.log(`\ntsgo agrees with tsc (diagnostic locations and codes): ${String(checkers.agree)} — tsc ${checkers.tscMs} ms, tsgo ${checkers.tsgoMs} ms, ${checkers.tsc.length} diagnostic(s)`);
  results.steps = Object.fromEntries(steps.map(([step, , mine, theirs]) => [step, { ours: mine, peer: theirs, ratio: Math.round((mine.ms / theirs.ms) * 100) / 100, targetMs: TARGETS_MS[step] }]));
  results.samples = { ours: ourLoop, peer: peerLoop, channel: channelStarts };
  console.log(`saved ${await saveResults('dev', results)}`);
} finally {
  await Promise.all(processGroups.map((watched) => watched.stop()));
  await Promise.all(peerDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await project.remove();
}
