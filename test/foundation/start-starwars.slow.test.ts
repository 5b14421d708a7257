/**
 * `npm run start:starwars` (examples/starwars/main.ts) answers the hero query at /graphql on PORT,
 * stops cleanly on SIGTERM, and refuses a PORT that is not a port number.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { projectRoot } from '../support/project-copy.js';
import { heroQuery, heroResult } from '../starwars/graph-client.js';

interface StartedScript {
  output: () => string;
  exited: Promise<number | null>;
  stop: () => void;
}

function startStarWars(port: string): StartedScript {
  const child = spawn('npm', ['run', '--silent', 'start:starwars'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm, tsx and node are signalled together
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { output: () => output, exited, stop: () => process.kill(-(child.pid ?? 0), 'SIGTERM') };
}

it('serves the hero query on PORT and stops on SIGTERM', async () => {
  const server = startStarWars('0');
  try {
    const url = await eventually('the listening line', () => /Star Wars graph at (http:\/\/localhost:\d+\/graphql)/.exec(server.output())?.[1], { timeoutMs: 30_000, intervalMs: 50, detail: server.output });
    const response = await fetch(url.replace('localhost', '127.0.0.1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: heroQuery }),
    });
    expect(await response.json()).toEqual(heroResult);
  } finally {
    server.stop();
  }
  await server.exited;
}, 60_000);

it('refuses a PORT that is not a port number, naming the variable and the value', async () => {
  const server = startStarWars('forty-one');
  expect(await server.exited).not.toBe(0);
  expect(server.output()).toContain('PORT: expected an integer between 0 and 65535, got forty-one');
}, 60_000);
