import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { EXIT_FAILED } from '../../src/cli/authorize-command.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { MEMBERSHIP_TOKEN_KEY } from '../../src/shared-state.js';
import { request, sandboxControl } from '../http/harness.js';
import { runAuthorize } from '../support/authorize-run.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { startReplicas, stopReplicas, type Replica } from '../support/replicas.js';
import { describeWithBinary } from '../support/system-binary.js';

/**
 * `REDIS_URL=rediss://…`: the service (its own process, `src/main.ts`) talks TLS to a redis-server
 * that listens only on a TLS port, with a certificate from a throwaway CA. The CA is trusted the
 * standard Node way, `NODE_EXTRA_CA_CERTS`; without it the connection fails closed: Redis is
 * reported unreachable, nothing is written to it, and the replica keeps answering (no 5xx).
 */
interface Health {
  status: string;
  redis?: { reachable: boolean; last_error: string | null };
}

describeWithBinary(REDIS_SERVER, 'REDIS_URL=rediss:// (TLS)', (path) => {
  let redis: RunningRedis;
  let sandbox: RunningSandbox;
  let dir: string;
  let observer: Redis;
  const running: Replica[] = [];

  beforeAll(async () => {
    redis = await startRedisServer(path, { tls: true });
    sandbox = await startSandbox({ seed: 1417 });
    dir = await mkdtemp(join(tmpdir(), 'redis-tls-replicas-'));
    // The test trusts the CA explicitly; the processes under test get it through NODE_EXTRA_CA_CERTS.
    observer = new Redis(redis.url, { tls: { ca: readFileSync(redis.caFile ?? '') }, lazyConnect: true });
    await observer.connect();
  });
  afterAll(async () => {
    await stopReplicas(running);
    observer.disconnect();
    await sandbox.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const health = async (replica: Replica): Promise<Health> => (await request(replica.url, 'GET', '/healthz')).json<Health>();
  /** Replicas are processes of their own: their start and their first Redis round trips take a while on a loaded machine. */
  const until = (what: string, check: () => Promise<boolean>): Promise<true> => eventually(what, check, { timeoutMs: 30_000, intervalMs: 100 });
  const clientNames = async (): Promise<string[]> => [...String(await observer.call('CLIENT', 'LIST')).matchAll(/ name=(\S*)/g)].map((match) => match[1] ?? '');

  it('the CA trusted through NODE_EXTRA_CA_CERTS: the replica connects over TLS, stores the token in Redis and serves', async () => {
    const replicas = await startReplicas(1, { sandbox, redisUrl: redis.url, dir: join(dir, 'trusted'), env: { NODE_EXTRA_CA_CERTS: redis.caFile ?? '', REDIS_PREFIX: 'tls:', REFRESH_INTERVAL_SECONDS: '1' } });
    running.push(...replicas);
    const [replica] = replicas as [Replica];
    await until('/healthz reports Redis reachable', async () => (await health(replica)).redis?.reachable === true);
    expect(await clientNames()).toEqual(expect.arrayContaining(['channel-graph:state', 'channel-graph:changes', 'channel-graph:events']));
    await sandboxControl(sandbox, 'POST', 'expire-tokens'); // the next refresh rotates the token: into Redis
    await until('the rotated token is in Redis', async () => (await observer.hget(`tls:${MEMBERSHIP_TOKEN_KEY}`, 'token')) !== null);
    expect((await request(replica.url, 'GET', '/membership/pledges')).status).toBe(200);
    expect(await health(replica)).toMatchObject({ status: 'ok', redis: { reachable: true, last_error: null } });
    await stopReplicas(replicas);
  });

  it('the CA not trusted: fails closed — Redis reported unreachable (certificate), nothing reaches Redis, reads still answer 200', async () => {
    // A sandbox of its own: the seed token is valid (no refresh is possible without Redis's lock).
    const ownSandbox = await startSandbox({ seed: 1418 });
    onTestFinished(() => ownSandbox.close());
    const replicas = await startReplicas(1, { sandbox: ownSandbox, redisUrl: redis.url, dir: join(dir, 'untrusted'), env: { REDIS_PREFIX: 'untrusted:', REFRESH_INTERVAL_SECONDS: '1' } });
    running.push(...replicas);
    const [replica] = replicas as [Replica];
    const report = await health(replica);
    expect(report.status).toBe('degraded');
    expect(report.redis).toEqual({ reachable: false, last_error: expect.stringMatching(/certificate/) as string });
    for (const path of ['/membership/pledges', '/video/members', '/video/stats', '/healthz']) expect((await request(replica.url, 'GET', path)).status).toBe(200);
    expect(await observer.keys('untrusted:*')).toEqual([]);
    expect((await clientNames()).filter((name) => name.startsWith('channel-graph:'))).toEqual([]);
    await stopReplicas(replicas);
  });

  it('npm run authorize with a rediss:// URL whose certificate is not trusted: exit 1 before any login page, naming the certificate', async () => {
    const { credentials } = sandbox;
    const login = runAuthorize(
      ['--no-browser'],
      { MEMBERSHIP_API_BASE: sandbox.url, MEMBERSHIP_CLIENT_ID: credentials.clientId, MEMBERSHIP_CLIENT_SECRET: credentials.clientSecret, DATA_DIR: dir, ENV_FILE: join(dir, 'no.env'), REDIS_URL: redis.url },
      dir,
    );
    expect(await login.exitCode).toBe(EXIT_FAILED);
    expect(login.stdout).toEqual([]);
    expect(login.stderr).toEqual([`authorize: Redis at ${redis.url} is unreachable (self-signed certificate in certificate chain); nothing was changed`]);
  });
});
