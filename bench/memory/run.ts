/**
 * Memory under hostile documents: the app exactly as `npm start` runs it (built by
 * `npm run build`, then `node <the start script's flags> dist/src/main.js` in a child process, with an
 * empty environment: production, sandbox mode) receives BENCH_DOCUMENTS (2,000) distinct documents of
 * exactly the maximum size (64 KiB): valid ones (light, and ~900 tokens heavy), syntax errors, unknown
 * fields, token-limit breakers and documents one byte over the limit, half as POST and half as GET,
 * BENCH_CONCURRENCY (8) at a time. The child's RSS is sampled every 50 ms: idle (started, one answer),
 * peak, and after a BENCH_PAUSE_SECONDS (60 s) pause; a death is the child exiting during the run.
 * Two rows: the `npm start` defaults, and the same with the response cache off (the graph alone).
 * Targets (measured, not asserted): peak < 250 MB, after − idle < 30 MB, 0 deaths. Exits non-zero
 * only if the server died or answered a document with another status than it must.
 * Run: `npx tsx bench/memory/run.ts` (Linux: reads /proc/<pid>/status).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { formatTable, projectRoot, readStartScript, saveResults } from '../lib/index.js';
import { DOCUMENT_KINDS, hostileDocuments, type DocumentKind, type HostileDocument } from './documents.js';

const documentCount = Number(process.env.BENCH_DOCUMENTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const pauseSeconds = Number(process.env.BENCH_PAUSE_SECONDS ?? 60);
const maxDocumentBytes = DEFAULT_GRAPH_SETTINGS.maxDocumentBytes;
const TARGETS = { peakMb: 250, afterMinusIdleMb: 30, deaths: 0 };
const MB = 2 ** 20;

function rssOf(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, 'utf8').then((status) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024);
}

interface Server {
  child: ChildProcess;
  url: string;
  deaths: number;
  stop(): Promise<void>;
}

/** Starts the built app with the production environment `npm start` has (plus `env`) in an empty directory. */
async function startServer(args: string[], env: Record<string, string>): Promise<Server> {
  const cwd = await mkdtemp(join(tmpdir(), 'bench-memory-'));
  const { NODE_ENV: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, args, { cwd, env: { ...inherited, PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const server = { child, url: '', deaths: 0, stopping: false };
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
  });
  child.on('exit', () => {
    if (!server.stopping) server.deaths += 1;
  });
  return Object.assign(server, {
    url,
    async stop() {
      server.stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(cwd, { recursive: true, force: true });
    },
  });
}

function send(url: string, document: HostileDocument): Promise<number> {
  const headers = { accept: 'application/graphql-response+json' };
  const request =
    document.method === 'GET'
      ? fetch(`${url}/graphql?query=${encodeURIComponent(document.query)}`, { headers })
      : fetch(`${url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query: document.query }) });
  return request.then(
    async (response) => {
      await response.arrayBuffer();
      return response.status;
    },
    () => 0,
  );
}

interface Row {
  configuration: string;
  documents: number;
  byKind: Record<DocumentKind, Record<string, number>>;
  unexpected: number;
  idleMb: number;
  peakMb: number;
  afterMb: number;
  deaths: number;
}

async function measure(configuration: string, args: string[], env: Record<string, string>): Promise<Row> {
  const server = await startServer(args, env);
  const pid = server.child.pid!;
  try {
    const warm = await send(server.url, { kind: 'valid', method: 'POST', query: '{ stats { subscribers } }', expectedStatus: 200 });
    if (warm !== 200) throw new Error(`the first request answered ${warm}`);
    await sleep(2000);
    const idle = await rssOf(pid);

    let peak = idle;
    const sampler = setInterval(() => {
      rssOf(pid).then((rss) => (peak = Math.max(peak, rss)), () => undefined);
    }, 50);
    const documents = hostileDocuments(documentCount, maxDocumentBytes);
    const byKind = Object.fromEntries(DOCUMENT_KINDS.map((kind) => [kind, {}])) as Row['byKind'];
    let unexpected = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < documents.length && server.deaths === 0) {
        const document = documents[next++]!;
        const status = await send(server.url, document);
        const counts = byKind[document.kind];
        counts[status] = (counts[status] ?? 0) + 1;
        if (status !== document.expectedStatus) unexpected += 1;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, await rssOf(pid).catch(() => 0));

    await sleep(pauseSeconds * 1000);
    const after = server.deaths === 0 ? await rssOf(pid) : Number.NaN;
    console.log(`${configuration}: ${documents.length} documents in ${seconds.toFixed(1)} s`);
    return { configuration, documents: documents.length, byKind, unexpected, idleMb: idle / MB, peakMb: peak / MB, afterMb: after / MB, deaths: server.deaths };
  } finally {
    await server.stop();
  }
}

console.log('npm run build …');
await promisify(execFile)('npm', ['run', 'build'], { cwd: projectRoot });
const startScript = await readStartScript();
const args = [...startScript.nodeFlags, join(projectRoot, startScript.entry)];
console.log(`server: node ${args.join(' ')}`);

const rows = [await measure('npm start defaults', args, {}), await measure('response cache off', args, { GRAPHQL_RESPONSE_CACHE: 'false' })];

const mb = (value: number): string => (Number.isNaN(value) ? '—' : value.toFixed(0));
console.log(`\n${documentCount} distinct documents of ${maxDocumentBytes} bytes (too-large: +1), ${concurrency} at a time, RSS after a ${pauseSeconds} s pause\n`);
console.log(
  formatTable(
    ['configuration', 'idle MB', 'peak MB', 'after MB', 'after − idle', 'deaths', 'wrong status'],
    rows.map((row) => [row.configuration, mb(row.idleMb), mb(row.peakMb), mb(row.afterMb), mb(row.afterMb - row.idleMb), String(row.deaths), String(row.unexpected)]),
  ),
);
console.log('\nstatuses by kind (first row):');
for (const kind of DOCUMENT_KINDS) console.log(`  ${kind.padEnd(14)} ${JSON.stringify(rows[0]!.byKind[kind])}`);
const met = rows.map((row) => ({
  configuration: row.configuration,
  peak: row.peakMb < TARGETS.peakMb,
  after: row.afterMb - row.idleMb < TARGETS.afterMinusIdleMb,
  deaths: row.deaths === TARGETS.deaths,
}));
console.log(`\ntargets: peak < ${TARGETS.peakMb} MB, after within ${TARGETS.afterMinusIdleMb} MB of idle, ${TARGETS.deaths} deaths`);
for (const row of met) console.log(`  ${row.configuration}: peak ${row.peak ? 'met' : 'MISSED'}, after ${row.after ? 'met' : 'MISSED'}, deaths ${row.deaths ? 'met' : 'MISSED'}`);
console.log(`saved ${await saveResults('memory', { documentCount, maxDocumentBytes, concurrency, pauseSeconds, command: `node ${args.join(' ')}`, targets: TARGETS, rows, met })}`);
if (rows.some((row) => row.deaths > 0 || row.unexpected > 0)) process.exitCode = 1;
