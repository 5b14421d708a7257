/**
 * `npm run authorize`: the login command (see src/cli/authorize-command.ts). Reads `.env` like `npm start`
 * and exits 0 on success, 1 on a failed authorization, 64 on bad arguments, 78 on bad configuration.
 */
import { runAuthorizeCommand } from './cli/authorize-command.js';

const exitCode = await runAuthorizeCommand(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
process.exit(exitCode);
