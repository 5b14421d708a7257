/**
 * The [codegen] part of `npm run dev`: graphql-codegen's watch mode on codegen.ts, in a process of
 * its own. It is not run inside dev.ts because the CLI's watcher (@parcel/watcher, native) can block
 * the thread that unsubscribes it: under load a Ctrl-C once never finished, and a blocked dev.ts
 * cannot stop anything. A blocked child is killed like any other (dev.ts: SIGTERM, then SIGKILL).
 *
 * Tells dev.ts over IPC: `triggered` on every save the watcher acts on, `regenerated` after a run
 * that wrote files.
 */
import { resolve } from 'node:path';
import { CodegenContext, generate } from '@graphql-codegen/cli';
import config from '../codegen.js';

export type CodegenMessage = { kind: 'triggered' } | { kind: 'regenerated'; files: number };

const tell = (message: CodegenMessage): void => {
  process.send?.(message);
};

// The CLI unsubscribes its watcher on the first SIGINT/SIGTERM; letting go of the IPC channel then lets
// this process end once the watcher is gone (a second signal ends it at once).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.disconnect?.());

await generate(
  new CodegenContext({
    config: {
      ...config,
      watch: true,
      hooks: { ...config.hooks, onWatchTriggered: () => tell({ kind: 'triggered' }), afterAllFileWrite: (...files: string[]) => tell({ kind: 'regenerated', files: files.length }) },
    },
    filepath: resolve('codegen.ts'),
  }),
  true,
);
