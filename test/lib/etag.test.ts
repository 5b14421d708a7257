import { describe, expect, it } from 'vitest';
import { entityTag, flatHeaders, ifNoneMatchMatches } from '../../src/lib/etag.js';

/** The one ETag / If-None-Match implementation (src/lib/etag.ts), shared by REST and the response cache. */
describe('entityTag', () => {
  it('is a strong tag in the alphabet the contract promises, the same for the same bytes only', () => {
    const tag = entityTag(Buffer.from('{"a":1}'));
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(entityTag(Buffer.from('{"a":1}'))).toBe(tag);
    expect(entityTag(Buffer.from('{"a":2}'))).not.toBe(tag);
  });
});

describe('flatHeaders', () => {
  it('lists every header as name, value pairs in order, a pair per value of an array, numbers as text, nothing for undefined', () => {
    expect(flatHeaders({ etag: '"a"', 'content-length': 12, 'x-many': ['accept', 'origin'], 'x-absent': undefined })).toEqual([
      'etag', '"a"', 'content-length', '12', 'x-many', 'accept', 'x-many', 'origin',
    ]);
  });
});

describe('ifNoneMatchMatches (RFC 9110 §13.1.2)', () => {
  const tag = '"abc"';
  it.each([
    ['the tag itself', '"abc"'],
    ['the tag in a list', '"x", "abc"'],
    ['the tag in a list without spaces', '"x","abc","y"'],
    ['the weak form of the tag (weak comparison)', 'W/"abc"'],
    ['the weak form in a list', '"x", W/"abc"'],
    ['*', '*'],
  ])('matches %s', (_, header) => {
    expect(ifNoneMatchMatches(header, tag)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['other tags', '"x", W/"y"'],
    ['the tag without its quotes', 'abc'],
    ['a tag that only contains it', '"abcd"'],
  ])('does not match %s', (_, header) => {
    expect(ifNoneMatchMatches(header, tag)).toBe(false);
  });

  it('compares a weak stored tag weakly too', () => {
    expect(ifNoneMatchMatches('"abc"', 'W/"abc"')).toBe(true);
  });
});
