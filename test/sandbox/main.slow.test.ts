import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { membersConfigSchema } from '../../src/channel/members-config.js';
import { builtModule } from '../support/built-module.js';

/** The entry built, on plain node: what is tested is the process, not how TypeScript is loaded. */
const MAIN = builtModule('src/sandbox/main.ts');

describe('npm run sandbox (src/sandbox/main.ts)', () => {
  it('listens on SANDBOX_PORT, prints its URL, the .env lines and a valid members.json, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_PATRONS: '5' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('\n}\n')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
      });
      const url = /emulated at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      expect(url).toBeDefined();
      expect(output).toContain(`MEMBERSHIP_API_BASE=${url}`);
      expect(output).toMatch(/^MEMBERSHIP_CLIENT_ID=sandbox-client-id$/m);
      expect(output).toMatch(/^MEMBERSHIP_REFRESH_TOKEN=sandbox-refresh-token$/m);
      const members: unknown = JSON.parse(output.slice(output.indexOf('{'), output.lastIndexOf('}') + 1));
      expect(membersConfigSchema.safeParse(members).success).toBe(true);
      const stats = await fetch(`${url}/__sandbox/stats`);
      expect(stats.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it.each(['eighty', '70000'])('refuses SANDBOX_PORT=%s with one line naming it and exit code 78 (EX_CONFIG)', async (port) => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, SANDBOX_PORT: port }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(78);
    expect(stderr.trim()).toBe(`SANDBOX_PORT: expected a port number 0-65535, got "${port}"`);
  });
});
