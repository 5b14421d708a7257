import { createChannelApp, type ChannelApp } from '../../src/app.js';
import type { ChannelConfig } from '../../src/config.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, silentLogger, testConfig } from '../http/harness.js';

/**
 * In-process replicas of the app (createChannelApp), each with its own DATA_DIR and a REDIS_URL, all
 * in live mode against one sandbox of their own: what a deployment of several replicas looks like,
 * without processes to spawn.
 */
export interface ReplicaSet {
  sandbox: RunningSandbox;
  replicas: ChannelApp[];
  close(): Promise<void>;
}

export async function startReplicaSet(options: {
  count: number;
  redisUrl: string;
  prefix: string;
  sandbox?: SandboxOptions;
  config?: Partial<ChannelConfig>;
}): Promise<ReplicaSet> {
  const sandbox = await startSandbox(options.sandbox);
  const replicas: ChannelApp[] = [];
  const dataDirs: Array<{ remove(): Promise<void> }> = [];
  try {
    for (let index = 0; index < options.count; index += 1) {
      const dataDir = await makeDataDir();
      dataDirs.push(dataDir);
      const config = testConfig(dataDir.path, liveUpstream(sandbox), { redis: { url: options.redisUrl, prefix: options.prefix }, ...options.config });
      replicas.push(await createChannelApp(config, { logger: silentLogger }));
    }
  } catch (error) {
    await Promise.all(replicas.map((replica) => replica.close()));
    await sandbox.close();
    throw error;
  }
  return {
    sandbox,
    replicas,
    async close() {
      await Promise.all(replicas.map((replica) => replica.close()));
      await sandbox.close();
      await Promise.all(dataDirs.map((dataDir) => dataDir.remove()));
    },
  };
}
