/**
 * `npm run notifications -- replay [--destination <name>] [--event <evt_…>] [--url <service>]`: the
 * operator's replay of dead letters. It asks the running service (POST /notifications/replay, with
 * NOTIFICATIONS_REPLAY_TOKEN from the same `.env`), which puts them back to pending and sends them
 * at once: the embedded database belongs to that process alone, and with DATABASE_URL any replica
 * can be asked. Each replayed delivery keeps its event id, so a receiver that has it drops it.
 */
import { parseArgs } from 'node:util';
import { withDeadline } from '../lib/deadline.js';
import { ConfigError, loadReplayConfig } from '../config.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 64;
export const EXIT_CONFIG = 78;

const USAGE = 'usage: npm run notifications -- replay [--destination <name>] [--event <evt_…>] [--url <http://host:port of the service>]';
/** The service answers a replay with one UPDATE: this is generous. */
const REQUEST_DEADLINE_MS = 10_000;

export interface NotificationsCommandIO {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout(line: string): void;
  stderr(line: string): void;
}

class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILED,
  ) {
    super(message);
  }
}

function parseArguments(argv: readonly string[]): { destination?: string; event?: string; url?: string } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { destination: { type: 'string' }, event: { type: 'string' }, url: { type: 'string' } } });
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_USAGE);
  }
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'replay') throw new CommandError(parsed.positionals.length === 0 ? 'which command? (replay)' : `unknown command ${JSON.stringify(parsed.positionals.join(' '))}`, EXIT_USAGE);
  const { destination, event, url } = parsed.values;
  if (destination !== undefined && !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(destination)) throw new CommandError('--destination is a destination name of notifications.json (lowercase letters, digits, - and _)', EXIT_USAGE);
  if (event !== undefined && !/^evt_[0-9A-Za-z]{1,64}$/.test(event)) throw new CommandError('--event is an event id (evt_…, the webhook-id)', EXIT_USAGE);
  if (url !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(url)) throw new CommandError('--url is the service\'s base URL (http://host:port)', EXIT_USAGE);
  return { ...(destination === undefined ? {} : { destination }), ...(event === undefined ? {} : { event }), ...(url === undefined ? {} : { url: url.replace(/\/$/, '') }) };
}

async function replay(serviceUrl: string, token: string, filter: { destination?: string; event?: string }): Promise<number> {
  const response = await withDeadline(
    async (signal) => {
      const answer = await fetch(`${serviceUrl}/notifications/replay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(filter),
        redirect: 'error',
        signal,
      });
      return { status: answer.status, text: (await answer.text()).slice(0, 2_000) };
    },
    {
      timeoutMs: REQUEST_DEADLINE_MS,
      timeoutError: () => new CommandError(`the service at ${serviceUrl} did not answer within ${REQUEST_DEADLINE_MS / 1000} s`),
      abortError: () => new CommandError('stopped'),
    },
  ).catch((error: unknown) => {
    if (error instanceof CommandError) throw error;
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new CommandError(`the service at ${serviceUrl} is unreachable (${cause ?? (error as Error).message}); dead letters are replayed by the running service: start it, or give its address with --url`);
  });
  let body: { replayed?: unknown; detail?: unknown } = {};
  try {
    body = JSON.parse(response.text) as typeof body;
  } catch {
    // Not ours: the status says enough.
  }
  if (response.status === 200 && typeof body.replayed === 'number') return body.replayed;
  const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${response.status}`;
  throw new CommandError(`the service refused the replay: ${detail}`);
}

/** Runs the command; returns the process exit code. */
export async function runNotificationsCommand(argv: readonly string[], io: NotificationsCommandIO): Promise<number> {
  try {
    const args = parseArguments(argv);
    const config = loadReplayConfig({ cwd: io.cwd, env: io.env });
    if (config.replayToken === undefined) {
      throw new CommandError('NOTIFICATIONS_REPLAY_TOKEN is not set: set it in .env for the service and for this command (the service accepts replays only with it)', EXIT_CONFIG);
    }
    const filter = { ...(args.destination === undefined ? {} : { destination: args.destination }), ...(args.event === undefined ? {} : { event: args.event }) };
    const replayed = await replay(args.url ?? config.serviceUrl, config.replayToken, filter);
    const which = [args.destination === undefined ? '' : ` of ${args.destination}`, args.event === undefined ? '' : ` for ${args.event}`].join('');
    io.stdout(replayed === 0 ? `no dead letters${which}` : `${replayed} dead letter${replayed === 1 ? '' : 's'}${which} pending again: the service sends ${replayed === 1 ? 'it' : 'them'} now, under the same webhook-id`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`configuration error: ${error.message}`);
      return EXIT_CONFIG;
    }
    if (error instanceof CommandError) {
      io.stderr(`notifications: ${error.message}`);
      if (error.exitCode === EXIT_USAGE) io.stderr(USAGE);
      return error.exitCode;
    }
    throw error;
  }
}
