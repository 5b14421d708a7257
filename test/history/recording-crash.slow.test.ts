/**
 * kill -9 in the middle of a recording, on PGlite and on PostgreSQL: the service (src/main.ts, built,
 * as a child process, in live mode over a sandbox of this process) is killed while the transaction
 * that records thousands of changes is under way. The database holds all of them or none, and the
 * restart records each change once. The kill lands in the middle when the database, read right
 * after it, holds none of them; the test repeats with more changes until it has seen that once
 * (on PostgreSQL; see the note at the end for PGlite).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { builtModule, START_NODE_FLAGS } from '../support/built-module.js';
import { describeOnDatabases } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { liveModeEnv } from '../support/live-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = builtModule('src/main.ts');
const PATRONS = 10_000;
/** The change sets, growing: the larger the transaction, the likelier the kill lands inside it. */
const SETS = [1_000, 3_000, 5_000];

interface Service {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

describeOnDatabases('kill -9 in the middle of a recording', (backend) => {
  let sandbox: RunningSandbox;
  let dir: string;
  const running: Service[] = [];
  beforeEach(async () => {
    sandbox = await startSandbox({ seed: 7, patrons: PATRONS });
    dir = await mkdtemp(join(tmpdir(), 'channel-crash-'));
    await writeFile(join(dir, 'members.json'), JSON.stringify(sandbox.credentials.members));
  });
  afterEach(async () => {
    for (const service of running.splice(0)) {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      await service.exited;
    }
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  function start(database: { url?: string | undefined; dataDir?: string | undefined }): Service {
    const child = spawn(process.execPath, [...START_NODE_FLAGS, MAIN], {
      cwd: ROOT,
      stdio: 'pipe',
      env: {
        PATH: process.env.PATH ?? '',
        ENV_FILE: join(dir, 'absent.env'),
        PORT: '0',
        ...liveModeEnv(sandbox),
        MEMBERS_CONFIG: join(dir, 'members.json'),
        DATA_DIR: join(dir, 'data'),
        REFRESH_INTERVAL_SECONDS: '1',
        ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
      },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const service = { child, output: () => output, exited };
    running.push(service);
    return service;
  }

  const line = (service: Service, pattern: RegExp, what: string, timeoutMs = 120_000) =>
    eventually(what, () => {
      const found = pattern.exec(service.output());
      if (found === null && (service.child.exitCode !== null || service.child.signalCode !== null)) throw new Error(`the service exited:\n${service.output()}`);
      return found ?? undefined;
    }, { timeoutMs, detail: () => service.output().slice(-3_000) });

  /** The changes recorded, per supporter, and the supporters as recorded (read with the service stopped, for PGlite). */
  async function readBack(options: { url?: string | undefined }): Promise<{ changes: Map<string, number>; supporters: number }> {
    const database = await openDatabase(options.url === undefined ? { dataDir: join(dir, 'data', 'database') } : { url: options.url });
    try {
      const rows = await database.db.selectFrom('supporter_change').select(['supporter_id']).where('platform', '=', 'membership').execute();
      const changes = new Map<string, number>();
      for (const row of rows) changes.set(row.supporter_id, (changes.get(row.supporter_id) ?? 0) + 1);
      const supporters = await database.db.selectFrom('recorded_supporter').select((eb) => eb.fn.countAll<number>().as('n')).where('platform', '=', 'membership').executeTakeFirstOrThrow();
      return { changes, supporters: Number(supporters.n) };
    } finally {
      await database.close();
    }
  }

  /** The sizes of the recordings a run began, in order ("history: recording N membership changes"). */
  const begun = (output: string): number[] => [...output.matchAll(/history: recording (\d+) membership changes/g)].map((match) => Number(match[1]));

  it('leaves the changes all recorded or none, and the restart records each once', async () => {
    const options = await backend.fresh();
    const database = options.url === undefined ? {} : { url: options.url };
    let service = start(database);
    const baseline = Number((await line(service, /history: the membership history starts with (\d+) supporters/, 'the first recording'))[1]);
    let recordedBefore = 0;
    let hitTheMiddle = false;
    let next = 0;
    for (let attempt = 0; attempt < SETS.length && !hitTheMiddle; attempt += 1) {
      // A large change set (patrons leaving): a refresh records it in one transaction (or two, when
      // a refresh in flight read some pages before the change).
      const count = SETS[attempt] as number;
      for (let index = next; index < next + count; index += 1) sandbox.datasets.membership.override(index, { patronStatus: 'former_patron' });
      next += count;
      const from = service.output().length;
      await eventually('a recording to begin', () => begun(service.output().slice(from)).length > 0 || undefined, { timeoutMs: 120_000, detail: () => service.output().slice(-2_000) });
      service.child.kill('SIGKILL');
      await service.exited;
      const sizes = begun(service.output());
      const inFlight = sizes.at(-1) ?? 0;
      const all = recordedBefore + sizes.reduce((sum, size) => sum + size, 0);
      const after = await readBack(database);
      const recorded = [...after.changes.values()].reduce((sum, n) => sum + n, 0);
      // All or nothing: the recording killed is there whole, or not at all; the supporters as recorded agree with the changes.
      expect([all - inFlight, all], service.output().split('\n').filter((text) => text.includes('history')).join('\n')).toContain(recorded);
      expect([...after.changes.values()].every((n) => n === 1)).toBe(true);
      expect(after.supporters).toBe(baseline - recorded);
      hitTheMiddle = recorded === all - inFlight;
      recordedBefore = recorded;
      service = start(database);
      // The restart records what the killed one did not, once (or finds it recorded).
      await line(service, hitTheMiddle ? /history: recorded \d+ membership changes/ : /history: the (embedded database|PostgreSQL database).* is open/, 'the restart to catch up');
    }
    // PostgreSQL: the kill is seen to land inside the transaction (its changes are absent). PGlite
    // commits such a recording faster than a log line reaches the test (its lines go out in
    // 100 ms batches), so there the kill mostly lands just after: the same checks hold either way.
    if (backend.name === 'PostgreSQL') expect(hitTheMiddle, 'the kill never landed in the middle of a recording').toBe(true);
    // The overrides are all in the upstream now: let a refresh record whatever remains, then stop cleanly.
    const settledAt = service.output().length;
    await eventually('a refresh with nothing left to record', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return /"snapshot changed"|history: recorded/.test(service.output().slice(settledAt)) || service.output().length > settledAt + 2_000 || undefined;
    }, { timeoutMs: 60_000 });
    service.child.kill('SIGTERM');
    await service.exited;
    const final = await readBack(database);
    const total = [...final.changes.values()].reduce((sum, n) => sum + n, 0);
    expect([...final.changes.values()].every((n) => n === 1)).toBe(true);
    expect(final.supporters).toBe(baseline - total);
  }, 600_000);
});
