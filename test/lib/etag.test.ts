import { describe, expect, it } from 'vitest';
import { codedEntityTag, entityTag, ifNoneMatchMatches } from '../../src/lib/etag.js';

/** The one ETag / If-None-Match implementation (src/lib/etag.ts), shared by REST and the response cache. */
describe('entityTag', () => {
  it('is a strong tag in the alphabet the contract promises, the same for the same bytes only', () => {
    const tag = entityTag(Buffer.from('{"a":1}'));
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(entityTag(Buffer.from('{"a":1}'))).toBe(tag);
    expect(entityTag(Buffer.from('{"a":2}'))).not.toBe(tag);
  });
});

describe('codedEntityTag', () => {
  it('is the identity tag with the coding inside the quotes: still in the contract\'s alphabet, never another body\'s tag', () => {
    const tag = entityTag(Buffer.from('{"a":1}'));
    expect(codedEntityTag(tag, 'br')).toBe(`${tag.slice(0, -1)}-br"`);
    expect(codedEntityTag(tag, 'gzip')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(codedEntityTag(tag, 'br')).not.toBe(codedEntityTag(tag, 'gzip'));
    // A SHA-1 in base64url is 27 characters: a coded tag is longer than any identity tag.
    expect(codedEntityTag(tag, 'br').length).toBeGreaterThan(tag.length);
    expect(ifNoneMatchMatches(codedEntityTag(tag, 'br'), tag)).toBe(false);
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
