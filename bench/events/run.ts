/**
 * Live events at scale: one app process (sandbox mode, production defaults,
 * EVENTS_MAX_STREAMS 1,000 per transport) with BENCH_SSE (1,000) server-sent-event subscribers —
 * half GraphQL over SSE on /graphql (graphql-sse distinct connections), half GET /events — and
 * BENCH_WS (100) GraphQL-over-WebSocket subscribers (graphql-transport-ws), all open at once.
 * - Delivery latency: BENCH_ROUNDS (30) signed webhooks, each through the sandbox's
 *   `/__sandbox/webhook` (a patron leaves); the time from sending it to the moment the LAST
 *   subscriber has the event, p50/p99 over the rounds, and p50/p99 over every single delivery.
 * - RSS per idle subscriber: the app's RSS (after a full GC) with every subscriber connected and
 *   idle, minus its RSS before the first one connected, divided by their number.
 * The same rounds with one subscriber per transport first: the floor (the webhook's own path).
 * Targets (measured, not asserted): last-subscriber p99 < 100 ms, < 20 KB per idle subscriber.
 * Every subscriber must get every event: a lost delivery fails the run (exit 1).
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the app there (unset: none).
 * Run: `npx tsx bench/events/run.ts` (Linux: reads /proc/<pid>/status). Clients run in this process,
 * the app in a child, on the same cores: on a shared machine the latency includes that contention.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { formatTable, projectRoot, saveResults } from '../lib/index.js';

const SSE_SUBSCRIBERS = Number(process.env.BENCH_SSE ?? 1000);
const WS_SUBSCRIBERS = Number(process.env.BENCH_WS ?? 100);
// Even: each patron who leaves in a round comes back in the next, so every phase ends as it began.
const ROUNDS = 2 * Math.ceil(Number(process.env.BENCH_ROUNDS ?? 30) / 2);
const TARGETS = { lastSubscriberP99Ms: 100, kbPerIdleSubscriber: 20 };
const KB = 1024;

const SUBSCRIPTION = 'subscription { supporterChanged { id change supporter { id name } } }';

/** One open subscription: it notes when a text it waits for arrives. */
interface Subscriber {
  transport: 'graphql-sse' | 'events' | 'graphql-ws';
  /** performance.now() when the awaited marker arrived, or undefined. */
  arrivedAt: number | undefined;
  close(): void;
}

let awaited = '';

function watch(subscriber: Subscriber, data: Buffer): void {
  if (subscriber.arrivedAt === undefined && awaited !== '' && data.includes(awaited)) subscriber.arrivedAt = performance.now();
}

function rssOf(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, 'utf8').then((status) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * KB);
}

/**
 * An SSE stream over its own TCP connection, resolved once the 200 head is in. A raw socket rather
 * than node:http's client: the thousand streams of this process are read one after the other on
 * one event loop, so what each read costs here (HTTP parsing, decoding) would be added to the
 * latency of every stream read after it — a cost real overlays, each on its own machine, do not share.
 * The awaited marker is searched in the bytes as they arrive (the chunked framing of the answer
 * cannot split it: each event is one chunk).
 */
function openStream(base: URL, path: string, transport: Subscriber['transport']): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: base.hostname, port: Number(base.port) });
    const subscriber: Subscriber = { transport, arrivedAt: undefined, close: () => socket.destroy() };
    let head = '';
    const readHead = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', readHead);
      if (!head.startsWith('HTTP/1.1 200')) {
        reject(new Error(`${transport} ${path}: ${head.split('\r\n')[0]}`));
        socket.destroy();
        return;
      }
      socket.on('data', (data: Buffer) => watch(subscriber, data));
      resolve(subscriber);
    };
    socket.on('data', readHead);
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nhost: ${base.host}\r\naccept: text/event-stream\r\n\r\n`);
  });
}

/** A graphql-ws connection with one subscription, resolved once the server acknowledged it. */
function openSocket(base: URL): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${base.host}/graphql`, 'graphql-transport-ws');
    const subscriber: Subscriber = { transport: 'graphql-ws', arrivedAt: undefined, close: () => socket.terminate() };
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', (data: Buffer) => {
      if (data.includes('"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION } }));
        resolve(subscriber);
        return;
      }
      watch(subscriber, data);
    });
    socket.on('error', reject);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

async function startApp(): Promise<{ pid: number; url: string; sandboxUrl: string; stop(): Promise<void> }> {
  const cwd = await mkdtemp(join(tmpdir(), 'bench-events-'));
  // npm start's environment: no channel settings (sandbox mode, production defaults).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(NODE_ENV|SANDBOX|EVENTS_\w+|MEMBERSHIP_\w+|VIDEO_\w+|GRAPHQL_\w+|DATA_DIR|PORT|HOST)$/.test(name)));
  const child = spawn(process.execPath, ['--max-semi-space-size=8', '--expose-gc', ...(process.env.BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]), '--import', import.meta.resolve('tsx'), join(projectRoot, 'bench', 'events', 'server.ts')], {
    cwd,
    env: { ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = await new Promise<{ url: string; sandboxUrl: string }>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith('{"url"'));
      if (line !== undefined) resolve(JSON.parse(line) as { url: string; sandboxUrl: string });
    });
    child.once('exit', (code) => reject(new Error(`the app exited (${code}) before listening:\n${output}`)));
  });
  return {
    pid: child.pid!,
    ...started,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(cwd, { recursive: true, force: true });
    },
  };
}

async function idleRss(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await sleep(1_000);
  return rssOf(pid);
}

interface Latency {
  /** Per round, ms from sending the webhook to the last subscriber having its event. */
  lastSubscriberMs: number[];
  /** Every delivery, ms from sending the webhook, by transport. */
  deliveries: Record<Subscriber['transport'], number[]>;
  lost: number;
}

let round = 0;

/** BENCH_ROUNDS webhooks; each waits until every subscriber has its event (or 10 s). */
async function deliveryRounds(subscribers: readonly Subscriber[], patrons: ReadonlyArray<{ id: string }>): Promise<Latency> {
  const lastSubscriberMs: number[] = [];
  const deliveries: Latency['deliveries'] = { 'graphql-sse': [], events: [], 'graphql-ws': [] };
  let lost = 0;
  for (let index = 0; index < ROUNDS; index += 1, round += 1) {
    // A patron leaves (LEFT), and comes back the next round (JOINED).
    const patron = patrons[Math.floor(round / 2) % patrons.length]!;
    const event = round % 2 === 0 ? 'members:pledge:delete' : 'members:pledge:create';
    for (const subscriber of subscribers) subscriber.arrivedAt = undefined;
    awaited = `"${patron.id}"`;
    const sent = performance.now();
    const answer = await fetch(`${app.sandboxUrl}/__sandbox/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${app.url}/membership/webhook`, event, memberId: patron.id }),
    });
    if (answer.status !== 200) throw new Error(`webhook ${round}: ${answer.status} ${await answer.text()}`);
    await answer.arrayBuffer();
    const deadline = performance.now() + 10_000;
    while (subscribers.some((subscriber) => subscriber.arrivedAt === undefined) && performance.now() < deadline) await sleep(1);
    let last = 0;
    for (const subscriber of subscribers) {
      if (subscriber.arrivedAt === undefined) {
        lost += 1;
        continue;
      }
      const ms = subscriber.arrivedAt - sent;
      deliveries[subscriber.transport].push(ms);
      last = Math.max(last, ms);
    }
    lastSubscriberMs.push(last);
    await sleep(200);
  }
  awaited = '';
  return { lastSubscriberMs, deliveries, lost };
}

const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

const app = await startApp();
const base = new URL(app.url);
let failed = false;
try {
  const pledges = (await (await fetch(`${app.url}/membership/pledges`)).json()) as { users: Array<{ id: string }> };
  if (pledges.users.length === 0) throw new Error('the sandbox has no patrons');
  // Warm the paths once (first-request compilation is not per-subscriber memory).
  (await openStream(base, `/graphql?query=${encodeURIComponent(SUBSCRIPTION)}`, 'graphql-sse')).close();
  (await openStream(base, '/events', 'events')).close();
  (await openSocket(base)).close();
  // The floor: the same rounds with one subscriber per transport (the webhook's own path).
  const few = [
    await openStream(base, `/graphql?query=${encodeURIComponent(SUBSCRIPTION)}`, 'graphql-sse'),
    await openStream(base, '/events', 'events'),
    await openSocket(base),
  ];
  const floor = await deliveryRounds(few, pledges.users);
  for (const subscriber of few) subscriber.close();
  await sleep(500);
  const rssBefore = await idleRss(app.pid);

  const subscribers: Subscriber[] = [];
  const graphSse = Math.ceil(SSE_SUBSCRIBERS / 2);
  for (let index = 0; index < SSE_SUBSCRIBERS; index += 1) {
    subscribers.push(await (index < graphSse ? openStream(base, `/graphql?query=${encodeURIComponent(SUBSCRIPTION)}`, 'graphql-sse') : openStream(base, '/events', 'events')));
  }
  for (let index = 0; index < WS_SUBSCRIBERS; index += 1) subscribers.push(await openSocket(base));
  await sleep(2_000);
  const rssAfter = await idleRss(app.pid);
  const bytesPerSubscriber = (rssAfter - rssBefore) / subscribers.length;

  const full = await deliveryRounds(subscribers, pledges.users);
  awaited = '';
  for (const subscriber of subscribers) subscriber.close();

  const sortedLast = sorted(full.lastSubscriberMs);
  const floorLast = sorted(floor.lastSubscriberMs);
  const every = sorted(Object.values(full.deliveries).flat());
  const byTransport = Object.fromEntries(
    Object.entries(full.deliveries).map(([transport, values]) => {
      const ordered = sorted(values);
      return [transport, { subscribers: subscribers.filter((subscriber) => subscriber.transport === transport).length, p50Ms: round1(percentile(ordered, 50)), p99Ms: round1(percentile(ordered, 99)) }];
    }),
  );
  const lost = full.lost + floor.lost;
  const figures = {
    subscribers: { sse: SSE_SUBSCRIBERS, graphqlSse: graphSse, events: SSE_SUBSCRIBERS - graphSse, websocket: WS_SUBSCRIBERS, total: subscribers.length },
    rounds: ROUNDS,
    loadAverage: loadavg().map(round1),
    lostDeliveries: lost,
    oneSubscriberPerTransport: { p50Ms: round1(percentile(floorLast, 50)), p99Ms: round1(percentile(floorLast, 99)) },
    lastSubscriber: { p50Ms: round1(percentile(sortedLast, 50)), p99Ms: round1(percentile(sortedLast, 99)), maxMs: round1(sortedLast.at(-1) ?? Number.NaN) },
    everyDelivery: { p50Ms: round1(percentile(every, 50)), p99Ms: round1(percentile(every, 99)) },
    byTransport,
    rss: { beforeMb: round1(rssBefore / 2 ** 20), withSubscribersMb: round1(rssAfter / 2 ** 20), kbPerIdleSubscriber: round1(bytesPerSubscriber / KB) },
    targets: TARGETS,
    met: { lastSubscriberP99: percentile(sortedLast, 99) < TARGETS.lastSubscriberP99Ms, memory: bytesPerSubscriber / KB < TARGETS.kbPerIdleSubscriber },
    command: 'npx tsx bench/events/run.ts',
  };
  console.log(
    formatTable(
      ['figure', 'measured', 'target'],
      [
        ['subscribers (GraphQL SSE + GET /events + WebSocket)', `${graphSse} + ${SSE_SUBSCRIBERS - graphSse} + ${WS_SUBSCRIBERS}`, ''],
        ['floor: 1 subscriber per transport, last p50 / p99', `${figures.oneSubscriberPerTransport.p50Ms} / ${figures.oneSubscriberPerTransport.p99Ms} ms`, ''],
        ['webhook → last subscriber p50', `${figures.lastSubscriber.p50Ms} ms`, ''],
        ['webhook → last subscriber p99', `${figures.lastSubscriber.p99Ms} ms`, `< ${TARGETS.lastSubscriberP99Ms} ms`],
        ['webhook → any subscriber p50 / p99', `${figures.everyDelivery.p50Ms} / ${figures.everyDelivery.p99Ms} ms`, ''],
        ['RSS before → with subscribers', `${figures.rss.beforeMb} → ${figures.rss.withSubscribersMb} MB`, ''],
        ['RSS per idle subscriber', `${figures.rss.kbPerIdleSubscriber} KB`, `< ${TARGETS.kbPerIdleSubscriber} KB`],
        ['lost deliveries', String(lost), '0'],
      ],
    ),
  );
  console.log(`saved ${await saveResults('events', figures)}`);
  failed = lost > 0;
} finally {
  await app.stop();
}
if (failed) process.exitCode = 1;
