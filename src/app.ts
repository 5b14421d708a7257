/**
 * The whole service as a factory: snapshot store over the two platforms, the REST API of
 * openapi/channel-api.yaml and the channel graph at /graphql, on one node:http server. In sandbox
 * mode (no membership credentials) the platform emulator runs in-process and supplies them.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { createMembershipSource } from './channel/membership.js';
import { createMembershipKeeper, createMembershipOAuthClient, createMembershipTokenStore } from './channel/membership-oauth.js';
import { SnapshotStore } from './channel/snapshot-store.js';
import { createVideoMembersSource, createVideoStatsSource } from './channel/video.js';
import type { ChannelConfig, MembershipSettings, VideoSettings } from './config.js';
import { createChannelGraphHandler } from './graphql/channel-graph.js';
import { createRestHandler } from './http/rest-handler.js';
import { listen, type Listening } from './lib/listen.js';
import { MemoryTokenStore } from './oauth2/index.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from './sandbox/index.js';

type Logger = Pick<Console, 'info' | 'warn' | 'error'>;

export interface ChannelAppOptions {
  logger?: Logger;
  /** Options of the in-process sandbox (sandbox mode only): dataset size, token lifetime… */
  sandbox?: SandboxOptions;
}

export interface ChannelApp {
  /** Base URL the server listens on, e.g. http://127.0.0.1:4000. */
  url: string;
  store: SnapshotStore;
  /** The in-process platform emulator (sandbox mode only). */
  sandbox?: RunningSandbox;
  close(): Promise<void>;
}

export { MEMBERSHIP_TOKEN_FILE } from './channel/membership-oauth.js';

/** How long close() lets requests in flight finish before cutting their connections. */
const CLOSE_GRACE_MS = 5_000;

/** `/graphql`, `/graphql?…` and `/graphql/…` (persisted documents manifest) belong to yoga. */
function isGraphRequest(request: IncomingMessage): boolean {
  const url = request.url ?? '/';
  return url.startsWith('/graphql') && (url.length === 8 || url[8] === '?' || url[8] === '/');
}

/** The upstream settings that point both platforms at a running sandbox with its test credentials. */
export function sandboxUpstream(sandbox: RunningSandbox): { membership: MembershipSettings; video: VideoSettings } {
  const { credentials } = sandbox;
  return {
    membership: {
      apiBase: sandbox.url,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      accessToken: credentials.accessToken,
      refreshToken: credentials.refreshToken,
      campaignId: credentials.campaignId,
      webhookSecret: credentials.webhookSecret,
    },
    video: { apiBase: sandbox.url, members: credentials.members },
  };
}

export async function createChannelApp(config: ChannelConfig, options: ChannelAppOptions = {}): Promise<ChannelApp> {
  const logger = options.logger ?? console;
  const sandbox = config.upstream.mode === 'sandbox' ? await startSandbox(options.sandbox) : undefined;
  const upstream = sandbox !== undefined ? sandboxUpstream(sandbox) : (config.upstream as Exclude<ChannelConfig['upstream'], { mode: 'sandbox' }>);
  // Sandbox data never shares a directory with real data, so switching to live mode never serves it;
  // the sandbox's tokens die with it, so they are not persisted.
  const dataDir = sandbox !== undefined ? join(config.dataDir, 'sandbox') : config.dataDir;
  const tokenStore = sandbox !== undefined ? new MemoryTokenStore() : createMembershipTokenStore(dataDir);

  const keeper = createMembershipKeeper(createMembershipOAuthClient(upstream.membership), upstream.membership, tokenStore);
  const store = new SnapshotStore({
    sources: {
      membership: createMembershipSource({ apiBase: upstream.membership.apiBase, campaignId: upstream.membership.campaignId, keeper }),
      video: createVideoMembersSource(upstream.video),
      stats: createVideoStatsSource(upstream.video),
    },
    dataDir,
    refreshIntervalMs: config.refreshIntervalSeconds * 1000,
    logger,
  });
  await store.start();

  const rest = createRestHandler({ store, webhookSecret: upstream.membership.webhookSecret, logger });
  const graph = createChannelGraphHandler({ store, settings: config.graph });
  // The request-head limit lets a GET carry a document of the graph's maximum size.
  const server = createServer({ maxHeaderSize: graph.maxHeaderBytes }, (request, response) => {
    if (isGraphRequest(request)) graph.requestListener(request, response);
    else rest(request, response);
  });
  let listening: Listening;
  try {
    listening = await listen(server, { port: config.port, host: config.host, closeGraceMs: CLOSE_GRACE_MS });
  } catch (error) {
    await Promise.all([store.close(), graph.dispose(), sandbox?.close()]);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    store,
    ...(sandbox === undefined ? {} : { sandbox }),
    close() {
      closing ??= (async () => {
        await listening.close();
        await graph.dispose();
        await store.close();
        await keeper.client.close();
        await sandbox?.close();
      })();
      return closing;
    },
  };
}
