/**
 * `npm run authorize` in process, with an HTTP client as the browser: `runAuthorize` starts the
 * command and catches the authorization URL it prints; `approve` follows that URL through the
 * authorization server to the command's loopback callback and delivers it.
 *
 *   const command = runAuthorize(['--no-browser'], env, dir);
 *   await approve(await command.authorizationUrl);
 *   expect(await command.exitCode).toBe(EXIT_OK);
 */
import { runAuthorizeCommand } from '../../src/cli/authorize-command.js';
import { followAuthorization } from '../oauth2/support/oidc.js';

export interface AuthorizeRun {
  exitCode: Promise<number>;
  stdout: string[];
  stderr: string[];
  /** Resolves with the authorization URL once the command has printed it. */
  authorizationUrl: Promise<string>;
}

/** Runs the command in `cwd` with exactly `env` (no process environment); opening a browser fails the test. */
export function runAuthorize(argv: string[], env: Record<string, string>, cwd: string): AuthorizeRun {
  const stdout: string[] = [];
  const stderr: string[] = [];
  let announce: (url: string) => void = () => undefined;
  const authorizationUrl = new Promise<string>((resolve) => {
    announce = resolve;
  });
  const exitCode = runAuthorizeCommand(argv, {
    cwd,
    env,
    stdout: (line) => {
      stdout.push(line);
      const match = /^ {2}(https?:\/\/\S+)$/.exec(line);
      if (match?.[1] !== undefined) announce(match[1]);
    },
    stderr: (line) => stderr.push(line),
    openBrowser: () => {
      throw new Error('--no-browser was not honoured');
    },
  });
  return { exitCode, stdout, stderr, authorizationUrl };
}

/** Plays the browser: follows the authorization URL (plus `extra` parameters) to the command's callback and delivers it. */
export async function approve(url: string, extra: Record<string, string> = {}): Promise<Response> {
  const authorization = new URL(url);
  for (const [name, value] of Object.entries(extra)) authorization.searchParams.set(name, value);
  const redirectUri = authorization.searchParams.get('redirect_uri') ?? '';
  const callback = await followAuthorization(authorization.href, redirectUri);
  return fetch(callback);
}
