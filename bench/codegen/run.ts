/**
 * Codegen speed with the standard codegen CLI (graphql-codegen), in a temp copy of
 * the project:
 *   cold   — wall time of a cold `npm run codegen` (graphql-codegen on codegen.ts: every GraphQL
 *            project + every openapi/*.yaml through the openapi-typescript preset) and of
 *            `npm run codegen:check`; and where a cold run's time goes: Node's own start, loading
 *            the CLI's modules, loading openapi-typescript (with the TypeScript compiler it prints with);
 *   watch  — `graphql-codegen --watch` running: time from an SDL save to the rewritten generated
 *            file holding the new field.
 * Targets (measured, not asserted): cold < 1.5 s; watch < 300 ms.
 * Run: `npx tsx bench/codegen/run.ts` (BENCH_RUNS overrides 5 runs of each).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { copyProject, formatTable, saveResults, type ProjectCopy } from '../lib/index.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const sdlPath = 'examples/starwars/schema/starwars.graphql';
const generatedPath = 'generated/starwars/resolvers-types.ts';

interface Timing {
  medianMs: number;
  minMs: number;
  maxMs: number;
  samplesMs: number[];
}

function summarize(samplesMs: number[]): Timing {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    minMs: sorted[0] ?? Number.NaN,
    maxMs: sorted.at(-1) ?? Number.NaN,
    samplesMs: samplesMs.map((ms) => Math.round(ms)),
  };
}

/** Wall time of one command in the copy; a failing command is a failed benchmark. */
function timeCommand(project: ProjectCopy, command: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: project.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

async function timeCold(project: ProjectCopy, command: string, args: string[]): Promise<Timing> {
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) samples.push(await timeCommand(project, command, args));
  return summarize(samples);
}

/** Resolves once the child has printed `text` (graphql-codegen's "Watching for changes"). */
function waitForOutput(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`watch exited (${code}) before printing "${text}": ${seen}`)));
  });
}

/** Polls the generated file until it mentions `needle`; returns when it did. */
async function waitForGenerated(file: string, needle: string, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.includes(needle)) return performance.now();
    await sleep(2);
  }
  throw new Error(`${file} did not mention ${needle} within ${timeoutMs} ms`);
}

async function timeWatch(project: ProjectCopy): Promise<Timing> {
  const watcher = spawn(join('node_modules', '.bin', 'graphql-codegen'), ['--config', 'codegen.ts', '--watch'], {
    cwd: project.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await waitForOutput(watcher, 'Watching for changes');
    await sleep(500); // the file watcher subscribes after the first message
    const original = await project.readText(sdlPath);
    const samples: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const field = `benchField${run}`;
      const edited = original.replace('type Human implements Character {\n', `type Human implements Character {\n  "Added by the benchmark."\n  ${field}: String\n`);
      const saved = performance.now();
      await writeFile(join(project.dir, sdlPath), edited);
      const rewritten = await waitForGenerated(join(project.dir, generatedPath), `${field}?: Maybe`);
      samples.push(rewritten - saved);
      await sleep(300); // let the watcher settle before the next save
    }
    return summarize(samples);
  } finally {
    watcher.kill('SIGTERM');
  }
}

const project = await copyProject();
try {
  const npmCodegen = await timeCold(project, 'npm', ['run', '--silent', 'codegen']);
  const graphqlCodegen = await timeCold(project, join('node_modules', '.bin', 'graphql-codegen'), ['--config', 'codegen.ts']);
  const codegenCheck = await timeCold(project, 'npm', ['run', '--silent', 'codegen:check']);
  const nodeStart = await timeCold(project, process.execPath, ['-e', '0']);
  const cliLoad = await timeCold(project, process.execPath, ['-e', "require('@graphql-codegen/cli')"]);
  const openapiLoad = await timeCold(project, process.execPath, ['-e', "require('openapi-typescript')"]);
  const watch = await timeWatch(project);

  const rows: Array<[string, Timing, number]> = [
    ['cold `npm run codegen`', npmCodegen, 1500],
    ['  graphql-codegen without npm', graphqlCodegen, Number.NaN],
    ['cold `npm run codegen:check`', codegenCheck, Number.NaN],
    ['  node -e 0', nodeStart, Number.NaN],
    ['  node: require @graphql-codegen/cli', cliLoad, Number.NaN],
    ['  node: require openapi-typescript', openapiLoad, Number.NaN],
    ['watch: SDL save → file rewritten', watch, 300],
  ];
  console.log(`\ncodegen, ${runs} runs each\n`);
  console.log(
    formatTable(
      ['measure', 'median ms', 'min ms', 'max ms', 'target ms', 'median / target'],
      rows.map(([name, timing, target]) => [
        name,
        timing.medianMs.toFixed(0),
        timing.minMs.toFixed(0),
        timing.maxMs.toFixed(0),
        Number.isNaN(target) ? '' : `< ${target}`,
        Number.isNaN(target) ? '' : (timing.medianMs / target).toFixed(2),
      ]),
    ),
  );
  const file = await saveResults('codegen', {
    runs,
    coldNpmCodegen: { ...npmCodegen, targetMs: 1500 },
    coldGraphqlCodegen: graphqlCodegen,
    coldCodegenCheck: codegenCheck,
    loadNode: nodeStart,
    loadCodegenCli: cliLoad,
    loadOpenapiTypescript: openapiLoad,
    watchSaveToRewrite: { ...watch, targetMs: 300 },
  });
  console.log(`saved ${file}`);
} finally {
  await project.remove();
}
