/**
 * Where a thread's instructions went, by function: callgrind's exclusive counts of one dump, with
 * the code V8 compiled at run time named. callgrind knows only the node binary's own symbols (V8's
 * C++ and its builtins); JavaScript compiled by V8 is `???:0x…` to it. Run with `--perf-basic-prof`,
 * node writes every code object it makes to `/tmp/perf-<pid>.map` (start, size, name, e.g.
 * `JS:*write file:///…/request-log.js:87:14`, `*` for TurboFan code, `^` for baseline); the
 * addresses in the dump are looked up there. An address reused by later code takes the later name.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** callgrind_annotate reads a dump in seconds; longer, it has hung. */
const ANNOTATE_DEADLINE_MS = 120_000;

/** A line of callgrind_annotate's function list: `  1,234 ( 0.12%)  file:function [object]`. */
const FUNCTION_LINE = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.+)$/;
/** A function callgrind has no symbol for: `???:0x000000000d1d4280 [???]` (with `'2` for a recursion level). */
const UNNAMED = /^\?\?\?:0x([0-9a-f]+)(?:'\d+)? \[\?\?\?\]$/;
/** Entries of the call stack below the event loop: every instruction is inside them. */
const ROOTS = /PROGRAM TOTALS|libc-start|\(below main\)|node::Start|node::NodeMainInstance::Run|node::SpinEventLoopInternal|\?\?\?:main |ld-linux/;

interface CodeObject {
  start: number;
  end: number;
  name: string;
}

async function readPerfMap(file: string): Promise<CodeObject[]> {
  const byStart = new Map<number, CodeObject>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const [start, size, ...name] = line.split(' ');
    if (start === undefined || size === undefined || name.length === 0) continue;
    const at = Number.parseInt(start, 16);
    byStart.set(at, { start: at, end: at + Number.parseInt(size, 16), name: name.join(' ') });
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

/** The code object holding `address` (binary search over objects sorted by start). */
function codeAt(objects: readonly CodeObject[], address: number): CodeObject | undefined {
  let low = 0;
  let high = objects.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const object = objects[middle] as CodeObject;
    if (address < object.start) high = middle - 1;
    else if (address >= object.end) low = middle + 1;
    else return object;
  }
  return undefined;
}

/** Exclusive instructions per request of every function of the dump, JavaScript named through the perf map. */
export async function functionCosts(dump: string, perfMap: string, requests: number): Promise<Map<string, number>> {
  const [{ stdout }, objects] = await Promise.all([run('callgrind_annotate', ['--threshold=100', '--auto=no', dump], { maxBuffer: 64 * 1024 * 1024, timeout: ANNOTATE_DEADLINE_MS }), readPerfMap(perfMap)]);
  const costs = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const match = FUNCTION_LINE.exec(line);
    if (match === null || ROOTS.test(match[2] as string)) continue;
    let name = (match[2] as string).replace(/^\?\?\?:/, '');
    const unnamed = UNNAMED.exec(match[2] as string);
    if (unnamed !== null) name = codeAt(objects, Number.parseInt(unnamed[1] as string, 16))?.name ?? 'unnamed code';
    costs.set(name, (costs.get(name) ?? 0) + Number((match[1] as string).replaceAll(',', '')) / requests);
  }
  return costs;
}

/**
 * The functions whose cost differs most between two targets (`a` − `b`, instructions a request),
 * both ways. File URLs are cut to the project-relative path, so that two trees compare.
 */
export function largestDifferences(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, count: number): Array<{ name: string; difference: number }> {
  const short = (name: string): string => name.replace(/file:\/\/\S*?\/(dist|node_modules)\//, '$1/');
  const difference = new Map<string, number>();
  for (const [name, cost] of a) difference.set(short(name), (difference.get(short(name)) ?? 0) + cost);
  for (const [name, cost] of b) difference.set(short(name), (difference.get(short(name)) ?? 0) - cost);
  return [...difference]
    .map(([name, value]) => ({ name, difference: Math.round(value) }))
    .sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference))
    .slice(0, count);
}
