import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../src/lib/utf8-bytes.js';

/** A rope, as answers and log lines are: many short strings concatenated. */
const rope = (parts: readonly string[]): string => parts.reduce((text, part) => text + part, '');

describe('utf8Bytes', () => {
  it('gives the bytes Buffer.from gives, for any text (lone surrogates as U+FFFD too)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 40 }), (parts) => {
        const text = rope(parts);
        expect(utf8Bytes(text).equals(Buffer.from(text))).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect([...utf8Bytes('\ud800x')]).toEqual([0xef, 0xbf, 0xbd, 0x78]);
    expect(utf8Bytes('').length).toBe(0);
  });

  it('gives each text bytes of its own: a later text does not overwrite an earlier one', () => {
    const first = utf8Bytes('{"data":{"first":"é"}}');
    const second = utf8Bytes('{"data":{"second":"€€€€€€€€"}}');
    expect(first.toString()).toBe('{"data":{"first":"é"}}');
    expect(second.toString()).toBe('{"data":{"second":"€€€€€€€€"}}');
    expect(first.length).toBe(Buffer.byteLength('{"data":{"first":"é"}}'));
  });

  it('encodes texts longer than its scratch space, and longer than the most it keeps (1 MiB)', () => {
    for (const units of [6_000, 100_000, 400_000]) {
      const text = rope(Array.from({ length: units / 4 }, (_, i) => (i % 7 === 0 ? 'ü€😀'.slice(0, 4) : 'abcd')));
      const bytes = utf8Bytes(text);
      expect(bytes.length).toBe(Buffer.byteLength(text));
      expect(bytes.equals(Buffer.from(text))).toBe(true);
    }
  });
});
