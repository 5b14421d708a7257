// @ts-check
/**
 * Preloaded (`node --import`) into a service process by the crash tests, to hold the save of the
 * membership token at one exact point until the test kills the process with SIGKILL:
 *
 * - `HOLD_TOKEN_SAVE=rename`: the temporary file is written and flushed; its rename is held;
 * - `HOLD_TOKEN_SAVE=write`: half of the token is written to the temporary file; the rest is held.
 *
 * It prints `holding the token save (<mode>)` on stdout when the point is reached. The service's
 * own code runs unchanged; this patches node:fs/promises, whose named exports the service imports
 * (syncBuiltinESMExports updates them). Plain JavaScript (JSDoc types): the service it is preloaded
 * into is the built one, on plain node.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const mode = process.env.HOLD_TOKEN_SAVE;
const TOKEN_FILE = /membership-token\.json$/;
const TOKEN_TEMPORARY = /membership-token\.json\.\d+\.[0-9a-f]{12}\.tmp$/;

/** @returns {Promise<never>} */
function holdForever() {
  process.stdout.write(`holding the token save (${mode ?? ''})\n`);
  return new Promise(() => undefined);
}

if (mode === 'rename') {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    if (TOKEN_FILE.test(String(to))) await holdForever();
    return rename(from, to);
  };
} else if (mode === 'write') {
  const open = fs.promises.open;
  /** @param {Parameters<typeof open>} args */
  fs.promises.open = async (...args) => {
    const handle = await open(...args);
    if (TOKEN_TEMPORARY.test(String(args[0]))) {
      handle.writeFile = async (data) => {
        const text = String(data);
        await handle.write(text.slice(0, Math.floor(text.length / 2)));
        await holdForever();
      };
    }
    return handle;
  };
}
syncBuiltinESMExports();
