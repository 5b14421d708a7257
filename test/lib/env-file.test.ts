import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EnvFileSyntaxError, parseEnvFile } from '../../src/lib/env-file.js';

describe('parseEnvFile', () => {
  it('gives the values node:util parseEnv gives for every well-formed line', () => {
    const text = [
      readFileSync(new URL('../../.env.example', import.meta.url), 'utf8'),
      'export EXPORTED=1',
      'SPACED = spaced value  ',
      'TRAILING=value # comment',
      "SINGLE='a \\n b'",
      'DOUBLE="a \\n b"',
      'BACKTICK=`a "quoted" b`',
      'MULTI="first',
      'second"',
      'EMPTY=',
      'EQUALS=a=b',
      'DOTTED.NAME=x',
    ].join('\n');
    expect(parseEnvFile(text)).toEqual(parseEnv(text));
  });

  it.each([
    ['NAME value', 1, 'NAME=value, a # comment or a blank line'],
    ['OK=1\n=value', 2, 'NAME=value, a # comment or a blank line'],
    ['OK=1\n\n"QUOTED"=1', 3, 'NAME=value, a # comment or a blank line'],
    ["A='open", 1, "a closing ' for the value of A"],
    ['A="x" y', 1, 'nothing but a # comment after the closing " of A'],
    ['A="x\ny" z', 2, 'nothing but a # comment after the closing " of A'],
  ])('%j → line %i: expected %s', (text, line, expected) => {
    let error: unknown;
    try {
      parseEnvFile(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvFileSyntaxError);
    expect(error).toMatchObject({ line, expected, message: `line ${line}: expected ${expected}` });
  });
});
