import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp } from '../../src/app.js';
import { MEMBERSHIP_TOKEN_FILE } from '../../src/channel/membership-oauth.js';
import { EXIT_CONFIG, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from '../../src/cli/authorize-command.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { OAuth2Client, type TokenHash } from '@channel-graph/oauth2';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { approve, type AuthorizeRun, runAuthorize } from '../support/authorize-run.js';
import { type RunningProvider, startProvider } from './support/oidc.js';
import { createLogger } from '../../src/observability/logger.js';

/**
 * `npm run authorize` end to end, in process: the command prints the authorization URL, the test
 * plays the browser with an HTTP client (following redirects, delivering the callback to the
 * command's loopback listener), and the token lands in the service's token store.
 */
let sandbox: RunningSandbox;
let dataDir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 5 });
});
afterAll(async () => {
  await sandbox.close();
});

function sandboxEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MEMBERSHIP_API_BASE: sandbox.url,
    MEMBERSHIP_CLIENT_ID: sandbox.credentials.clientId,
    MEMBERSHIP_CLIENT_SECRET: sandbox.credentials.clientSecret,
    DATA_DIR: dir,
    ENV_FILE: join(dir, 'no.env'),
    ...extra,
  };
}

const run = (argv: string[], env: Record<string, string>): AuthorizeRun => runAuthorize(argv, env, dataDir);

async function storedToken(dir: string): Promise<TokenHash> {
  return JSON.parse(await readFile(join(dir, MEMBERSHIP_TOKEN_FILE), 'utf8')) as TokenHash;
}

async function withDataDir(test: (dir: string) => Promise<void>): Promise<void> {
  dataDir = await mkdtemp(join(tmpdir(), 'authorize-'));
  try {
    await test(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('npm run authorize against the sandbox (HTTP client as the browser)', () => {
  it('code + PKCE S256 + state on a 127.0.0.1 loopback listener; stores the token (0600) where npm start reads it; prints what was granted, never a token', () =>
    withDataDir(async (dir) => {
      const command = run(['--no-browser', '--scope', 'identity campaigns campaigns.members'], sandboxEnv(dir));
      const url = new URL(await command.authorizationUrl);
      expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.url}/oauth2/authorize`);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('state')).toMatch(/^[\w-]{22}$/);
      expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const page = await approve(url.href);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('You can close this tab');
      expect(await command.exitCode).toBe(EXIT_OK);

      const stored = await storedToken(dir);
      expect(stored.refresh_token).toMatch(/^sbx_rt\./);
      expect((await stat(join(dir, MEMBERSHIP_TOKEN_FILE))).mode & 0o777).toBe(0o600);
      const output = command.stdout.join('\n');
      expect(output).toContain(`Authorized ${sandbox.credentials.clientId} at ${sandbox.url}.`);
      expect(output).toContain('Scopes granted: identity campaigns campaigns.members');
      expect(output).toContain(`Saved to ${join(dir, MEMBERSHIP_TOKEN_FILE)}`);
      expect(output).not.toContain(stored.access_token);
      expect(output).not.toContain(stored.refresh_token);
      // The listener served one callback and closed.
      const port = new URL(url.searchParams.get('redirect_uri') ?? '').port;
      await expect(fetch(`http://127.0.0.1:${port}/callback`)).rejects.toThrow();

      // The service, configured without seed tokens, serves the creator's data with the stored token.
      const app = await createChannelApp(
        {
          port: 0,
          host: '127.0.0.1',
          dataDir: dir,
          refreshIntervalSeconds: 0,
          upstream: { mode: 'live', membership: { apiBase: sandbox.url, clientId: sandbox.credentials.clientId, clientSecret: sandbox.credentials.clientSecret, campaignId: sandbox.credentials.campaignId, webhookSecret: sandbox.credentials.webhookSecret }, video: { apiBase: sandbox.url, members: sandbox.credentials.members } },
          graph: { ...DEFAULT_GRAPH_SETTINGS },
        },
        { logger: createLogger({ level: 'silent' }) },
      );
      try {
        const pledges = await fetch(`${app.url}/membership/pledges`);
        expect(pledges.status).toBe(200);
        expect(((await pledges.json()) as { users: unknown[] }).users.length).toBeGreaterThan(0);
      } finally {
        await app.close();
      }
    }));

  it('--revoke revokes the stored tokens (RFC 7009) and deletes them; the old refresh token is dead; a second --revoke has nothing to do', () =>
    withDataDir(async (dir) => {
      const login = run(['--no-browser'], sandboxEnv(dir));
      await approve(await login.authorizationUrl);
      expect(await login.exitCode).toBe(EXIT_OK);
      const stored = await storedToken(dir);
      const revoke = run(['--revoke'], sandboxEnv(dir));
      expect(await revoke.exitCode).toBe(EXIT_OK);
      expect(revoke.stdout.join('\n')).toBe(`Revoked the refresh token and the access token at ${sandbox.url}; deleted ${join(dir, MEMBERSHIP_TOKEN_FILE)}.`);
      await expect(stat(join(dir, MEMBERSHIP_TOKEN_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
      const client = new OAuth2Client(sandbox.credentials.clientId, sandbox.credentials.clientSecret, { site: sandbox.url, tokenUrl: '/api/oauth2/token' });
      try {
        await expect(client.getToken({ grant_type: 'refresh_token', refresh_token: stored.refresh_token ?? '' })).rejects.toMatchObject({ code: 'invalid_grant' });
        expect((await client.request('get', `/api/oauth2/v2/campaigns/${sandbox.credentials.campaignId}`, { headers: { authorization: `Bearer ${stored.access_token}` }, raiseErrors: false })).status).toBe(401);
      } finally {
        await client.close();
      }
      const again = run(['--revoke'], sandboxEnv(dir));
      expect(await again.exitCode).toBe(EXIT_OK);
      expect(again.stdout).toEqual([`Nothing to revoke: no token is stored in ${join(dir, MEMBERSHIP_TOKEN_FILE)}.`]);
    }));

  it('error=access_denied (sandbox_decision=deny): a clear error, exit 1, nothing stored', () =>
    withDataDir(async (dir) => {
      const command = run(['--no-browser'], sandboxEnv(dir));
      const page = await approve(await command.authorizationUrl, { sandbox_decision: 'deny' });
      expect(page.status).toBe(400);
      expect(await command.exitCode).toBe(EXIT_FAILED);
      expect(command.stderr).toEqual(['authorize: the authorization was denied (access_denied: the creator denied the request)']);
      await expect(stat(join(dir, MEMBERSHIP_TOKEN_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    }));

  it('a state mismatch is refused before any code is exchanged', () =>
    withDataDir(async (dir) => {
      const command = run(['--no-browser'], sandboxEnv(dir));
      const url = new URL(await command.authorizationUrl);
      const before = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: { token: number } };
      const page = await fetch(`${url.searchParams.get('redirect_uri') ?? ''}?code=forged-code&state=not-the-state`);
      expect(page.status).toBe(400);
      expect(await command.exitCode).toBe(EXIT_FAILED);
      expect(command.stderr[0]).toMatch(/^authorize: state mismatch: the redirect does not answer this login/);
      const after = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: { token: number } };
      expect(after.requests.token).toBe(before.requests.token);
    }));

  it('no redirect within --timeout: a clear error naming the wait', () =>
    withDataDir(async (dir) => {
      const command = run(['--no-browser', '--timeout', '1'], sandboxEnv(dir));
      await command.authorizationUrl;
      expect(await command.exitCode).toBe(EXIT_FAILED);
      expect(command.stderr).toEqual(['authorize: timed out after 1 s waiting for the redirect from the authorization page; run the command again (--timeout sets the wait)']);
    }));

  it('the chosen --port in use: a clear error', () =>
    withDataDir(async (dir) => {
      const busy: Server = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const { port } = busy.address() as AddressInfo;
      try {
        const command = run(['--no-browser', '--port', String(port)], sandboxEnv(dir));
        expect(await command.exitCode).toBe(EXIT_FAILED);
        expect(command.stderr).toEqual([`authorize: port ${port} on 127.0.0.1 is in use: choose another with --port, or leave --port out for a free one`]);
      } finally {
        await new Promise((resolve) => busy.close(resolve));
      }
    }));

  it('a token endpoint error is shown with its OAuth2 code and description (wrong client secret → invalid_client)', () =>
    withDataDir(async (dir) => {
      const command = run(['--no-browser'], sandboxEnv(dir, { MEMBERSHIP_CLIENT_SECRET: 'not-the-secret' }));
      await approve(await command.authorizationUrl);
      expect(await command.exitCode).toBe(EXIT_FAILED);
      expect(command.stderr).toEqual(['authorize: the token endpoint refused the code: invalid_client: client authentication failed (HTTP 401)']);
      expect(command.stderr.join()).not.toContain('not-the-secret');
    }));

  it('bad arguments (exit 64) and a missing client id (exit 78) are one clear line each', () =>
    withDataDir(async (dir) => {
      const badTimeout = run(['--timeout', 'soon'], sandboxEnv(dir));
      expect(await badTimeout.exitCode).toBe(EXIT_USAGE);
      expect(badTimeout.stderr[0]).toBe('authorize: --timeout expects whole seconds 1-86400, got soon');
      const unknown = run(['--frobnicate'], sandboxEnv(dir));
      expect(await unknown.exitCode).toBe(EXIT_USAGE);
      const { MEMBERSHIP_CLIENT_ID: _id, ...withoutId } = sandboxEnv(dir);
      const noClient = run(['--no-browser'], withoutId);
      expect(await noClient.exitCode).toBe(EXIT_CONFIG);
      // There is no such file: the line says so, and points to the sandbox's test client.
      expect(noClient.stderr).toEqual([
        `configuration error: environment (no ${join(dir, 'no.env')} file): MEMBERSHIP_CLIENT_ID: expected a value: the OAuth client of the membership platform (its developer portal shows it; to try the login on the sandbox's test client, see docs/sandbox.md#test-credentials)`,
      ]);
    }));
});

describe('npm run authorize against oidc-provider (a certified OpenID provider at the membership paths)', () => {
  let op: RunningProvider;
  beforeAll(async () => {
    op = await startProvider({ routes: { authorization: '/oauth2/authorize', token: '/api/oauth2/token', revocation: '/api/oauth2/revoke' } });
  });
  afterAll(async () => {
    await op.close();
  });

  it('logs in (native loopback client, any port), names the account from the id_token, stores the token; --revoke revokes it at the provider', () =>
    withDataDir(async (dir) => {
      const env = { MEMBERSHIP_API_BASE: op.issuer, MEMBERSHIP_CLIENT_ID: 'cli-app', MEMBERSHIP_CLIENT_SECRET: op.secrets.cli, DATA_DIR: dir, ENV_FILE: join(dir, 'no.env') };
      const command = run(['--no-browser', '--scope', 'openid offline_access'], env);
      const page = await approve(await command.authorizationUrl, { prompt: 'consent' });
      expect(page.status).toBe(200);
      expect(await command.exitCode).toBe(EXIT_OK);
      const output = command.stdout.join('\n');
      expect(output).toContain('Account: user-1 (from the id_token, not verified)');
      expect(output).toContain('Scopes granted: openid offline_access');
      const stored = await storedToken(dir);
      expect(stored.refresh_token).toBeTruthy();
      expect(output).not.toContain(stored.refresh_token);

      const revoke = run(['--revoke'], env);
      expect(await revoke.exitCode).toBe(EXIT_OK);
      const client = new OAuth2Client('cli-app', op.secrets.cli, { site: op.issuer, tokenUrl: '/api/oauth2/token', authScheme: 'request_body' });
      try {
        await expect(client.getToken({ grant_type: 'refresh_token', refresh_token: stored.refresh_token ?? '' })).rejects.toMatchObject({ code: 'invalid_grant' });
      } finally {
        await client.close();
      }
    }));
});
