/**
 * bench/history: the channel over time at scale, on embedded PGlite and on PostgreSQL.
 *
 * - A simulated year (DAYS, default 365; no sleeping: the recorder's clock is the simulation's) of
 *   refreshes of 10,000 patrons (PATRONS) with churn — each month about 4 % leave, 5 % join and 2 %
 *   change tier — through the real SnapshotStore and HistoryRecorder (compaction included). The last
 *   7 days (FINE_DAYS) are refreshed every 5 minutes, the days before them every hour, and the days
 *   before the last 90 (HOURLY_DAYS) once a day: the database ends as a year of 5-minute refreshes
 *   leaves it after compaction (one sample an hour after 7 days, one a day after 90), with every
 *   change, in a twenty-fifth of the recordings.
 *   Figures: the database's storage at the end (the history's tables, and PGlite's whole directory),
 *   a year of history by day (p99 of 200 reads), a page of 50 changes at a random cursor (p99 of 500).
 * - A refresh with recording against one without: the app over the sandbox's 10,000 patrons, 15
 *   refreshes each (a few patrons change between two), recording included in the first.
 * - `npm start`'s resident memory at idle with the embedded database against without (bench/history/idle.ts),
 *   on a start that opens the database's directory (and, apart, on the first start, which creates it).
 *
 *   npx tsx bench/history/run.ts              (BACKENDS=pglite,postgres; DATABASE_URL, or a PostgreSQL
 *                                             15 started here from /usr/lib/postgresql/15/bin)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createChannelApp } from '../../src/app.js';
import type { StatsSnapshot, Supporter, SupportersSnapshot, Tier } from '../../src/channel/models.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { createHistoryDatabase } from '../../src/history/history-database.js';
import { readChanges, readHistory } from '../../src/history/history-queries.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { createLogger } from '../../src/observability/logger.js';
import { POSTGRES, startPostgresServer } from '../../test/support/postgres-server.js';
import { formatTable, ratio, saveResults } from '../lib/index.js';

const DAYS = Number(process.env.DAYS ?? 365);
const PATRONS = Number(process.env.PATRONS ?? 10_000);
const BACKENDS = (process.env.BACKENDS ?? 'pglite,postgres').split(',');
const STEP_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;
/** The last days refreshed every 5 minutes; before them, hourly: what compaction keeps of a 5-minute year. */
const FINE_DAYS = Number(process.env.FINE_DAYS ?? 7);
/** The last days refreshed at least hourly; before them, daily: what compaction keeps after 90 days. */
const HOURLY_DAYS = Number(process.env.HOURLY_DAYS ?? 90);
const DAY_MS = 86_400_000;
const silent = { info() {}, warn() {}, error() {} };
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A small seeded generator (mulberry32): the same churn on every backend. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const TIERS: Tier[] = [300, 500, 1000, 2500].map((amountCents, index) => ({ id: `t${index}`, platform: 'membership', title: `Tier ${index}`, amountCents }));

function quantiles(values: number[]): { medianMs: number; p99Ms: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { medianMs: Math.round(at(0.5) * 100) / 100, p99Ms: Math.round(at(0.99) * 100) / 100 };
}

async function simulateYear(backend: string, options: { url?: string; dataDir?: string }): Promise<Record<string, unknown>> {
  const random = prng(49);
  const clock = { now: Date.UTC(2025, 0, 1) };
  let nextId = 0;
  const patron = (): Supporter => {
    const tier = TIERS[Math.floor(random() * TIERS.length)] as Tier;
    return { id: String(++nextId), platform: 'membership', name: `P${nextId}`, tierId: tier.id, amountCents: tier.amountCents as number, since: new Date(clock.now).toISOString() };
  };
  const patrons = new Map<string, Supporter>();
  for (let i = 0; i < PATRONS; i += 1) {
    const one = patron();
    patrons.set(one.id, one);
  }
  let subscribers = 100_000;
  const fetchedAt = () => new Date(clock.now).toISOString();
  const membership: UpstreamSource<SupportersSnapshot> = { name: 'membership', fetch: async () => ({ platform: 'membership', supporters: [...patrons.values()], tiers: TIERS, fetchedAt: fetchedAt() }) };
  const video: UpstreamSource<SupportersSnapshot> = { name: 'video', fetch: async () => ({ platform: 'video', supporters: [], tiers: [], fetchedAt: fetchedAt() }) };
  const stats: UpstreamSource<StatsSnapshot> = { name: 'stats', fetch: async () => ({ subscribers, fetchedAt: fetchedAt() }) };
  const store = new SnapshotStore({ sources: { membership, video, stats }, refreshIntervalMs: 0, logger: silent });
  const database = createHistoryDatabase({ ...options, logger: silent });
  const recorder = new HistoryRecorder({ database, store, now: () => clock.now, logger: silent });
  recorder.start();
  await store.start();
  const { db } = await database.opened();
  await recorder.settled();
  const end = clock.now + DAYS * 86_400_000;
  const fineFrom = end - FINE_DAYS * DAY_MS;
  const hourlyFrom = end - HOURLY_DAYS * DAY_MS;
  const started = performance.now();
  const recordMs: number[] = [];
  for (let step = 0; clock.now < end; step += 1) {
    const stepMs = clock.now >= fineFrom ? STEP_MS : clock.now >= hourlyFrom ? HOUR_MS : DAY_MS;
    clock.now += stepMs;
    // Churn: each month ~4 % leave, ~5 % join, ~2 % change tier.
    const size = patrons.size;
    const events = (rate: number) => { const expected = (size * rate * stepMs) / (30 * 86_400_000); return Math.floor(expected) + (random() < expected % 1 ? 1 : 0); };
    const ids = [...patrons.keys()];
    for (let n = events(0.04); n > 0; n -= 1) patrons.delete(ids[Math.floor(random() * ids.length)] as string);
    for (let n = events(0.05); n > 0; n -= 1) { const one = patron(); patrons.set(one.id, one); }
    for (let n = events(0.02); n > 0; n -= 1) {
      const id = ids[Math.floor(random() * ids.length)] as string;
      const old = patrons.get(id);
      const tier = TIERS[Math.floor(random() * TIERS.length)] as Tier;
      if (old !== undefined) patrons.set(id, { ...old, tierId: tier.id, amountCents: tier.amountCents as number });
    }
    subscribers += Math.floor(random() * 5);
    const t0 = performance.now();
    await Promise.all([store.refresh('membership'), store.refresh('video'), store.refresh('stats')]);
    await recorder.settled();
    recordMs.push(performance.now() - t0);
    if (step % 240 === 0) console.log(`  ${backend}: day ${Math.round((clock.now - (end - DAYS * 86_400_000)) / 86_400_000)} of ${DAYS} (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  const tables = ['recorded_supporter', 'recorded_snapshot', 'supporter_change', 'totals_sample', 'totals_tier', 'goal_state', 'schema_migration'];
  const { rows } = await sql<{ bytes: number }>`SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c WHERE c.relname IN (${sql.join(tables)}) AND c.relkind = 'r'`.execute(db);
  const counts = await sql<{ changes: number; samples: number }>`SELECT (SELECT count(*) FROM supporter_change)::int AS changes, (SELECT count(*) FROM totals_sample)::int AS samples`.execute(db);
  const now = new Date(clock.now);
  const yearAgo = new Date(clock.now - 365 * 86_400_000);
  const historyMs: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const t0 = performance.now();
    await readHistory(db, { from: yearAgo, to: now, interval: 'day', platforms: ['membership', 'video'] });
    historyMs.push(performance.now() - t0);
  }
  const all = (await db.selectFrom('supporter_change').select(['id', 'observed_at']).orderBy('observed_at').orderBy('id').execute());
  const pageMs: number[] = [];
  for (let i = 0; i < 500; i += 1) {
    const at = all[Math.floor(random() * all.length)];
    const t0 = performance.now();
    await readChanges(db, { since: yearAgo, platforms: ['membership', 'video'], limit: 50, ...(at === undefined ? {} : { after: { observedAt: at.observed_at, id: at.id } }) });
    pageMs.push(performance.now() - t0);
  }
  await recorder.close();
  await store.close();
  await database.close();
  const directoryMb = options.dataDir === undefined ? undefined : Number(execFileSync('du', ['-sk', options.dataDir]).toString().split('\t')[0]) / 1024;
  return {
    days: DAYS,
    patronsAtEnd: patrons.size,
    changes: counts.rows[0]?.changes,
    totalsSamples: counts.rows[0]?.samples,
    storageMb: Math.round((Number(rows[0]?.bytes ?? 0) / 1024 / 1024) * 10) / 10,
    ...(directoryMb === undefined ? {} : { directoryMb: Math.round(directoryMb * 10) / 10 }),
    recordings: recordMs.length,
    refreshAndRecordMs: quantiles(recordMs),
    yearByDayMs: quantiles(historyMs),
    changesPageMs: quantiles(pageMs),
    simulationSeconds: Math.round((performance.now() - started) / 1000),
  };
}

/** A refresh of the sandbox's patrons over HTTP, with the history recording it and without. */
async function refreshRatio(options: { url?: string }): Promise<{ withMs: number; withoutMs: number; ratio: number }> {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const timings: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (const variant of ['without', 'with'] as const) {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-history-app-'));
    const app = await createChannelApp(
      { port: 0, host: '127.0.0.1', dataDir, refreshIntervalSeconds: 0, upstream: { mode: 'sandbox' }, graph: { ...DEFAULT_GRAPH_SETTINGS }, history: variant === 'with', ...(options.url === undefined ? {} : { databaseUrl: options.url }) },
      { logger: createLogger({ level: 'silent' }), sandbox: { patrons: PATRONS } },
    );
    await app.store.refresh('membership');
    if (app.history !== undefined) {
      while (app.history.health().state !== 'open' || app.history.recorder.backlog.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await app.history.recorder.settled();
      }
    }
    for (let round = 0; round < 16; round += 1) {
      for (let i = 0; i < 5; i += 1) app.sandbox?.datasets.membership.override((round * 5 + i) % PATRONS, { currentlyEntitledAmountCents: 100 * (round + 7) });
      const t0 = performance.now();
      await app.store.refresh('membership');
      await app.history?.recorder.settled();
      if (round > 0) timings[variant].push(performance.now() - t0);
    }
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const [withMs, withoutMs] = [median(timings.with), median(timings.without)];
  return { withMs: Math.round(withMs), withoutMs: Math.round(withoutMs), ratio: ratio(withMs, withoutMs) };
}

function idleRss(variant: 'on' | 'off', dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['--expose-gc', join(ROOT, 'bench/history/idle.ts'), variant, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('exit', (code) => (code === 0 ? resolve((JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { rssMb: number }).rssMb) : reject(new Error(`idle.ts ${variant} exited with ${code}`))));
  });
}

const load = () => (execFileSync('cat', ['/proc/loadavg']).toString().trim());
const results: Record<string, unknown> = { patrons: PATRONS, loadBefore: load() };
for (const backend of BACKENDS) {
  let server: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
  let options: { url?: string; dataDir?: string } = {};
  const dir = await mkdtemp(join(tmpdir(), 'bench-history-'));
  if (backend === 'postgres') {
    if (process.env.DATABASE_URL !== undefined) options = { url: process.env.DATABASE_URL };
    else {
      if (POSTGRES.path === undefined) throw new Error(`PostgreSQL not found (${POSTGRES.install})`);
      server = await startPostgresServer(POSTGRES.path);
      options = { url: server.url };
    }
  } else options = { dataDir: join(dir, 'database') };
  console.log(`${backend}: simulating ${DAYS} days of 5-minute refreshes of ${PATRONS} patrons`);
  const year = await simulateYear(backend, options);
  if (server !== undefined) {
    // A fresh database for the refresh ratio.
    await server.remove();
    server = await startPostgresServer(POSTGRES.path as string);
    options = { url: server.url };
  }
  const refresh = await refreshRatio(backend === 'postgres' ? options : {});
  results[backend] = { ...year, refresh };
  await server?.remove();
  await rm(dir, { recursive: true, force: true });
}
const idleDir = await mkdtemp(join(tmpdir(), 'bench-history-idle-'));
// The embedded database's first start creates its directory (once); every later start opens it.
const firstStartMb = await idleRss('on', join(idleDir, 'on'));
const idle = { withoutMb: await idleRss('off', join(idleDir, 'off')), withMb: await idleRss('on', join(idleDir, 'on')), firstStartMb };
await rm(idleDir, { recursive: true, force: true });
results.idleRss = { ...idle, deltaMb: Math.round((idle.withMb - idle.withoutMb) * 10) / 10 };
results.loadAfter = load();

const rows = BACKENDS.map((backend) => {
  const r = results[backend] as { storageMb: number; directoryMb?: number; yearByDayMs: { p99Ms: number }; changesPageMs: { p99Ms: number }; refresh: { ratio: number }; changes: number };
  return [backend, `${r.storageMb}${r.directoryMb === undefined ? '' : ` (dir ${r.directoryMb})`}`, String(r.changes), String(r.yearByDayMs.p99Ms), String(r.changesPageMs.p99Ms), String(r.refresh.ratio)];
});
console.log(`\n${DAYS} days, ${PATRONS} patrons; load ${String(results.loadBefore)} → ${String(results.loadAfter)}\n`);
console.log(formatTable(['backend', 'storage MB (≤ 50)', 'changes', 'year by day p99 ms (≤ 50)', 'page of changes p99 ms (≤ 20)', 'refresh with/without (≤ 1.2)'], rows));
console.log(`\nidle RSS: ${idle.withoutMb} MB without the embedded database, ${idle.withMb} MB with (+${(results.idleRss as { deltaMb: number }).deltaMb} MB; ≤ +60); ${idle.firstStartMb} MB after the start that created it`);
console.log(`saved to ${await saveResults('history', results)}`);
