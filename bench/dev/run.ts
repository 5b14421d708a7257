/**
 * The dev loop's waits on the channel graph, `npm run dev` against the usual setup on the same
 * project (bench/dev/peer.ts: `graphql-codegen --watch` + `tsc --watch` + `tsx watch`), in one run,
 * as ours ÷ peer, with the machine's 1-minute load average beside every figure:
 *   first answer, first typecheck — from the command(s) to the first GraphQL answer, and to the
 *     checker's first "Found 0 errors"; the medians of BENCH_RUNS first starts each, every one in a
 *     fresh copy of the project (ours and the peer's in turn);
 *   SDL save (a field added to schema/channel.graphql) → types written (generated/channel), → the
 *     field served, → the TypeScript error naming the missing resolver printed; resolver added →
 *     served: the medians of BENCH_RUNS saves, on the last start of each.
 * Also: TypeScript 7 against 5.9 on the project with a missing resolver (the same diagnostics?).
 * Targets (quiet machine: each first start waits until the 1-minute load average is at most
 * BENCH_QUIET_LOAD, default 1, for up to two minutes): first answer ≤ 3 s, first typecheck ≤ 10 s,
 * SDL → types ≤ 0.3 s, → served ≤ 1 s, → error printed ≤ 2 s, resolver edit → served ≤ 1.5 s.
 * Run: `npx tsx bench/dev/run.ts`; results in bench/results/dev.json.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { copyProject, formatTable, saveResults, type ProjectCopy } from '../lib/index.js';
import { PEER_WATCHERS } from './peer.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const SDL = 'schema/channel.graphql';
const STALE = '  stale: Boolean!\n';
const RESOLVERS = 'src/graphql/schema/resolvers.ts';
const RESOLVER_ANCHOR = "      stale: property('stale'),\n";
const GENERATED = 'generated/channel/resolvers-types.ts';
const PROBE = '{ stats { subscribers } }';
const TARGETS_MS = { firstAnswer: 3000, firstTypecheck: 10_000, sdlToTypes: 300, sdlToServed: 1000, sdlToError: 2000, resolverToServed: 1500 } as const;
type Step = keyof typeof TARGETS_MS;

interface Sample {
  ms: number;
  /** The 1-minute load average when the step ended. */
  load: number;
}

const sample = (since: number): Sample => ({ ms: Math.round(performance.now() - since), load: Math.round(loadavg()[0]! * 100) / 100 });

/** The 1-minute load average a first start waits for (BENCH_QUIET_LOAD): the targets are for a quiet machine. */
const QUIET_LOAD = Number(process.env.BENCH_QUIET_LOAD ?? 1);
const QUIET_WAIT_MS = 120_000;

/** Before a first start: what the last one left (a checker, a server stopping) gone from the load average, as far as it goes. */
async function untilQuiet(): Promise<void> {
  const deadline = performance.now() + QUIET_WAIT_MS;
  while (loadavg()[0]! > QUIET_LOAD && performance.now() < deadline) await sleep(2_000);
}

/** Every process group started, stopped at the end whatever happened. */
const processGroups: Watched[] = [];

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

type Answer = { data?: { stats?: Record<string, unknown> | null } | null; errors?: unknown[] };

/** Polls `url` with `text` until `accept` holds for the answer (every 10 ms, each request bounded). */
async function untilAnswer(url: () => string | undefined, text: string, accept: (body: Answer) => boolean, timeoutMs = 300_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const target = url();
    if (target !== undefined) {
      try {
        const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }), signal: AbortSignal.timeout(2_000) });
        if (accept((await response.json()) as Answer)) return;
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

/** A started loop: its processes (ours: one; the peer's: three) and the GraphQL URL now answering. */
interface Loop {
  copy: ProjectCopy;
  watched: readonly Watched[];
  url: () => string | undefined;
}

type First = Record<'firstAnswer' | 'firstTypecheck', Sample>;

/** The first answer and the first typecheck of a loop just started at `started`. */
async function firstOf(loop: Loop, checker: Watched, started: number): Promise<First> {
  const [firstAnswer, firstTypecheck] = await Promise.all([
    untilAnswer(loop.url, PROBE, (body) => body.errors === undefined).then(() => sample(started)),
    checker.until(/Found 0 errors/).then(() => sample(started)),
  ]);
  return { firstAnswer, firstTypecheck };
}

async function startOurs(copy: ProjectCopy): Promise<{ loop: Loop; first: First }> {
  await untilQuiet();
  const started = performance.now();
  const dev = new Watched('npm', ['run', '--silent', 'dev'], copy.dir, { ...process.env, NODE_ENV: undefined, PORT: '0' });
  const url = (): string | undefined => {
    const last = [...dev.output.matchAll(/\[dev\] +GraphQL +(http:\/\/\S+)|\[server\] restarted in \d+ ms \(pid \d+, now at GraphQL (http:\/\/[^,\s]+)/g)].at(-1);
    return last?.[1] ?? last?.[2];
  };
  const loop = { copy, watched: [dev], url };
  return { loop, first: await firstOf(loop, dev, started) };
}

/** A package's executable in the copy (node_modules/.bin cannot tell TypeScript 5.9's tsc from 7's). */
function binOf(copy: ProjectCopy, [pkg, name]: readonly [string, string]): string {
  const manifestPath = createRequire(join(copy.dir, 'package.json')).resolve(`${pkg}/package.json`);
  const manifest = createRequire(import.meta.url)(manifestPath) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  if (bin === undefined) throw new Error(`${pkg} has no executable ${name}`);
  return join(dirname(manifestPath), bin);
}

async function startPeer(copy: ProjectCopy): Promise<{ loop: Loop; first: First }> {
  await untilQuiet();
  const started = performance.now();
  const [codegen, types, server] = [PEER_WATCHERS.codegen, PEER_WATCHERS.types, PEER_WATCHERS.server].map(
    (watcher) => new Watched(process.execPath, [binOf(copy, watcher.bin), ...watcher.args], copy.dir, { ...process.env, NODE_ENV: 'development', PORT: '0' }),
  ) as [Watched, Watched, Watched];
  const url = (): string | undefined => {
    const address = [...server.output.matchAll(/channel api listening on (http:\/\/[\d.:]+)/g)].at(-1)?.[1];
    return address === undefined ? undefined : `${address}/graphql`;
  };
  const loop = { copy, watched: [codegen, types, server], url };
  return { loop, first: await firstOf(loop, types, started) };
}

type LoopSamples = Record<'sdlToTypes' | 'sdlToServed' | 'sdlToError' | 'resolverToServed', Sample[]>;

/** BENCH_RUNS SDL saves, each adding a field to ChannelStats, then its resolver. */
async function measureLoop({ copy, watched, url }: Loop): Promise<LoopSamples> {
  const samples: LoopSamples = { sdlToTypes: [], sdlToServed: [], sdlToError: [], resolverToServed: [] };
  for (let run = 0; run < runs; run += 1) {
    const field = `benchField${run}`;
    const sdl = await copy.readText(SDL);
    const marks = watched.map((each) => each.output.length);
    const printed = (pattern: RegExp): Promise<unknown> => Promise.race(watched.map((each, index) => each.until(pattern, 300_000, marks[index])));
    const saved = performance.now();
    await copy.writeText(SDL, sdl.replace(STALE, `${STALE}  "Added by the benchmark."\n  ${field}: String\n`));
    const types = untilFileHas(join(copy.dir, GENERATED), `${field}: Resolver<`).then(() => samples.sdlToTypes.push(sample(saved)));
    const served = untilAnswer(url, `{ stats { ${field} } }`, (body) => body.errors === undefined && body.data?.stats !== undefined).then(() => samples.sdlToServed.push(sample(saved)));
    const error = printed(new RegExp(`error TS2741: Property '${field}' is missing`)).then(() => samples.sdlToError.push(sample(saved)));
    await Promise.all([types, served, error]);

    const resolvers = await copy.readText(RESOLVERS);
    const implemented = performance.now();
    await copy.writeText(RESOLVERS, resolvers.replace(RESOLVER_ANCHOR, `${RESOLVER_ANCHOR}      ${field}: () => 'value ${run}',\n`));
    await untilAnswer(url, `{ stats { ${field} } }`, (body) => body.data?.stats?.[field] === `value ${run}`);
    samples.resolverToServed.push(sample(implemented));
    // The checker agrees before the next save (a save mid-check would measure the previous one).
    await printed(/Found 0 errors/);
  }
  return samples;
}

/** `file(line,col): error TSnnnn` of a checker's output, sorted: what TypeScript 5.9 and 7 must agree on. */
const diagnosticsOf = (text: string): string[] => [...text.matchAll(/^(.+\(\d+,\d+\): error TS\d+)/gm)].map((match) => match[1] ?? '').sort();

/** TypeScript 5.9 and 7 on tsconfig.dev.json of `copy`, once a field without a resolver is added and generated. */
async function compareCheckers(copy: ProjectCopy): Promise<{ agree: boolean; diagnostics: string[]; typescript5Ms: number; typescript7Ms: number }> {
  await copy.writeText(SDL, (await copy.readText(SDL)).replace(STALE, `${STALE}  unresolved: String\n`));
  await copy.npmRun('codegen');
  const run = async (bin: readonly [string, string]): Promise<{ diagnostics: string[]; ms: number }> => {
    const started = performance.now();
    const args = [binOf(copy, bin), '--noEmit', '--pretty', 'false', '-p', 'tsconfig.dev.json'];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: copy.dir, maxBuffer: 16 * 2 ** 20 }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return { diagnostics: diagnosticsOf(stdout), ms: Math.round(performance.now() - started) };
  };
  const five = await run(['typescript', 'tsc']);
  const seven = await run(['typescript-7', 'tsc']);
  return { agree: JSON.stringify(five.diagnostics) === JSON.stringify(seven.diagnostics), diagnostics: seven.diagnostics, typescript5Ms: five.ms, typescript7Ms: seven.ms };
}

const median = (samples: readonly Sample[]): Sample => {
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  return sorted[Math.floor(sorted.length / 2)] ?? { ms: Number.NaN, load: Number.NaN };
};

const firsts: Record<'ours' | 'peer', First[]> = { ours: [], peer: [] };
const loops: Partial<Record<'ours' | 'peer', LoopSamples>> = {};
const copies: ProjectCopy[] = [];
const results: Record<string, unknown> = { runs, quietLoad: QUIET_LOAD };
try {
  for (let run = 0; run < runs; run += 1) {
    for (const [name, start] of [['ours', startOurs], ['peer', startPeer]] as const) {
      const copy = await copyProject();
      copies.push(copy);
      const { loop, first } = await start(copy);
      firsts[name].push(first);
      console.log(`${name}, start ${run + 1}: ${JSON.stringify(first)}`);
      if (run === runs - 1) {
        loops[name] = await measureLoop(loop);
        console.log(`${name}, loop: ${JSON.stringify(loops[name])}`);
      }
      await Promise.all(loop.watched.map((watched) => watched.stop()));
      if (run === runs - 1 && name === 'ours') results.checkers = await compareCheckers(copy);
      await copy.remove();
    }
  }
  const steps: Array<[Step, string, Sample, Sample]> = [
    ['firstAnswer', 'npm run dev: first answer', median(firsts.ours.map((first) => first.firstAnswer)), median(firsts.peer.map((first) => first.firstAnswer))],
    ['firstTypecheck', 'npm run dev: first typecheck', median(firsts.ours.map((first) => first.firstTypecheck)), median(firsts.peer.map((first) => first.firstTypecheck))],
    ...(['sdlToTypes', 'sdlToServed', 'sdlToError', 'resolverToServed'] as const).map((step): [Step, string, Sample, Sample] => [
      step,
      { sdlToTypes: 'SDL save → types written', sdlToServed: '→ new field served', sdlToError: '→ TS error naming the resolver', resolverToServed: 'resolver added → served' }[step],
      median(loops.ours?.[step] ?? []),
      median(loops.peer?.[step] ?? []),
    ]),
  ];
  console.log(`\ndev loop on the channel graph: medians of ${runs} first starts and ${runs} saves; load = 1-minute load average at the end of the step\n`);
  console.log(
    formatTable(
      ['step', 'ours ms', 'load', 'peer ms', 'load', 'ours / peer', 'target ms'],
      steps.map(([step, name, mine, theirs]) => [name, String(mine.ms), String(mine.load), String(theirs.ms), String(theirs.load), (mine.ms / theirs.ms).toFixed(2), `≤ ${TARGETS_MS[step]}`]),
    ),
  );
  const checkers = results.checkers as Awaited<ReturnType<typeof compareCheckers>>;
  console.log(`\nTypeScript 7 agrees with 5.9 (diagnostic locations and codes): ${String(checkers.agree)} — 5.9 ${checkers.typescript5Ms} ms, 7 ${checkers.typescript7Ms} ms, ${checkers.diagnostics.length} diagnostic(s)`);
  results.steps = Object.fromEntries(steps.map(([step, , mine, theirs]) => [step, { ours: mine, peer: theirs, ratio: Math.round((mine.ms / theirs.ms) * 100) / 100, targetMs: TARGETS_MS[step] }]));
  results.samples = { firsts, loops };
  console.log(`saved ${await saveResults('dev', results)}`);
} finally {
  await Promise.all(processGroups.map((watched) => watched.stop()));
  await Promise.all(copies.map((copy) => copy.remove()));
}
