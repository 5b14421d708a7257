/**
 * bench/notifications: the outbox and its delivery worker (src/notifications/) on embedded PGlite and
 * on PostgreSQL, three real receivers on 127.0.0.1 answering 204 at once.
 *
 * - Steady: EVENTS (10,000) events at RATE (100) a second, each batch written in a transaction as the
 *   recorder's hook writes it and the worker woken after the commit, to 3 destinations: the p50, p99
 *   and max from an event recorded (its `timestamp`, taken before the transaction) to its arrival at
 *   each receiver (target p99 ≤ 1 s).
 * - Throughput: the same number of events written at once (in transactions of 1,000): deliveries a
 *   second until the last arrives, against the floor of the same number of POSTs sent by one undici
 *   pool at the same concurrency with no database (the ratio is the figure; both run here, now).
 * - Outage: one destination down (connection refused) for a simulated hour while events keep coming
 *   (the worker's clock runs SPEEDUP times faster: its backoff waits shrink, its deadlines do not):
 *   the process's heap and RSS sampled across the hour (bounded: the backlog stays in the database,
 *   the worker holds at most `concurrency` deliveries), then how long until every event is delivered
 *   once it is back, and whether every one arrived.
 *
 *   npx tsx bench/notifications/run.ts      (BACKENDS=pglite,postgres; EVENTS, RATE, SPEEDUP,
 *                                             OUTAGE_EVENTS_PER_SECOND; DATABASE_URL, or a PostgreSQL
 *                                             15 started here from /usr/lib/postgresql/15/bin)
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { openDatabase, type Database } from '../../src/db/database.js';
import type { DeliverySettings, Destination } from '../../src/notifications/destinations.js';
import { NOTIFICATION_FIELDS, type NotificationInput } from '../../src/notifications/events.js';
import { NotificationOutbox } from '../../src/notifications/outbox.js';
import { createSafeAgent } from '../../src/notifications/safe-agent.js';
import { DeliveryWorker } from '../../src/notifications/worker.js';
import { POSTGRES, startPostgresServer } from '../../test/support/postgres-server.js';
import { formatTable, ratio, saveResults } from '../lib/index.js';

const EVENTS = Number(process.env.EVENTS ?? 10_000);
const RATE = Number(process.env.RATE ?? 100);
const BACKENDS = (process.env.BACKENDS ?? 'pglite,postgres').split(',');
const SPEEDUP = Number(process.env.SPEEDUP ?? 60);
const OUTAGE_EVENTS_PER_SECOND = Number(process.env.OUTAGE_EVENTS_PER_SECOND ?? 10);
const HOUR_MS = 3_600_000;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const DESTINATIONS = ['crm', 'alerts', 'archive'] as const;
const silent = { info() {}, warn() {}, error() {} };
const load = (): string => execFileSync('cat', ['/proc/loadavg']).toString().trim();

interface Receiver {
  url: string;
  port: number;
  /** Arrival times by event id (the first arrival of each). */
  arrivals: Map<string, number>;
  /** Latency of each first arrival, from the event's timestamp. */
  latencies: number[];
  requests: number;
  close(): Promise<void>;
}

async function startReceiver(port = 0): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const latencies: number[] = [];
  let requests = 0;
  const server: Server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const now = Date.now();
      requests += 1;
      const id = incoming.headers['webhook-id'] as string;
      if (!arrivals.has(id)) {
        arrivals.set(id, now);
        latencies.push(now - Date.parse((JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string }).timestamp));
      }
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    arrivals,
    latencies,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const destinationsFor = (receivers: readonly Receiver[]): Destination[] =>
  receivers.map((receiver, index) => ({
    name: DESTINATIONS[index] as string,
    type: 'webhook',
    url: `${receiver.url}/hooks`,
    secret: SECRET,
    events: new Set(['supporter.joined']),
    fields: new Set(NOTIFICATION_FIELDS),
    concurrency: 8,
  }));

let sequence = 0;
function joins(count: number): NotificationInput[] {
  const at = new Date().toISOString();
  return Array.from({ length: count }, () => ({ kind: 'supporter.joined' as const, at, supporter: { id: `s${(sequence += 1)}`, platform: 'membership' as const, name: 'Ada', tier: { id: 't1', title: 'Fan' }, amountCents: 500 } }));
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > giveUp) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const DELIVERY: DeliverySettings = { attemptTimeoutMs: 10_000, firstRetryDelayMs: 5_000, maxRetryDelayMs: HOUR_MS, retryForMs: 24 * HOUR_MS };

interface Rig {
  outbox: NotificationOutbox;
  worker: DeliveryWorker;
  write(inputs: readonly NotificationInput[]): Promise<void>;
  close(): Promise<void>;
}

function rig(database: Database, destinations: Destination[], now: () => number = Date.now): Rig {
  const outbox = new NotificationOutbox({ db: () => database.db, destinations, now });
  const dispatcher = createSafeAgent({ allowLoopback: true, connectTimeoutMs: 5_000 });
  const worker = new DeliveryWorker({ store: outbox, config: { destinations, delivery: DELIVERY }, dispatcher, logger: silent, now, pollIntervalMs: 1_000 });
  worker.start();
  return {
    outbox,
    worker,
    async write(inputs) {
      for (let start = 0; start < inputs.length; start += 1_000) await database.db.transaction().execute((tx) => outbox.enqueue(tx, inputs.slice(start, start + 1_000)));
      // As the app does once a recording has committed.
      worker.wake();
    },
    async close() {
      await worker.close(0);
      await dispatcher.close();
    },
  };
}

async function steady(database: Database): Promise<Record<string, number>> {
  const receivers = await Promise.all(DESTINATIONS.map(() => startReceiver()));
  const bench = rig(database, destinationsFor(receivers));
  const tickMs = 100;
  const perTick = Math.max(1, Math.round((RATE * tickMs) / 1000));
  const started = Date.now();
  for (let written = 0; written < EVENTS; written += perTick) {
    await bench.write(joins(Math.min(perTick, EVENTS - written)));
    const next = started + ((written + perTick) / RATE) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  await until('every steady event', () => receivers.every((receiver) => receiver.arrivals.size >= EVENTS), 300_000);
  await bench.close();
  const latencies = receivers.flatMap((receiver) => receiver.latencies);
  await Promise.all(receivers.map((receiver) => receiver.close()));
  return { eventsPerSecond: RATE, events: EVENTS, deliveries: latencies.length, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), maxMs: Math.max(...latencies) };
}

async function burst(database: Database): Promise<Record<string, number>> {
  const receivers = await Promise.all(DESTINATIONS.map(() => startReceiver()));
  const bench = rig(database, destinationsFor(receivers));
  const started = performance.now();
  await bench.write(joins(EVENTS));
  await until('every burst event', () => receivers.every((receiver) => receiver.arrivals.size >= EVENTS), 600_000);
  const seconds = (performance.now() - started) / 1000;
  await bench.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  return { deliveriesPerSecond: Math.round((EVENTS * DESTINATIONS.length) / seconds), seconds: Math.round(seconds * 10) / 10 };
}

/** The floor: the same POSTs, the same concurrency per receiver, one pool, no database. */
async function floor(): Promise<number> {
  const receivers = await Promise.all(DESTINATIONS.map(() => startReceiver()));
  const dispatcher = createSafeAgent({ allowLoopback: true, connectTimeoutMs: 5_000 });
  const body = JSON.stringify({ type: 'supporter.joined', timestamp: new Date().toISOString(), data: { supporter: { id: 's', name: 'Ada' } } });
  const started = performance.now();
  await Promise.all(
    receivers.flatMap((receiver) =>
      Array.from({ length: 8 }, async (_, lane) => {
        for (let index = lane; index < EVENTS; index += 8) {
          const answer = await request(`${receiver.url}/hooks`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'webhook-id': `evt_${index}` }, dispatcher });
          await answer.body.dump();
        }
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  return Math.round((EVENTS * DESTINATIONS.length) / seconds);
}

async function outage(database: Database): Promise<Record<string, unknown>> {
  const receivers = await Promise.all(DESTINATIONS.map(() => startReceiver()));
  const down = receivers[2] as Receiver;
  const port = down.port;
  await down.close();
  // The worker's clock: SPEEDUP simulated milliseconds a real one, so an hour of backoff passes in 3,600 / SPEEDUP s.
  const origin = Date.now();
  const now = (): number => origin + (Date.now() - origin) * SPEEDUP;
  const bench = rig(database, destinationsFor(receivers), now);
  const memory: Array<{ atSimulatedMinute: number; heapMb: number; rssMb: number; backlog: number }> = [];
  let written = 0;
  const hourRealMs = HOUR_MS / SPEEDUP;
  const outageStart = Date.now();
  let lastSample = 0;
  while (Date.now() - outageStart < hourRealMs) {
    await bench.write(joins(OUTAGE_EVENTS_PER_SECOND));
    written += OUTAGE_EVENTS_PER_SECOND;
    if (Date.now() - lastSample >= hourRealMs / 12) {
      lastSample = Date.now();
      const pending = (await bench.outbox.counts()).find((row) => row.destination === DESTINATIONS[2] && row.state === 'pending')?.count ?? 0;
      const usage = process.memoryUsage();
      memory.push({ atSimulatedMinute: Math.round(((Date.now() - outageStart) * SPEEDUP) / 60_000), heapMb: Math.round(usage.heapUsed / 2 ** 20), rssMb: Math.round(usage.rss / 2 ** 20), backlog: pending });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const back = await startReceiver(port);
  const recovered = Date.now();
  await until('the backlog after the outage', () => back.arrivals.size >= written, (HOUR_MS / SPEEDUP) * 3);
  const recoveryRealSeconds = (Date.now() - recovered) / 1000;
  const healthyComplete = receivers.slice(0, 2).every((receiver) => receiver.arrivals.size >= written);
  await bench.close();
  await Promise.all([...receivers.slice(0, 2), back].map((receiver) => receiver.close()));
  return {
    simulatedHour: true,
    speedup: SPEEDUP,
    events: written,
    memory,
    heapGrowthMb: (memory.at(-1)?.heapMb ?? 0) - (memory[0]?.heapMb ?? 0),
    recoverySimulatedMinutes: Math.round((recoveryRealSeconds * SPEEDUP) / 60),
    recoveryRealSeconds: Math.round(recoveryRealSeconds * 10) / 10,
    allDelivered: back.arrivals.size >= written && healthyComplete,
  };
}

const results: Record<string, unknown> = { events: EVENTS, rate: RATE, destinations: DESTINATIONS.length, loadBefore: load() };
const floorPerSecond = await floor();
results.floor = { deliveriesPerSecond: floorPerSecond };
const rows: string[][] = [];
for (const backend of BACKENDS) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-notifications-'));
  let server: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
  let url = process.env.DATABASE_URL;
  if (backend === 'postgres' && url === undefined) {
    if (POSTGRES.path === undefined) throw new Error(`PostgreSQL not found (${POSTGRES.install})`);
    server = await startPostgresServer(POSTGRES.path);
    url = server.url;
  }
  const open = (): Promise<Database> => openDatabase(backend === 'postgres' ? { url: url as string } : { dataDir: join(dir, 'database') });
  console.log(`${backend}: ${EVENTS} events at ${RATE}/s to ${DESTINATIONS.length} destinations`);
  let database = await open();
  const steadyFigures = await steady(database);
  console.log(`${backend}: ${EVENTS} events at once`);
  const burstFigures = await burst(database);
  await database.close();
  console.log(`${backend}: one destination down for a simulated hour (${SPEEDUP}× clock)`);
  database = await open();
  const outageFigures = await outage(database);
  await database.close();
  results[backend] = { steady: steadyFigures, burst: { ...burstFigures, ratioToFloor: ratio(burstFigures.deliveriesPerSecond as number, floorPerSecond) }, outage: outageFigures };
  rows.push([
    backend,
    String(steadyFigures.p50Ms),
    String(steadyFigures.p99Ms),
    String(burstFigures.deliveriesPerSecond),
    String(ratio(burstFigures.deliveriesPerSecond as number, floorPerSecond)),
    `${String(outageFigures.heapGrowthMb)} MB`,
    `${String(outageFigures.recoverySimulatedMinutes)} min`,
    String(outageFigures.allDelivered),
  ]);
  await server?.remove();
  await rm(dir, { recursive: true, force: true });
}
results.loadAfter = load();
console.log(
  formatTable(['database', `p50 ms at ${RATE}/s`, `p99 ms at ${RATE}/s (≤ 1000)`, 'deliveries/s (burst)', `× floor (${floorPerSecond}/s)`, 'heap growth, hour down', 'backlog delivered after', 'all delivered'], rows),
);
console.log(`load: before ${String(results.loadBefore)}, after ${String(results.loadAfter)}`);
console.log(`→ ${await saveResults('notifications', results)}`);
