/**
 * A strict `.env` reader. It accepts what `node:util` `parseEnv` (and dotenv) accept — `NAME=value`,
 * `export NAME=value`, blank lines, `#` comments, values in '…', "…" (may span lines; `\n` is a
 * newline) or `…`, a `# comment` after a value — and gives the same values, but a line that is none
 * of these is an error naming its line instead of being skipped (a typo would otherwise silently
 * leave a setting at its default). Messages never quote the file: it holds secrets.
 */

/** `line N: expected …`. */
export class EnvFileSyntaxError extends Error {
  override readonly name = 'EnvFileSyntaxError';
  constructor(
    /** 1-based. */
    readonly line: number,
    readonly expected: string,
  ) {
    super(`line ${line}: expected ${expected}`);
  }
}

const ASSIGNMENT = /^(?:export\s+)?([\w.-]+)\s*=[ \t]*(.*)$/s;
const QUOTES = new Set(['"', "'", '`']);

/** Parses the text of a `.env` file; throws EnvFileSyntaxError on the first malformed line. */
export function parseEnvFile(text: string): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const variables: Record<string, string> = {};
  for (let index = 0; index < lines.length; index += 1) {
    const lineNumber = index + 1;
    const line = (lines[index] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const assignment = ASSIGNMENT.exec(line);
    if (assignment === null) throw new EnvFileSyntaxError(lineNumber, 'NAME=value, a # comment or a blank line');
    const [, name = '', rest = ''] = assignment;
    const quote = rest[0];
    if (quote === undefined || !QUOTES.has(quote)) {
      const comment = rest.indexOf('#');
      variables[name] = (comment === -1 ? rest : rest.slice(0, comment)).trim();
      continue;
    }
    // A quoted value ends at the next quote of the same kind, on this line or (any quote) a later one.
    let value = rest.slice(1);
    let end = value.indexOf(quote);
    while (end === -1 && index + 1 < lines.length) {
      index += 1;
      value += `\n${lines[index] as string}`;
      end = value.indexOf(quote);
    }
    if (end === -1) throw new EnvFileSyntaxError(lineNumber, `a closing ${quote} for the value of ${name}`);
    const after = value.slice(end + 1).trim();
    if (after !== '' && !after.startsWith('#')) throw new EnvFileSyntaxError(index + 1, `nothing but a # comment after the closing ${quote} of ${name}`);
    value = value.slice(0, end);
    variables[name] = quote === '"' ? value.replaceAll('\\n', '\n') : value;
  }
  return variables;
}
