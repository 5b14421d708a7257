/**
 * `npm run notifications -- replay`: the operator's replay of dead letters (see
 * src/cli/notifications-command.ts). Reads `.env` like `npm start`; exits 0 on success, 1 when the
 * service cannot be asked or refuses, 64 on bad arguments, 78 on bad configuration.
 */
import { runNotificationsCommand } from './cli/notifications-command.js';

const exitCode = await runNotificationsCommand(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
process.exit(exitCode);
