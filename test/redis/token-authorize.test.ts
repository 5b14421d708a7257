import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MEMBERSHIP_TOKEN_FILE } from '../../src/channel/membership-oauth.js';
import { EXIT_FAILED, EXIT_OK } from '../../src/cli/authorize-command.js';
import { AccessToken, OAuth2Client, type TokenHash } from '@channel-graph/oauth2';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { MEMBERSHIP_TOKEN_KEY } from '../../src/shared-state.js';
import { request, sandboxControl, sandboxRequests } from '../http/harness.js';
import { approve, runAuthorize } from '../support/authorize-run.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';
import { startReplicaSet, type ReplicaSet } from './replica-set.js';

/**
 * `npm run authorize` and `--revoke` with REDIS_URL set, while two replicas run (in process, live
 * mode against the sandbox): the token goes to the Redis record the replicas share and to no file;
 * the replicas switch to it at once; a revocation leaves them with no token, as a service started
 * without one.
 */
const PREFIX = 'authorize-test:';
const KEY = `${PREFIX}${MEMBERSHIP_TOKEN_KEY}`;

interface Health {
  sources: { membership: { last_error: string | null } };
}

describeWithBinary(REDIS_SERVER, 'npm run authorize with REDIS_URL, replicas running', (path) => {
  let redis: RunningRedis;
  let set: ReplicaSet;
  let dir: string;
  let observer: Redis;

  beforeAll(async () => {
    redis = await startRedisServer(path);
    set = await startReplicaSet({ count: 2, redisUrl: redis.url, prefix: PREFIX, sandbox: { seed: 1416 }, config: { upstreamTimeoutMs: 2_000 } });
    dir = await mkdtemp(join(tmpdir(), 'authorize-redis-'));
    observer = createRedisConnection({ url: redis.url, prefix: PREFIX });
    await observer.connect();
  });
  afterAll(async () => {
    await closeRedisConnection(observer);
    await set.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** The command's settings: the replicas' (same seed tokens in .env), with REDIS_URL. */
  const env = (extra: Record<string, string> = {}): Record<string, string> => {
    const { credentials } = set.sandbox;
    return {
      MEMBERSHIP_API_BASE: set.sandbox.url,
      MEMBERSHIP_CLIENT_ID: credentials.clientId,
      MEMBERSHIP_CLIENT_SECRET: credentials.clientSecret,
      MEMBERSHIP_ACCESS_TOKEN: credentials.accessToken,
      MEMBERSHIP_REFRESH_TOKEN: credentials.refreshToken,
      DATA_DIR: dir,
      ENV_FILE: join(dir, 'no.env'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: PREFIX,
      ...extra,
    };
  };
  const storedToken = async (): Promise<TokenHash | undefined> => {
    const token = await observer.hget(KEY, 'token');
    return token === null ? undefined : (JSON.parse(token) as TokenHash);
  };
  const tokenFiles = async (): Promise<string[]> => (await readdir(dir, { recursive: true })).filter((name) => name.includes('token'));
  const health = async (url: string): Promise<Health> => (await request(url, 'GET', '/healthz')).json<Health>();
  const oauthClient = (): OAuth2Client => new OAuth2Client(set.sandbox.credentials.clientId, set.sandbox.credentials.clientSecret, { site: set.sandbox.url, tokenUrl: '/api/oauth2/token', revokeUrl: '/api/oauth2/revoke', authScheme: 'request_body' });

  it('authorize: the token goes to Redis (version bumped, announced), no file is written; both replicas serve with it at once', async () => {
    const [first, second] = set.replicas;
    if (first === undefined || second === undefined) throw new Error('two replicas expected');
    await sandboxControl(set.sandbox, 'POST', 'expire-tokens'); // the seed token expires: a replica rotates it into Redis
    await first.store.refresh('membership');
    await second.store.refresh('membership');
    const before = await storedToken();
    if (before === undefined) throw new Error('the replicas stored no token');
    const versionBefore = Number(await observer.hget(KEY, 'version'));
    // What one membership refresh costs at the platform when the token is good.
    const baseline = await sandboxRequests(set.sandbox);
    await first.store.refresh('membership');
    const perRefresh = (await sandboxRequests(set.sandbox)).campaign - baseline.campaign;

    const login = runAuthorize(['--no-browser'], env(), dir);
    expect((await approve(await login.authorizationUrl)).status).toBe(200);
    expect(await login.exitCode).toBe(EXIT_OK);
    const output = login.stdout.join('\n');
    expect(output).toContain(`Saved to Redis (${redis.url}, key ${KEY}); running replicas switch to it now, and npm start uses it. No token file was written.`);
    const after = await storedToken();
    expect(after?.access_token).toEqual(expect.any(String));
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(output).not.toContain(after?.access_token);
    expect(Number(await observer.hget(KEY, 'version'))).toBe(versionBefore + 1);
    expect(await tokenFiles()).toEqual([]);

    // The replicas' previous access token stops working: a replica still holding it would get a 401
    // and retry (one more campaign call). Neither does, and neither calls the token endpoint.
    const client = oauthClient();
    try {
      await AccessToken.fromHash(client, before).revoke({ tokenTypeHint: 'access_token' });
    } finally {
      await client.close();
    }
    const counts = await sandboxRequests(set.sandbox);
    await first.store.refresh('membership');
    await second.store.refresh('membership');
    const now = await sandboxRequests(set.sandbox);
    expect(now.token).toBe(counts.token);
    expect(now.campaign - counts.campaign).toBe(2 * perRefresh);
    for (const replica of set.replicas) expect((await health(replica.url)).sources.membership.last_error).toBeNull();
  });

  it('--revoke: revokes and deletes the Redis token and a token file left from before the move; the replicas have no token, and say so', async () => {
    const inRedis = await storedToken();
    // A token file from before the move to Redis (its refresh token long retired, as after a migration).
    await writeFile(join(dir, MEMBERSHIP_TOKEN_FILE), JSON.stringify({ access_token: 'sbx_at.left-over', refresh_token: 'sbx_rt.left-over', token_type: 'Bearer' }), { mode: 0o600 });
    const revoke = runAuthorize(['--revoke'], env(), dir);
    expect(await revoke.exitCode).toBe(EXIT_OK);
    const origin = set.sandbox.url;
    expect(revoke.stdout).toEqual([
      `Revoked the refresh token and the access token at ${origin}; deleted Redis (${redis.url}, key ${KEY}).`,
      `Revoked the refresh token and the access token at ${origin}; deleted ${join(dir, MEMBERSHIP_TOKEN_FILE)}.`,
      'Note: .env still sets MEMBERSHIP_ACCESS_TOKEN/MEMBERSHIP_REFRESH_TOKEN; npm start falls back to them.',
    ]);
    expect(await storedToken()).toBeUndefined();
    expect(await tokenFiles()).toEqual([]);
    const client = oauthClient();
    try {
      await expect(client.getToken({ grant_type: 'refresh_token', refresh_token: inRedis?.refresh_token ?? '' })).rejects.toMatchObject({ code: 'invalid_grant' });
    } finally {
      await client.close();
    }

    // The replicas dropped the revoked token: their next refresh fails (last snapshot served, stale)
    // without presenting the revoked refresh token.
    const calls = (await sandboxRequests(set.sandbox)).token;
    for (const replica of set.replicas) {
      await expect(replica.store.refresh('membership')).rejects.toThrow();
      expect((await health(replica.url)).sources.membership.last_error).toBe('membership: campaign: no usable token (the stored token was revoked by npm run authorize -- --revoke); log in with npm run authorize');
      expect((await request(replica.url, 'GET', '/membership/pledges')).status).toBe(200);
    }
    expect((await sandboxRequests(set.sandbox)).token).toBe(calls);
    expect(await storedToken()).toBeUndefined();

    const again = runAuthorize(['--revoke'], env(), dir);
    expect(await again.exitCode).toBe(EXIT_OK);
    expect(again.stdout[0]).toBe(`Nothing to revoke: no token is stored in Redis (${redis.url}, key ${KEY}) nor in ${join(dir, MEMBERSHIP_TOKEN_FILE)}.`);
  });

  it('a login after a revocation: the replicas serve again', async () => {
    const login = runAuthorize(['--no-browser'], env(), dir);
    await approve(await login.authorizationUrl);
    expect(await login.exitCode).toBe(EXIT_OK);
    for (const replica of set.replicas) {
      await replica.store.refresh('membership');
      expect((await health(replica.url)).sources.membership.last_error).toBeNull();
    }
  });

  it('Redis unreachable: exit 1 with one clear line before any login page, nothing written', async () => {
    const login = runAuthorize(['--no-browser'], env({ REDIS_URL: 'redis://127.0.0.1:1' }), dir);
    expect(await login.exitCode).toBe(EXIT_FAILED);
    expect(login.stdout).toEqual([]);
    expect(login.stderr).toEqual([expect.stringMatching(/^authorize: Redis at redis:\/\/127\.0\.0\.1:1 is unreachable \(connect ECONNREFUSED 127\.0\.0\.1:1\); nothing was changed$/) as string]);
    expect(await tokenFiles()).toEqual([]);
  });
});
