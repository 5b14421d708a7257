/**
 * The code samples of README.md and docs/ are code that works:
 * - every ```ts block is typechecked as a module of the repository (the root tsconfig.json's
 *   options and paths, so `@channel-graph/*` is the packages' sources); a block that cannot compile
 *   on its own is marked ```ts fragment, and there are few of them (the packages' README examples
 *   are compiled and run by test/consumer/package.slow.test.ts);
 * - every ```sh runnable block is run by bash against the service started with `npm start` in a
 *   copy of the project (production, sandbox mode) on a free port, which replaces the docs' port
 *   4000; every command must succeed, curl's included (`--fail-with-body`, from a .curlrc).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { splitFences, docPages, type CodeBlock } from '../support/markdown.js';
import { npmStart } from '../support/npm-start.js';
import { copyProject, projectRoot } from '../support/project-copy.js';

/** A fragment is the exception: more than this many means the docs stopped compiling. */
const MOST_FRAGMENTS = 2;

interface Sample extends CodeBlock {
  page: string;
}

async function samples(): Promise<Sample[]> {
  const all: Sample[] = [];
  for (const page of docPages()) for (const block of splitFences(await readFile(join(projectRoot, page), 'utf8')).blocks) all.push({ ...block, page });
  return all;
}

const isTypeScript = (sample: Sample): boolean => /^(ts|typescript)\b/.test(sample.info);

describe('the TypeScript samples', () => {
  it('are modules the compiler accepts, fragments marked and rare', async () => {
    const typescript = (await samples()).filter(isTypeScript);
    const unknownMarks = typescript.filter((sample) => !['ts', 'typescript', 'ts fragment'].includes(sample.info));
    expect(unknownMarks.map((sample) => `${sample.page}:${sample.line}: \`\`\`${sample.info}`)).toEqual([]);
    const fragments = typescript.filter((sample) => sample.info === 'ts fragment');
    expect(fragments.length, fragments.map((sample) => `${sample.page}:${sample.line}`).join(', ')).toBeLessThanOrEqual(MOST_FRAGMENTS);
    const compiled = typescript.filter((sample) => sample.info !== 'ts fragment');
    expect(compiled.length).toBeGreaterThan(5);

    // Inside the repository (.scratch/ is ignored by git), so that packages resolve as they do for the code.
    await mkdir(join(projectRoot, '.scratch'), { recursive: true });
    const dir = await mkdtemp(join(projectRoot, '.scratch', 'docs-samples-'));
    try {
      const files = new Map<string, Sample>();
      for (const [index, sample] of compiled.entries()) {
        const file = join(dir, `${sample.page.replace(/[/.]/g, '-')}-${index}.ts`);
        // `export {}` makes every sample a module of its own, whatever it imports.
        await writeFile(file, `${sample.code}\nexport {};\n`);
        files.set(file, sample);
      }
      const config = ts.readConfigFile(join(projectRoot, 'tsconfig.json'), (path) => ts.sys.readFile(path));
      const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, projectRoot);
      const program = ts.createProgram({ rootNames: [...files.keys()], options: { ...options, noEmit: true } });
      const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
        const sample = files.get(diagnostic.file.fileName);
        const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        const where = sample === undefined ? `${relative(projectRoot, diagnostic.file.fileName)}:${line + 1}` : `${sample.page}:${sample.line + line + 1}`;
        return `${where}:${character + 1}: TS${diagnostic.code}: ${message}`;
      });
      expect(errors).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('bash', ['-e', '-o', 'pipefail', '-c', script], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe('the runnable shell samples', () => {
  it('succeed, every command, against the service that npm start runs', async () => {
    const runnable = (await samples()).filter((sample) => sample.info === 'sh runnable');
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    for (const sample of runnable) expect(sample.code, `${sample.page}:${sample.line} asks the docs' port`).toMatch(/(127\.0\.0\.1|localhost):4000\b/);

    const curlHome = await mkdtemp(join(tmpdir(), 'docs-curl-'));
    await writeFile(join(curlHome, '.curlrc'), 'fail-with-body\nshow-error\nmax-time = 20\n');
    const copy = await copyProject();
    const server = await npmStart(copy.dir, { timeoutMs: 300_000 });
    try {
      // Ready once every source has its first snapshot: what an operator waits for before asking.
      for (const giveUpAt = performance.now() + 30_000; ; ) {
        const ready = await fetch(`${server.url}/readyz`).then((response) => response.status === 200);
        if (ready) break;
        expect(performance.now(), 'ready within 30 s').toBeLessThan(giveUpAt);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const port = new URL(server.url).port;
      for (const sample of runnable) {
        const script = sample.code.replace(/(127\.0\.0\.1|localhost):4000\b/g, `127.0.0.1:${port}`);
        const run = await bash(script, { ...process.env, CURL_HOME: curlHome });
        expect({ where: `${sample.page}:${sample.line}`, code: run.code, stderr: run.stderr }).toEqual({ where: `${sample.page}:${sample.line}`, code: 0, stderr: '' });
        expect(run.stdout.trim(), `${sample.page}:${sample.line}`).not.toBe('');
      }
    } finally {
      await server.stop();
      await copy.remove();
      await rm(curlHome, { recursive: true, force: true });
    }
  }, 420_000);
});
