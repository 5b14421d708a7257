import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/channel/supporter-events.js';
import { closeRedisConnection, createRedisConnection } from '../../src/redis/connection.js';
import { memberWithStatus } from '../events/event-harness.js';
import { createChannelApp } from '../../src/app.js';
import { liveUpstream, makeDataDir, sandboxControl, silentLogger, testConfig } from '../http/harness.js';
import { eventually } from '../support/eventually.js';
import { REDIS_SERVER, startRedisServer, type RunningRedis } from '../support/redis-server.js';
import { describeWithBinary } from '../support/system-binary.js';
import { startReplicaSet, type ReplicaSet } from './replica-set.js';

const PREFIX = 'restart-test:';
/** Requests answered under load before the outage, and again while Redis is down. */
const LOAD_ANSWERS_PER_PHASE = 50;
const GRAPH_QUERY = JSON.stringify({ query: '{ supporters(platform: MEMBERSHIP) { id name } stats { subscribers } }' });

/** Round-robin GETs (REST and GraphQL) over the replicas until `stop` says so; counts every answer that is not a 2xx. */
function roundRobinLoad(urls: string[], concurrency: number) {
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const worker = async (offset: number): Promise<void> => {
    for (let index = offset; running; index += concurrency) {
      const url = urls[index % urls.length]!;
      const graph = index % 2 === 0;
      try {
        const response = graph
          ? await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: GRAPH_QUERY })
          : await fetch(`${url}/membership/pledges`);
        await response.arrayBuffer();
        if (response.status < 200 || response.status > 299) failures.push(`${graph ? 'POST /graphql' : 'GET /membership/pledges'} on ${url}: ${response.status}`);
      } catch (error) {
        failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      }
      sent += 1;
    }
  };
  const workers = Array.from({ length: concurrency }, (_unused, offset) => worker(offset));
  return {
    get sent() {
      return sent;
    },
    failures,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

async function webhookStatus(set: ReplicaSet, appUrl: string, event: string, memberId: string, tierId?: string): Promise<number> {
  const answer = await sandboxControl<{ status: number }>(set.sandbox, 'POST', 'webhook', { url: `${appUrl}/membership/webhook`, event, memberId, ...(tierId === undefined ? {} : { tierId }) });
  return answer.status;
}

describeWithBinary(REDIS_SERVER, 'Redis stopped and restarted (empty) under round-robin load on three replicas', (path) => {
  let redis: RunningRedis;
  let set: ReplicaSet;
  beforeAll(async () => {
    redis = await startRedisServer(path);
    set = await startReplicaSet({ count: 3, redisUrl: redis.url, prefix: PREFIX });
    for (const replica of set.replicas) await replica.store.read('membership');
  }, 60_000);
  afterAll(async () => {
    await set?.close();
    await redis?.stop();
  });

  it('no answer is a 5xx while Redis is down; the replicas reconnect, seed Redis again and a webhook crosses them again (recovery measured)', { timeout: 90_000 }, async () => {
    const [a, b, c] = set.replicas as [typeof set.replicas[0], typeof set.replicas[0], typeof set.replicas[0]];
    const received = set.replicas.map(() => [] as ChannelEvent[]);
    const unsubscribe = set.replicas.map((replica, index) => replica.events.subscribe((event) => received[index]!.push(event)));
    const load = roundRobinLoad(set.replicas.map((replica) => replica.url), 4);
    try {
      await eventually('answers under load before the outage', () => load.sent >= LOAD_ANSWERS_PER_PHASE);
      await redis.stop();
      const sentBeforeOutage = load.sent;
      // Down: a webhook cannot be stored anywhere, so it is refused with a 503 (the platform retries it).
      const newcomer = memberWithStatus(set.sandbox, 'former_patron', 2);
      const tier = set.sandbox.datasets.membership.tiers[1]!;
      expect(await webhookStatus(set, a.url, 'members:pledge:create', newcomer.id, tier.id)).toBe(503);
      // The load goes on while Redis is down: these answers are all counted (and checked for 5xx) below.
      await eventually('answers under load while Redis is down', () => load.sent >= sentBeforeOutage + LOAD_ANSWERS_PER_PHASE);
      await redis.restart();
      const back = performance.now();
      // The platform's retry: accepted once replica A is connected again.
      await eventually('replica A accepting the webhook again', async () => (await webhookStatus(set, a.url, 'members:pledge:create', newcomer.id, tier.id)) === 204, { timeoutMs: 20_000 });
      await eventually('the webhook on B and C after the restart', async () => {
        const answers = await Promise.all([b, c].map(async (replica) => (await fetch(`${replica.url}/membership/pledges`)).text()));
        return answers.every((text) => text.includes(newcomer.id));
      }, { timeoutMs: 20_000 });
      const recoveryMs = performance.now() - back;
      await eventually('the JOINED event on every replica', () => received.every((events) => events.some((event) => event.type === 'supporter' && event.supporter.id === newcomer.id)), { timeoutMs: 20_000 });
      console.info(`Redis restart under load: recovery (Redis back → a webhook on A visible on B and C) ${Math.round(recoveryMs)} ms; ${load.sent} requests, ${load.failures.length} failures`);
      // Every replica's snapshots are in Redis again (the restart emptied it).
      const check = createRedisConnection({ url: redis.url, prefix: '' });
      try {
        await check.connect();
        await eventually('the snapshots seeded again', async () => (await check.exists(`${PREFIX}snapshot:membership`, `${PREFIX}snapshot:video`, `${PREFIX}snapshot:stats`)) === 3, { timeoutMs: 20_000 });
      } finally {
        await closeRedisConnection(check);
      }
      expect(await webhookStatus(set, a.url, 'members:pledge:delete', newcomer.id)).toBe(204);
    } finally {
      await load.stop();
      for (const stop of unsubscribe) stop();
    }
    expect(load.failures).toEqual([]);
  });

  it('a replica started while Redis is down serves from its upstream, then joins the shared snapshots when Redis is back', async () => {
    await redis.stop();
    const dataDir = await makeDataDir();
    const late = await createChannelApp(testConfig(dataDir.path, liveUpstream(set.sandbox), { redis: { url: redis.url, prefix: PREFIX } }), { logger: silentLogger });
    try {
      const cold = await fetch(`${late.url}/membership/pledges`);
      expect(cold.status).toBe(200);
      await cold.arrayBuffer();
      await redis.restart();
      // A webhook on another replica after the restart reaches the late one: it subscribed when Redis came back.
      const newcomer = memberWithStatus(set.sandbox, 'former_patron', 3);
      const tier = set.sandbox.datasets.membership.tiers[1]!;
      await eventually('the webhook accepted', async () => (await webhookStatus(set, set.replicas[0]!.url, 'members:pledge:create', newcomer.id, tier.id)) === 204, { timeoutMs: 20_000 });
      await eventually('the webhook on the late replica', async () => (await (await fetch(`${late.url}/membership/pledges`)).text()).includes(newcomer.id), { timeoutMs: 20_000 });
      expect(await webhookStatus(set, set.replicas[0]!.url, 'members:pledge:delete', newcomer.id)).toBe(204);
    } finally {
      await late.close();
      await dataDir.remove();
    }
  }, 90_000);
});
