/**
 * Why the server's code did not load or start under `npm run dev`, where to look first: the
 * `file:line:column` of the error in the project (source maps give the TypeScript position; an
 * esbuild syntax error names it in its message), then the message and the project's own frames.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `/abs/file.ts:12:7` or `file:///abs/file.ts:12:7`, in a message or a stack frame. */
const POSITION = /(file:\/\/\/[^\s():]+|\/[^\s():]+):(\d+):(\d+)/;

/** A position in the project's own code (not a dependency's, node's, or the dev loop's loader). */
const inProject = (line: string): boolean => POSITION.test(line) && !/node_modules|node:internal|dev-standby\.mjs/.test(line);

function asPath(location: string): string {
  const path = location.startsWith('file://') ? fileURLToPath(location) : location;
  return relative(process.cwd(), path);
}

export function describeImportFailure(error: unknown): string {
  if (!(error instanceof Error)) return `the server failed to load: ${String(error)}`;
  const message = error.message.split('\n');
  const stack = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const located = [...message, ...stack].find(inProject);
  const [, location = '', line = '', column = ''] = located === undefined ? [] : (POSITION.exec(located) ?? []);
  const where = location === '' ? '' : `${asPath(location)}:${line}:${column} `;
  const frames = stack.filter(inProject).slice(0, 5).map((frame) => frame.replace(POSITION, (_match, path: string, l: string, c: string) => `${asPath(path)}:${l}:${c}`));
  return [`${where}${error.name}: ${message.join('\n')}`, ...frames].join('\n');
}
