import { describe, expect, it } from 'vitest';
import { findJsonSyntaxIssue } from '../../src/lib/json-syntax.js';

describe('findJsonSyntaxIssue', () => {
  it('finds nothing wrong in what JSON.parse accepts', () => {
    for (const text of ['{}', '[]', ' 0 ', '-1.5e+3', '"\\u00e9\\n"', 'null', '{"a":[1,{"b":true}],"c":"d"}\n', JSON.stringify({ deep: [[[{ x: 'y' }]]] }, null, 2)]) {
      expect(() => JSON.parse(text) as unknown, text).not.toThrow();
      expect(findJsonSyntaxIssue(text), text).toBeUndefined();
    }
  });

  it('locates an error past any depth of nesting without a stack overflow', () => {
    const depth = 200_000;
    const text = `${'['.repeat(depth)}1,]${']'.repeat(depth - 1)}`;
    expect(findJsonSyntaxIssue(text)).toEqual({ line: 1, column: depth + 3, expected: 'a value (an object, array, string in double quotes, number, true, false or null)' });
  });

  it.each([
    ['{"a": 01}', 1, 8, "',' or '}'"],
    ['{"a" 1}', 1, 6, "':' after the property name"],
    ['"\\x"', 1, 2, 'an escape sequence (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)'],
    ['"\\u12g4"', 1, 2, 'four hexadecimal digits after \\u'],
    ['', 1, 1, 'a value, not the end of the file'],
    ['{\n"a": 1,\n}', 3, 1, 'a property name in double quotes'],
  ])('%j → line %i, column %i: expected %s', (text, line, column, expected) => {
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(findJsonSyntaxIssue(text)).toEqual({ line, column, expected });
  });
});
