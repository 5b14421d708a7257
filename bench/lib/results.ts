/** Saves a benchmark's figures to `bench/results/<name>.json`, stamped with the machine they ran on. */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

export interface Machine {
  node: string;
  cpus: number;
  cpuModel: string;
  memoryGb: number;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    node: process.version,
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
  };
}

/** Writes `{ name, measuredAt, machine, ...figures }` and returns the file path. */
export async function saveResults(name: string, figures: Record<string, unknown>): Promise<string> {
  const file = join(resultsDir, `${name}.json`);
  await mkdir(resultsDir, { recursive: true });
  const document = { name, measuredAt: new Date().toISOString(), machine: describeMachine(), ...figures };
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}
