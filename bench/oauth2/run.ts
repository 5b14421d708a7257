/**
 * bench/oauth2: the per-request overhead of `accessToken.get()` against a bare `ky` GET of the same
 * local URL, and client-credentials token fetches per second. The server runs in a child process
 * (bench/oauth2/server.ts). The two GETs run in alternating short rounds; the overhead figure is the
 * median of the per-round time ratios, so a load change on the machine affects both sides of a pair.
 *
 *   npx tsx bench/oauth2/run.ts          (ROUNDS, ROUND_MS, CONCURRENCY override the defaults)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import ky from 'ky';
import { AccessToken, OAuth2Client } from '@channel-graph/oauth2';
import { createTransport } from '../../packages/oauth2/src/transport.js';
import { formatTable, ratio, saveResults } from '../lib/index.js';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const ROUND_MS = Number(process.env.ROUND_MS ?? 250);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);

async function startServerProcess(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./server.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: chunk.toString().trim(), stop: () => child.kill('SIGTERM') };
}

/** Runs `operation` from CONCURRENCY loops for `durationMs`; returns completed operations per second. */
async function throughput(operation: () => Promise<unknown>, durationMs: number): Promise<number> {
  const deadline = performance.now() + durationMs;
  let completed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await operation();
        completed += 1;
      }
    }),
  );
  return completed / ((performance.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const server = await startServerProcess();
const resource = `${server.url}/resource`;
const client = new OAuth2Client('bench-client', 'bench-secret', { site: server.url });
const token = new AccessToken(client, 'bench-access-token');
/** ky on the library's own transport (the default pool: the global fetch): isolates the library layer above ky. */
const transport = createTransport({});

const candidates: Record<string, () => Promise<unknown>> = {
  'bare ky GET': () => ky.get(resource).text(),
  'ky GET, library transport': () => transport.http.get(resource).text(),
  'accessToken.get()': () => token.get('resource'),
};

try {
  for (const operation of Object.values(candidates)) await throughput(operation, 1000); // warm-up
  const rounds: Record<string, number[]> = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const entries = Object.entries(candidates);
    const order = [...entries.slice(round % entries.length), ...entries.slice(0, round % entries.length)]; // rotate who runs first
    for (const [name, operation] of order) rounds[name]?.push(await throughput(operation, ROUND_MS));
  }
  const perSecond = (name: string): number => median(rounds[name] ?? []);
  /** Time per request of accessToken.get() over that of `baseline`: the median of per-round ratios. */
  const timeRatio = (baseline: string): number =>
    ratio(median((rounds[baseline] ?? []).map((value, round) => value / (rounds['accessToken.get()']?.[round] ?? Number.NaN))), 1);
  const bare = perSecond('bare ky GET');
  const sameTransport = perSecond('ky GET, library transport');
  const ours = perSecond('accessToken.get()');
  const overhead = timeRatio('bare ky GET'); // the target: ≤ 1.10
  const layerOverhead = timeRatio('ky GET, library transport');

  await throughput(() => client.clientCredentials.getToken(), 1000); // warm-up
  const tokenRounds: number[] = [];
  for (let round = 0; round < 3; round += 1) tokenRounds.push(await throughput(() => client.clientCredentials.getToken(), ROUND_MS));
  const tokenFetches = median(tokenRounds);

  console.log(
    formatTable(
      ['operation', 'req/s (median)', 'µs/req', 'accessToken.get() time ÷ this'],
      [
        ['bare ky GET (global fetch)', bare.toFixed(0), (1e6 / bare).toFixed(1), overhead.toFixed(2)],
        ['ky GET, library transport', sameTransport.toFixed(0), (1e6 / sameTransport).toFixed(1), layerOverhead.toFixed(2)],
        ['accessToken.get()', ours.toFixed(0), (1e6 / ours).toFixed(1), '1.00'],
        ['clientCredentials.getToken()', tokenFetches.toFixed(0), (1e6 / tokenFetches).toFixed(1), ''],
      ],
    ),
  );
  console.log(`\n${ROUNDS} rounds of ${ROUND_MS} ms per operation (order rotated), ${CONCURRENCY} concurrent loops; target accessToken.get() ≤ 1.10× bare ky.`);
  const file = await saveResults('oauth2', {
    settings: { rounds: ROUNDS, roundMs: ROUND_MS, concurrency: CONCURRENCY },
    requestsPerSecond: { bareKyGet: bare, kyGetLibraryTransport: sameTransport, accessTokenGet: ours, clientCredentialsGetToken: tokenFetches },
    rounds: { ...rounds, 'clientCredentials.getToken()': tokenRounds },
    accessTokenGetTimeRatio: { vsBareKy: overhead, vsKyOnLibraryTransport: layerOverhead },
    target: 1.1,
  });
  console.log(`saved ${file}`);
} finally {
  await Promise.all([client.close(), transport.close()]);
  server.stop();
}
