/**
 * bench/durability: the window in which a crash loses the rotated refresh token — from the moment
 * the authorization server has sent its answer (and retired the old refresh token) until the new
 * token is on disk. Two points are measured per refresh, through the real TokenKeeper and
 * FileTokenStore on DATA_DIR's file system (os.tmpdir() here):
 *
 * - flushed: the temporary file is written and fsynced (from here a `kill -9` or a power cut is
 *   recovered at the next start, FileTokenStore.recover);
 * - saved: renamed over the token file, the save resolved (what the keeper waits for before anyone
 *   uses the new token).
 *
 * The floor is one open + write + fsync + close of the same bytes on the same file system.
 *
 *   npx tsx bench/durability/run.ts          (ROUNDS overrides the default 300)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuth2Client, TokenKeeper, type TokenHash } from '@channel-graph/oauth2';
import { FileTokenStore } from '../../src/channel/file-token-store.js';
import { formatTable, ratio, saveResults } from '../lib/index.js';

const ROUNDS = Number(process.env.ROUNDS ?? 300);

/** When the token endpoint's answer for each issued access token had been handed to the kernel. */
const answeredAt = new Map<string, number>();
let issued = 0;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    issued += 1;
    const accessToken = `access-${issued}`;
    const body = JSON.stringify({ access_token: accessToken, refresh_token: `refresh-${issued}-${'r'.repeat(40)}`, token_type: 'Bearer', expires_in: 3600 });
    response.on('finish', () => answeredAt.set(accessToken, performance.now()));
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const dir = await mkdtemp(join(tmpdir(), 'bench-durability-'));
const path = join(dir, 'membership-token.json');
let flushedAt = 0;
let savedAt = 0;
class TimedStore extends FileTokenStore {
  override async save(token: TokenHash): Promise<void> {
    await super.save(token);
    savedAt = performance.now();
  }
}
const store = new TimedStore(path, {
  rename: (from, to) => {
    flushedAt = performance.now();
    return rename(from, to);
  },
});
const client = new OAuth2Client('bench-client', 'bench-secret', { site });
const keeper = new TokenKeeper(client, { initial: { access_token: 'access-0', refresh_token: 'refresh-0' }, store });

const toFlushed: number[] = [];
const toSaved: number[] = [];
let tokenBytes = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const token = await keeper.refresh();
  const answered = answeredAt.get(token.token);
  if (answered === undefined) throw new Error(`no answer recorded for ${token.token}`);
  toFlushed.push(flushedAt - answered);
  toSaved.push(savedAt - answered);
  tokenBytes = JSON.stringify(await store.load()).length;
}

/** The floor: one durable write of the same number of bytes, nothing else. */
const floor: number[] = [];
const bytes = 'x'.repeat(tokenBytes);
for (let round = 0; round < ROUNDS; round += 1) {
  const started = performance.now();
  const handle = await open(join(dir, `floor-${round}.tmp`), 'w', 0o600);
  await handle.writeFile(bytes);
  await handle.sync();
  await handle.close();
  floor.push(performance.now() - started);
}

await client.close();
await new Promise((resolve) => server.close(resolve));
await rm(dir, { recursive: true, force: true });

function stats(values: number[]): { medianMs: number; p99Ms: number; maxMs: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? Number.NaN;
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return { medianMs: round(at(0.5)), p99Ms: round(at(0.99)), maxMs: round(sorted[sorted.length - 1] ?? Number.NaN) };
}

const rows = {
  'answer → flushed (recoverable)': stats(toFlushed),
  'answer → saved (renamed)': stats(toSaved),
  'floor: one fsynced write': stats(floor),
};
const floorMedian = rows['floor: one fsynced write'].medianMs;
console.log(`${ROUNDS} refreshes, token file ${tokenBytes} bytes, ${tmpdir()}\n`);
console.log(
  formatTable(
    ['window', 'median ms', 'p99 ms', 'max ms', '× floor (median)'],
    Object.entries(rows).map(([name, row]) => [name, row.medianMs.toFixed(3), row.p99Ms.toFixed(3), row.maxMs.toFixed(3), ratio(row.medianMs, floorMedian).toFixed(2)]),
  ),
);
console.log(`\nsaved to ${await saveResults('durability', { rounds: ROUNDS, tokenBytes, directory: tmpdir(), windows: rows })}`);
