/**
 * package.json's `start` script as a command, read where a bench starts the server as `npm start`
 * does (its node flags change with measurements; a copy of them in a bench would go stale).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/project-copy.js';

export interface StartScript {
  /** The node flags, in order (e.g. `--max-semi-space-size=12`). */
  nodeFlags: string[];
  /** The entry module, relative to the project root (`dist/src/main.js`). */
  entry: string;
}

/** The start script of the project at `root` (default this one). */
export async function readStartScript(root: string = projectRoot): Promise<StartScript> {
  const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [node, ...words] = (scripts.start ?? '').split(/\s+/).filter(Boolean);
  const entry = words.filter((word) => !word.startsWith('-'));
  if (node !== 'node' || entry.length !== 1) throw new Error(`the start script is not \`node <flags> <entry>\`: ${scripts.start}`);
  return { nodeFlags: words.filter((word) => word.startsWith('-')), entry: entry[0] as string };
}
