/**
 * Where a JSON text (RFC 8259) stops being valid, and what was expected there — without quoting the
 * text. `JSON.parse`'s own messages quote the input (`Unexpected token 'a', "{"cookie": a…" is not
 * valid JSON`), which must not reach a log when the file holds cookies and tokens.
 */

export interface JsonSyntaxIssue {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units from the start of the line. */
  column: number;
  /** e.g. `',' or '}'`. */
  expected: string;
}

type Container = 'object' | 'array';
type State = 'value' | 'key' | 'after';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const LITERALS: Readonly<Record<string, string>> = { t: 'true', f: 'false', n: 'null' };
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function locate(text: string, offset: number, expected: string): JsonSyntaxIssue {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1, expected };
}

/** The first syntax error of `text`, or undefined when it is valid JSON. Iterative: any depth. */
export function findJsonSyntaxIssue(text: string): JsonSyntaxIssue | undefined {
  const stack: Container[] = [];
  let position = 0;
  let state: State = 'value';
  const skipWhitespace = (): void => {
    while (position < text.length && WHITESPACE.has(text[position] as string)) position += 1;
  };
  /** Past a string's closing quote, or the issue. */
  const scanString = (): JsonSyntaxIssue | undefined => {
    position += 1; // the opening quote
    for (;;) {
      if (position >= text.length) return locate(text, position, 'a closing " of the string, not the end of the file');
      const char = text[position] as string;
      if (char === '"') {
        position += 1;
        return undefined;
      }
      if (char.charCodeAt(0) < 0x20) return locate(text, position, 'no control character (a line break, a tab) inside a string: escape it');
      if (char === '\\') {
        const escape = text[position + 1] ?? '';
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(position + 2, position + 6))) return locate(text, position, 'four hexadecimal digits after \\u');
          position += 6;
        } else if (ESCAPES.has(escape)) {
          position += 2;
        } else {
          return locate(text, position, 'an escape sequence (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
        }
        continue;
      }
      position += 1;
    }
  };

  for (;;) {
    skipWhitespace();
    const char = text[position];
    if (state === 'value') {
      if (char === '{' || char === '[') {
        stack.push(char === '{' ? 'object' : 'array');
        position += 1;
        skipWhitespace();
        if (text[position] === (char === '{' ? '}' : ']')) {
          stack.pop();
          position += 1;
          state = 'after';
        } else {
          state = char === '{' ? 'key' : 'value';
        }
        continue;
      }
      if (char === '"') {
        const issue = scanString();
        if (issue !== undefined) return issue;
        state = 'after';
        continue;
      }
      const literal = char === undefined ? undefined : LITERALS[char];
      if (literal !== undefined) {
        if (!text.startsWith(literal, position)) return locate(text, position, `a value (${literal}?)`);
        position += literal.length;
        state = 'after';
        continue;
      }
      NUMBER.lastIndex = position;
      if (char !== undefined && /[-0-9]/.test(char) && NUMBER.test(text)) {
        position = NUMBER.lastIndex;
        state = 'after';
        continue;
      }
      return locate(text, position, char === undefined ? 'a value, not the end of the file' : 'a value (an object, array, string in double quotes, number, true, false or null)');
    }
    if (state === 'key') {
      if (char !== '"') return locate(text, position, char === undefined ? 'a property name, not the end of the file' : 'a property name in double quotes');
      const issue = scanString();
      if (issue !== undefined) return issue;
      skipWhitespace();
      if (text[position] !== ':') return locate(text, position, "':' after the property name");
      position += 1;
      state = 'value';
      continue;
    }
    // state 'after': a value is complete.
    const container = stack.at(-1);
    if (container === undefined) return char === undefined ? undefined : locate(text, position, 'the end of the file after the value');
    const close = container === 'object' ? '}' : ']';
    if (char === ',') {
      position += 1;
      state = container === 'object' ? 'key' : 'value';
    } else if (char === close) {
      position += 1;
      stack.pop();
    } else {
      return locate(text, position, `',' or '${close}'${char === undefined ? ', not the end of the file' : ''}`);
    }
  }
}
