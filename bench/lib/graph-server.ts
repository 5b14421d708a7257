/**
 * What bench/graph and bench/instructions share: the GraphQL queries they send, and their target
 * processes (started with an IPC channel: `nextMessage`, `stopTarget`). `compileGraphServer` (used
 * by bench/graph) compiles bench/graph/server.ts (one target per process) and everything it imports
 * with tsc into a temp dir (dist/ is left alone), with node_modules and schema/ linked beside it,
 * so the servers run as `npm start` runs (plain node on compiled JavaScript, no tsx loader).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from './index.js';

/** The queries bench/graph and bench/instructions send (their targets are set on these). */
export const ISSUE_QUERY = '{ supporters { __typename id name amountCents tier { title } ... on Patron { lifetimeCents } } }';
export const LARGE_QUERY = '{ tiers { title amountCents supporters { __typename id name amountCents since tier { title } } } stats { subscribers fetchedAt stale } }';
export const VARIABLES_QUERY = 'query($p: Platform) { supporters(platform: $p) { id name } }';
/** The variables query's bodies, sent in turn: $p MEMBERSHIP, VIDEO, null. */
export const VARIABLES_BODIES: readonly string[] = ['MEMBERSHIP', 'VIDEO', null].map((p) => JSON.stringify({ query: VARIABLES_QUERY, variables: { p } }));
export const GRAPH_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

export interface CompiledGraphServer {
  /** The compiled bench/graph/server.js: `node <file> <target>` with an IPC channel. */
  file: string;
  remove(): Promise<void>;
}

/** Compiles bench/graph/server.ts of the project at `root` (default this one: another checkout, e.g. of `main`, has its own). */
export async function compileGraphServer(root: string = projectRoot): Promise<CompiledGraphServer> {
  const outDir = await mkdtemp(join(tmpdir(), 'bench-graph-compiled-'));
  // The project's compiler options, with @channel-graph/* imported through node_modules as at run
  // time (no "paths" to their sources): the packages' dist/ (JS and .d.ts), built first.
  const config = {
    extends: join(root, 'tsconfig.json'),
    compilerOptions: { noEmit: false, rootDir: root, outDir, paths: {} },
    references: [],
    include: [],
    files: [join(root, 'bench/graph/server.ts')],
  };
  await writeFile(join(outDir, 'tsconfig.json'), JSON.stringify(config));
  await Promise.all(['node_modules', 'schema'].map((name) => symlink(join(root, name), join(outDir, name))));
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-b', 'packages/oauth2', 'packages/client'], { cwd: root });
  await promisify(execFile)(process.execPath, [tsc, '-p', join(outDir, 'tsconfig.json')], { cwd: root });
  return { file: join(outDir, 'bench/graph/server.js'), remove: () => rm(outDir, { recursive: true, force: true }) };
}

/** The next IPC message of a target's process; rejects if the process exits first. */
export function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`target process exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

/** Ends a target's process (it exits when its IPC channel closes) and waits until it has. */
export function stopTarget(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.disconnect();
  });
}
