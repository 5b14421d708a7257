import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createChannelApp, sandboxUpstream } from '../../src/app.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { eventually } from '../support/eventually.js';

it("app.close() closes the OAuth2 client's connection pool (no keep-alive socket to the membership platform is left open)", async () => {
  const sandbox = await startSandbox({ seed: 4 });
  const target = new URL(sandbox.url);
  // A TCP relay in front of the membership platform, counting the app's open connections.
  const open = new Set<Socket>();
  const relay = createServer((socket) => {
    open.add(socket);
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      open.delete(socket);
      upstream.destroy();
      socket.destroy();
    };
    socket.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const dataDir = await mkdtemp(join(tmpdir(), 'app-close-'));
  try {
    const upstream = sandboxUpstream(sandbox);
    const membership = { ...upstream.membership, apiBase: `http://127.0.0.1:${(relay.address() as AddressInfo).port}` };
    const app = await createChannelApp(
      { port: 0, host: '127.0.0.1', dataDir, refreshIntervalSeconds: 0, upstream: { mode: 'live', membership, video: upstream.video }, graph: { ...DEFAULT_GRAPH_SETTINGS } },
      { logger: createLogger({ level: 'silent' }) },
    );
    expect((await fetch(`${app.url}/membership/pledges`)).status).toBe(200);
    expect(open.size).toBeGreaterThan(0); // keep-alive connections of the OAuth2 client's pool
    await app.close();
    // undici keeps an idle socket ~4 s (its keep-alive timeout); closed by app.close(), it goes now.
    await eventually('the pool connections closed', () => open.size === 0, { timeoutMs: 2_000 });
  } finally {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => relay.close(resolve));
    await sandbox.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
