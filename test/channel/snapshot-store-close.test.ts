import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { StatsSnapshot, SupportersSnapshot } from '../../src/channel/models.js';
import { readSnapshotFile, snapshotPath, statsSnapshotSchema } from '../../src/channel/snapshot-file.js';
import { SnapshotStore } from '../../src/channel/snapshot-store.js';
import type { UpstreamSource } from '../../src/channel/upstream.js';

/**
 * close() on shutdown: fetches in flight are aborted, and one that completes anyway (a membership
 * fetch waiting for a token refresh, which is never aborted) is still written to disk before close()
 * resolves — the process exits right after.
 */
let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'snapshot-close-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const emptySupporters = (platform: 'membership' | 'video'): UpstreamSource<SupportersSnapshot> => ({
  name: platform,
  fetch: () => Promise.reject(new Error(`${platform}: not under test`)),
});

it('waits for a fetch in flight that completes despite the abort, and persists its snapshot', async () => {
  let signalSeen: AbortSignal | undefined;
  const stats: UpstreamSource<StatsSnapshot> = {
    name: 'stats',
    async fetch(signal) {
      signalSeen = signal;
      // Does not react to the abort: it completes, with a snapshot, only after it.
      await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
      return { subscribers: 77, fetchedAt: new Date().toISOString() };
    },
  };
  const store = new SnapshotStore({ sources: { membership: emptySupporters('membership'), video: emptySupporters('video'), stats }, dataDir, refreshIntervalMs: 0, logger: silent });
  await store.start();
  await store.close();
  expect(signalSeen?.aborted).toBe(true);
  expect(await readSnapshotFile(snapshotPath(dataDir, 'stats'), statsSnapshotSchema)).toMatchObject({ subscribers: 77 });
});
