/**
 * The server's side of `npm run dev` (scripts/dev.ts), over the IPC channel node opens when dev.ts
 * starts the server: the server says where it listens (dev.ts prints one banner with the URLs), and
 * dev.ts asks it to serve a regenerated SDL (`reload-schema`) instead of restarting it. A server that
 * dev.ts did not start has no IPC channel, and nothing here does anything.
 */

/** What dev.ts asks of the server. */
export interface DevLoopRequest {
  kind: 'reload-schema';
}

/** What the server tells dev.ts. */
export type DevServerReport =
  | { kind: 'listening'; urls: ReadonlyArray<{ name: string; url: string }>; reloadsSchema: boolean }
  | { kind: 'schema'; outcome: 'swapped' | 'unchanged'; ms: number }
  | { kind: 'schema'; outcome: 'kept'; error: string };

export interface DevLoopServer {
  /** What the server serves where, e.g. `{ name: 'GraphQL', url: 'http://127.0.0.1:4000/graphql' }`. */
  urls: ReadonlyArray<{ name: string; url: string }>;
  /** Serves the SDL as it is now (development mode); absent: the server cannot, and dev.ts restarts it. */
  reloadSchema?: (() => 'swapped' | 'unchanged') | undefined;
}

const isReloadRequest = (message: unknown): message is DevLoopRequest =>
  typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'reload-schema';

/** Tells dev.ts, when it started this process; a channel dev.ts already closed is no error here. */
function tell(report: DevServerReport): void {
  if (process.connected) process.send?.(report, undefined, {}, () => undefined);
}

/** Reports the server's URLs to dev.ts and answers its schema reloads; does nothing without dev.ts. */
export function joinDevLoop(server: DevLoopServer): void {
  if (process.send === undefined) return;
  const { reloadSchema } = server;
  tell({ kind: 'listening', urls: server.urls, reloadsSchema: reloadSchema !== undefined });
  if (reloadSchema === undefined) return;
  process.on('message', (message: unknown) => {
    if (!isReloadRequest(message)) return;
    const started = performance.now();
    try {
      const outcome = reloadSchema();
      tell({ kind: 'schema', outcome, ms: Math.round(performance.now() - started) });
    } catch (error) {
      tell({ kind: 'schema', outcome: 'kept', error: error instanceof Error ? error.message : String(error) });
    }
  });
  // Listening for dev.ts must not keep the process alive once the server has closed.
  process.channel?.unref();
}
