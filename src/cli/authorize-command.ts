/**
 * `npm run authorize`: gets the creator's first token, the way `gh auth login` does. The
 * authorization-code flow with PKCE (RFC 7636, S256) and `state`, on a loopback redirect listener
 * (RFC 8252 §7.3: `http://127.0.0.1:<ephemeral port>/callback`, one callback, then it closes). The
 * token goes to the token store the service reads (`openLoginTokenStores`: the file under DATA_DIR,
 * or with REDIS_URL the record the replicas share, under their refresh lock, and no file), with the
 * service's seed rule. `--revoke` revokes the stored token (RFC 7009) and deletes it (with REDIS_URL
 * also a token file left from before the move to Redis). Tokens are never printed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { decodeJwt } from 'jose';
import { createMembershipKeeper, createMembershipOAuthClient, MEMBERSHIP_SCOPES } from '../channel/membership-oauth.js';
import { type AuthorizeConfig, ConfigError, loadAuthorizeConfig } from '../config.js';
import { AccessToken, createPkce, OAuth2BaseError, OAuth2Error, type OAuth2Client, type TokenStore } from '@channel-graph/oauth2';
import { type LoginTokenStores, openLoginTokenStores } from '../shared-state.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 64;
export const EXIT_CONFIG = 78;

const DEFAULT_TIMEOUT_SECONDS = 300;
const CALLBACK_PATH = '/callback';

const USAGE = `usage: npm run authorize [-- [--no-browser] [--timeout <seconds>] [--port <port>] [--scope "<scopes>"]]
       npm run authorize -- --revoke`;

export interface CommandIO {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout(line: string): void;
  stderr(line: string): void;
  /** Opens the authorization URL in a browser; default: the platform's opener, when there is one. */
  openBrowser?(url: string): void;
}

interface AuthorizeArguments {
  revoke: boolean;
  browser: boolean;
  timeoutMs: number;
  port: number;
  scope: string;
}

/** A failure the command explains in one line (never with a token or a secret in it). */
class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILED,
  ) {
    super(message);
  }
}

/** Runs the command; returns the process exit code. */
export async function runAuthorizeCommand(argv: readonly string[], io: CommandIO): Promise<number> {
  try {
    const args = parseArguments(argv);
    const config = loadAuthorizeConfig({ cwd: io.cwd, env: io.env });
    const stores = await openStores(config);
    try {
      return args.revoke ? await revoke(config, stores, io) : await authorize(config, stores, args, io);
    } finally {
      await stores.close();
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`configuration error: ${error.message}`);
      return EXIT_CONFIG;
    }
    if (error instanceof CommandError) {
      io.stderr(`authorize: ${error.message}`);
      if (error.exitCode === EXIT_USAGE) io.stderr(USAGE);
      return error.exitCode;
    }
    throw error;
  }
}

function parseArguments(argv: readonly string[]): AuthorizeArguments {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        revoke: { type: 'boolean', default: false },
        'no-browser': { type: 'boolean', default: false },
        timeout: { type: 'string' },
        port: { type: 'string' },
        scope: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_USAGE);
  }
  const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86_400) throw new CommandError(`--timeout expects whole seconds 1-86400, got ${values.timeout ?? ''}`, EXIT_USAGE);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CommandError(`--port expects 0-65535, got ${values.port ?? ''}`, EXIT_USAGE);
  return { revoke: values.revoke, browser: !values['no-browser'], timeoutMs: timeout * 1000, port, scope: values.scope ?? MEMBERSHIP_SCOPES };
}

/**
 * The token stores, opened before the login starts: an unreachable Redis is reported before the
 * creator approves anything. The lock taken in Redis outlives a revocation (two endpoint calls).
 */
async function openStores(config: AuthorizeConfig): Promise<LoginTokenStores> {
  try {
    return await openLoginTokenStores(config, { lockHeldMs: 2 * config.upstreamTimeoutMs });
  } catch (error) {
    throw new CommandError(`${(error as Error).message}; nothing was changed`);
  }
}

/** Runs `work` while no replica refreshes the token (a store several processes share), else just runs it. */
function exclusively<T>(store: TokenStore, work: () => Promise<T>): Promise<T> {
  return store.exclusive === undefined ? work() : store.exclusive(work);
}

/** The membership platform's client; its calls end within UPSTREAM_TIMEOUT_MS, as the service's do. */
function oauthClient(config: AuthorizeConfig, redirectUri?: string): OAuth2Client {
  return createMembershipOAuthClient(config.membership, { ...(redirectUri === undefined ? {} : { redirectUri }), connection: { timeout: config.upstreamTimeoutMs } });
}

/** The authorization-code flow, start to stored token. */
async function authorize(config: AuthorizeConfig, stores: LoginTokenStores, args: AuthorizeArguments, io: CommandIO): Promise<number> {
  const listener = await listenForCallback(args.port);
  const redirectUri = `http://127.0.0.1:${listener.port}${CALLBACK_PATH}`;
  const client = oauthClient(config, redirectUri);
  try {
    const pkce = createPkce();
    const state = randomBytes(16).toString('base64url');
    const url = client.authCode.authorizeUrl({ scope: args.scope, state, codeChallenge: pkce.challenge });
    io.stdout(`Open this URL in a browser to authorize ${config.membership.clientId} at ${new URL(config.membership.apiBase).origin}:`);
    io.stdout(`  ${url}`);
    io.stdout(`Waiting for the redirect to ${redirectUri} (at most ${args.timeoutMs / 1000} s) …`);
    if (args.browser) (io.openBrowser ?? openInBrowser)(url);

    const callback = await listener.next(args.timeoutMs);
    let token: AccessToken;
    try {
      token = await exchangeCode(client, callback.query, state, pkce.verifier);
    } catch (error) {
      callback.answer(false, error instanceof CommandError ? error.message : 'the authorization failed');
      throw error;
    }
    const { store } = stores;
    try {
      // Under the replicas' refresh lock (REDIS_URL): a refresh in flight ends first, and the token is stored as the newest.
      await exclusively(store, () => createMembershipKeeper(client, config.membership, store).replace(token));
    } catch (error) {
      callback.answer(false, 'the token could not be saved');
      throw new CommandError(`the token could not be saved to ${store.location}: ${(error as Error).message}`);
    }
    callback.answer(true, 'You can close this tab and return to the terminal.');
    for (const line of describeGrant(config, token, stores, args.scope)) io.stdout(line);
    return EXIT_OK;
  } finally {
    await listener.close();
    await client.close();
  }
}

/** Checks the callback (state first, RFC 6749 §10.12) and exchanges its code (§4.1.3). */
async function exchangeCode(client: OAuth2Client, query: URLSearchParams, state: string, verifier: string): Promise<AccessToken> {
  if (query.get('state') !== state) {
    throw new CommandError('state mismatch: the redirect does not answer this login (a stale tab or a forged request); nothing was stored, run the command again');
  }
  const error = query.get('error');
  if (error !== null) {
    const description = query.get('error_description');
    const what = error === 'access_denied' ? 'the authorization was denied' : 'the authorization server refused the request';
    throw new CommandError(`${what} (${error}${description === null ? '' : `: ${description}`})`);
  }
  const code = query.get('code');
  if (code === null || code === '') throw new CommandError('the redirect carries neither a code nor an error');
  try {
    return await client.authCode.getToken(code, { codeVerifier: verifier });
  } catch (failure) {
    if (failure instanceof OAuth2Error) {
      const answer = failure.code === undefined ? failure.message : `${failure.code}${failure.description === undefined ? '' : `: ${failure.description}`} (HTTP ${failure.response.status})`;
      throw new CommandError(`the token endpoint refused the code: ${answer}`);
    }
    if (failure instanceof OAuth2BaseError) throw new CommandError(`the token endpoint could not be used: ${failure.message}`);
    throw failure;
  }
}

/** What was authorized, for whom, with which scopes, and where it is kept — never a token. */
function describeGrant(config: AuthorizeConfig, token: AccessToken, stores: LoginTokenStores, requested: string): string[] {
  const granted = typeof token.params.scope === 'string' ? token.params.scope : `${requested} (requested; the server did not say)`;
  const lines = [`Authorized ${config.membership.clientId} at ${new URL(config.membership.apiBase).origin}.`];
  const subject = idTokenSubject(token.params.id_token);
  if (subject !== undefined) lines.push(`Account: ${subject} (from the id_token, not verified)`);
  lines.push(`Scopes granted: ${granted}`);
  lines.push(`Refresh token: ${token.refreshToken === undefined ? 'none issued (the service must be authorized again when the access token expires)' : 'issued'}`);
  if (token.expiresAt !== undefined) lines.push(`Access token expires: ${new Date(token.expiresAt * 1000).toISOString()} (refreshed automatically)`);
  lines.push(
    stores.formerFile === undefined
      ? `Saved to ${stores.store.location} (mode 0600); npm start uses it.`
      : `Saved to ${stores.store.location}; running replicas switch to it now, and npm start uses it. No token file was written.`,
  );
  if (config.membership.refreshToken !== undefined) {
    lines.push('Note: .env also sets MEMBERSHIP_ACCESS_TOKEN/MEMBERSHIP_REFRESH_TOKEN; this token wins over them until you put new ones there.');
  }
  return lines;
}

function idTokenSubject(idToken: unknown): string | undefined {
  if (typeof idToken !== 'string') return undefined;
  try {
    const claims = decodeJwt(idToken);
    const name = [claims.name, claims.email, claims.sub].find((value): value is string => typeof value === 'string');
    return name;
  } catch {
    return undefined;
  }
}

/**
 * `--revoke`: revokes the stored refresh and access tokens (RFC 7009), then deletes them — with
 * REDIS_URL under the replicas' refresh lock (none refreshes meanwhile; they drop the token at once),
 * and the token file from before the move to Redis too, when one is left.
 */
async function revoke(config: AuthorizeConfig, stores: LoginTokenStores, io: CommandIO): Promise<number> {
  const client = oauthClient(config);
  try {
    const places = [stores.store, ...(stores.formerFile === undefined ? [] : [stores.formerFile])];
    let revokedAny = false;
    for (const place of places) {
      const outcome = await exclusively(place, async () => {
        const stored = await place.load();
        if (stored === null) return undefined;
        const revoked = await revokeToken(AccessToken.fromHash(client, stored), place.location);
        await place.clear();
        return revoked;
      }).catch((error: unknown) => {
        if (error instanceof CommandError) throw error;
        throw new CommandError(`${place.location} could not be read or cleared (${(error as Error).message})`);
      });
      if (outcome === undefined) continue;
      revokedAny = true;
      io.stdout(`Revoked the ${outcome.join(' and the ') || 'expired token (nothing live)'} at ${new URL(config.membership.apiBase).origin}; deleted ${place.location}.`);
    }
    if (!revokedAny) {
      io.stdout(`Nothing to revoke: no token is stored in ${places.map((place) => place.location).join(' nor in ')}.`);
      return EXIT_OK;
    }
    if (config.membership.refreshToken !== undefined) io.stdout('Note: .env still sets MEMBERSHIP_ACCESS_TOKEN/MEMBERSHIP_REFRESH_TOKEN; npm start falls back to them.');
    return EXIT_OK;
  } finally {
    await client.close();
  }
}

/** Revokes the refresh token, and the access token while it lives; returns what was revoked. */
async function revokeToken(token: AccessToken, location: string): Promise<string[]> {
  const revoked: string[] = [];
  try {
    if (token.refreshToken !== undefined) {
      await token.revoke({ tokenTypeHint: 'refresh_token' });
      revoked.push('refresh token');
    }
    if (token.token !== '' && !token.expired()) {
      await token.revoke({ tokenTypeHint: 'access_token' });
      revoked.push('access token');
    }
  } catch (error) {
    if (!(error instanceof OAuth2BaseError)) throw error;
    const answer = error instanceof OAuth2Error && error.code !== undefined ? `${error.code}${error.description === undefined ? '' : `: ${error.description}`}` : error.message;
    throw new CommandError(`the revocation failed (${answer}); the token is still stored in ${location}`);
  }
  return revoked;
}

interface Callback {
  query: URLSearchParams;
  /** Answers the browser's callback request with a short page. */
  answer(ok: boolean, message: string): void;
}

interface CallbackListener {
  port: number;
  /** The first request to /callback, or a CommandError after `timeoutMs`. */
  next(timeoutMs: number): Promise<Callback>;
  close(): Promise<void>;
}

/** The loopback listener of RFC 8252 §7.3 on 127.0.0.1 (never a wildcard address). */
async function listenForCallback(port: number): Promise<CallbackListener> {
  let deliver: ((callback: Callback) => void) | undefined;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || deliver === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not the authorization callback\n');
      return;
    }
    const resolve = deliver;
    deliver = undefined; // one callback only
    resolve({
      query: url.searchParams,
      answer: (ok, message) => {
        const title = ok ? 'Authorized' : 'Authorization failed';
        res
          .writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end(`<!doctype html><title>${title}</title><h1>${title}</h1><p>${escapeHtml(message)}</p>\n`);
      },
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new CommandError(`port ${port} on 127.0.0.1 is in use: choose another with --port, or leave --port out for a free one`)
          : new CommandError(`cannot listen on 127.0.0.1:${port} for the redirect (${error.code ?? error.message})`),
      );
    });
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    next: (timeoutMs) =>
      new Promise<Callback>((resolve, reject) => {
        const timer = setTimeout(() => {
          deliver = undefined;
          reject(new CommandError(`timed out after ${timeoutMs / 1000} s waiting for the redirect from the authorization page; run the command again (--timeout sets the wait)`));
        }, timeoutMs);
        deliver = (callback) => {
          clearTimeout(timer);
          resolve(callback);
        };
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1_000).unref();
      }),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The platform's URL opener, detached; no browser (a server, a container) is not an error. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the URL is printed above.
  }
}
