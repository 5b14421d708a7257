import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MEMBERSHIP_TOKEN_FILE } from '../../src/channel/membership-oauth.js';
import type { TokenHash } from '@channel-graph/oauth2';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { builtModule } from '../support/built-module.js';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { describeWithBinary } from '../support/system-binary.js';
import { type RunningProvider, startProvider } from './support/oidc.js';

/**
 * The login command as a user runs it — its own process (the `npm run authorize` entry,
 * src/authorize-main.ts, built and run on plain node as that script does) — with the authorization
 * page opened in real headless Chromium.
 */
const ENTRY = builtModule('src/authorize-main.ts');

interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  url: Promise<string>;
  exit: Promise<number | null>;
}

function spawnCommand(args: string[], env: Record<string, string>, cwd: string): Spawned {
  const child = spawn(process.execPath, [ENTRY, ...args], { cwd: fileURLToPath(new URL('../..', import.meta.url)), env: { PATH: process.env.PATH ?? '', ...env, ENV_FILE: join(cwd, 'no.env') }, stdio: 'pipe' });
  let out = '';
  let err = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /^ {2}(https?:\/\/\S+)$/m.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error(`the command exited before printing a URL: ${err}`)));
  });
  url.catch(() => undefined);
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, url, exit };
}

describeWithBinary(CHROMIUM, 'npm run authorize in its own process, the page in headless Chromium', (executablePath) => {
  let browser: Browser;
  let sandbox: RunningSandbox;
  let op: RunningProvider;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium(executablePath);
    sandbox = await startSandbox({ seed: 9 });
    op = await startProvider({ routes: { authorization: '/oauth2/authorize', token: '/api/oauth2/token', revocation: '/api/oauth2/revoke' } });
    dir = await mkdtemp(join(tmpdir(), 'authorize-chromium-'));
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await op?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function login(env: Record<string, string>, args: string[]): Promise<{ spawned: Spawned; pageText: string }> {
    const spawned = spawnCommand(['--no-browser', ...args], env, dir);
    try {
      const page = await browser.newPage();
      await page.goto(await spawned.url);
      await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
      const pageText = await page.locator('body').innerText();
      await page.close();
      return { spawned, pageText };
    } catch (error) {
      spawned.child.kill();
      throw error;
    }
  }

  it('against the sandbox: the browser follows the authorization page to the loopback callback; the token is stored', async () => {
    const sandboxDir = join(dir, 'sandbox');
    const env = { MEMBERSHIP_API_BASE: sandbox.url, MEMBERSHIP_CLIENT_ID: sandbox.credentials.clientId, MEMBERSHIP_CLIENT_SECRET: sandbox.credentials.clientSecret, DATA_DIR: sandboxDir };
    const { spawned, pageText } = await login(env, []);
    expect(pageText).toContain('You can close this tab');
    expect(await spawned.exit).toBe(0);
    expect(spawned.stdout()).toContain('Scopes granted: identity campaigns campaigns.members');
    const stored = JSON.parse(await readFile(join(sandboxDir, MEMBERSHIP_TOKEN_FILE), 'utf8')) as TokenHash;
    expect(spawned.stdout()).not.toContain(stored.access_token);
  });

  it('against oidc-provider: cookies, the interaction redirect and the consent in a real browser', async () => {
    const opDir = join(dir, 'op');
    const env = { MEMBERSHIP_API_BASE: op.issuer, MEMBERSHIP_CLIENT_ID: 'cli-app', MEMBERSHIP_CLIENT_SECRET: op.secrets.cli, DATA_DIR: opDir };
    const { spawned, pageText } = await login(env, ['--scope', 'openid offline_access']);
    expect(pageText).toContain('You can close this tab');
    expect(await spawned.exit).toBe(0);
    expect(spawned.stdout()).toContain('Account: user-1');
    expect((JSON.parse(await readFile(join(opDir, MEMBERSHIP_TOKEN_FILE), 'utf8')) as TokenHash).refresh_token).toBeTruthy();
  });
});
