/**
 * Accept-Encoding negotiation (src/lib/content-coding.ts) against RFC 9110 §12.5.3: examples of each
 * rule, then fast-check — over headers built from the grammar (weights, refusals, `*`, `identity`,
 * unknown codings, duplicates, case and whitespace) the choice is the one a model of the rules makes;
 * over any string at all it never throws and never picks a coding the header does not accept; the
 * remembering negotiator answers as the plain function does, however many values it has seen.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_CODINGS, createContentNegotiator, negotiateContentCoding, parseAcceptEncoding, type Coding, type ContentCoding } from '../../src/lib/content-coding.js';

const ALL: readonly ContentCoding[] = CONTENT_CODINGS;
const NO_ZSTD: readonly ContentCoding[] = ['br', 'gzip'];

describe('negotiateContentCoding', () => {
  it.each<[string | undefined, readonly ContentCoding[], Coding]>([
    // No field, or an empty one: identity (RFC 9110 §12.5.3: empty means no coding wanted).
    [undefined, ALL, 'identity'],
    ['', ALL, 'identity'],
    [' , ,', ALL, 'identity'],
    // What clients send.
    ['gzip, deflate, br, zstd', ALL, 'br'],
    ['gzip, deflate, br, zstd', NO_ZSTD, 'br'],
    ['gzip, deflate', ALL, 'gzip'],
    ['br, gzip, deflate', ALL, 'br'],
    ['zstd', ALL, 'zstd'],
    ['zstd', NO_ZSTD, 'identity'],
    ['gzip, br', [], 'identity'],
    // Weights: the heaviest acceptable coding; the server's order breaks ties.
    ['gzip;q=1, br;q=0.5', ALL, 'gzip'],
    ['br;q=0.5, gzip;q=0.8, zstd;q=0.9', ALL, 'zstd'],
    ['br;q=0.5, gzip;q=0.8, zstd;q=0.9', NO_ZSTD, 'gzip'],
    ['gzip;q=0.001', ALL, 'gzip'],
    ['gzip;q=1.000, br;q=1.', ALL, 'br'],
    // Refusals.
    ['br;q=0, gzip', ALL, 'gzip'],
    ['br;q=0.0, gzip;q=0.000', ALL, 'identity'],
    ['gzip, gzip;q=0', ALL, 'identity'], // listed twice: the refusal stands
    // The wildcard weighs what is not listed.
    ['*', ALL, 'br'],
    ['*;q=0.5, gzip', ALL, 'gzip'],
    ['*;q=0, gzip', ALL, 'gzip'],
    ['*;q=0', ALL, 'identity'],
    ['br;q=0, *', ALL, 'zstd'],
    ['br;q=0, *', NO_ZSTD, 'gzip'],
    // identity: chosen when listed and preferred; refusing it still gets it (never an error).
    ['identity', ALL, 'identity'],
    ['identity;q=1, gzip;q=0.5', ALL, 'identity'],
    ['gzip;q=0.5, identity;q=0.5', ALL, 'gzip'],
    ['identity;q=0', ALL, 'identity'],
    ['identity;q=0, *;q=0', ALL, 'identity'],
    // Unknown codings are ignored; x-gzip is gzip (§8.4.1.3).
    ['deflate, compress, sdch', ALL, 'identity'],
    ['x-gzip', ALL, 'gzip'],
    ['x-gzip;q=0.3, br;q=0.2', ALL, 'gzip'],
    ['gzip;q=0.1, x-gzip;q=0.9, br;q=0.2', ALL, 'br'], // gzip is listed itself: x-gzip adds nothing
    // Case and whitespace (codings and the q parameter are case-insensitive; OWS around ; and ,).
    ['GZIP;Q=0.8, Br;q=0.9', ALL, 'br'],
    ['  gzip \t;\t q=0.5 ,\tbr ; q=0.4  ', ALL, 'gzip'],
    [',,gzip,,', ALL, 'gzip'],
    // Malformed: identity, whatever else the field says.
    ['gzip;q=2', ALL, 'identity'],
    ['gzip;q=1.5', ALL, 'identity'],
    ['gzip;q=0.1234', ALL, 'identity'],
    ['gzip;q=', ALL, 'identity'],
    ['gzip;q=-1', ALL, 'identity'],
    ['gzip;level=9', ALL, 'identity'],
    ['gzip;q=0.5;q=0.6', ALL, 'identity'],
    ['gzip br', ALL, 'identity'],
    ['"gzip"', ALL, 'identity'],
    ['gzip;', ALL, 'identity'],
    ['br, gzip;q=abc', ALL, 'identity'],
    ['ü', ALL, 'identity'],
  ])('%j offering %j → %s', (header, offered, expected) => {
    expect(negotiateContentCoding(header, offered)).toBe(expected);
  });

  it('takes null as no field (the fetch API\'s Headers.get)', () => {
    expect(negotiateContentCoding(null, ALL)).toBe('identity');
  });
});

describe('parseAcceptEncoding', () => {
  it('gives the weights by coding in lower case, the lowest of a coding listed twice', () => {
    expect(parseAcceptEncoding('GZIP;q=0.5, br, *;Q=0, br;q=0.7')).toEqual(new Map([['gzip', 0.5], ['br', 0.7], ['*', 0]]));
    expect(parseAcceptEncoding('')).toEqual(new Map());
    expect(parseAcceptEncoding('gzip;q=1.1')).toBeUndefined();
  });
});

/** A model of RFC 9110 §12.5.3 over parsed elements, independent of the implementation's parser. */
function modelChoice(elements: ReadonlyArray<{ name: string; q: number | undefined }>, offered: readonly ContentCoding[]): Coding {
  const weights = new Map<string, number>();
  for (const { name, q } of elements) {
    const lower = name.toLowerCase();
    weights.set(lower, Math.min(weights.get(lower) ?? Infinity, q ?? 1));
  }
  if (weights.size === 0) return 'identity';
  const weightOf = (coding: ContentCoding): number => weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
  const best = Math.max(0, ...offered.map(weightOf));
  if (best === 0) return 'identity';
  const identity = weights.get('identity');
  if (identity !== undefined && identity > best) return 'identity';
  return offered.find((coding) => weightOf(coding) === best) as ContentCoding;
}

const ows = fc.constantFrom('', ' ', '\t', '  ');
const codingName = fc.oneof(
  fc.constantFrom('br', 'gzip', 'zstd', 'x-gzip', 'identity', '*', 'deflate', 'compress', 'BR', 'GZip', 'Zstd', 'IDENTITY'),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
);
/** Thousandths, written with 0 to 3 decimals where the value allows. */
const qvalue = fc.integer({ min: 0, max: 1000 }).chain((thousandths): fc.Arbitrary<{ q: number; text: string }> => {
  if (thousandths === 1000) return fc.constantFrom('1', '1.', '1.0', '1.000').map((text) => ({ q: 1, text }));
  if (thousandths === 0) return fc.constantFrom('0', '0.', '0.0', '0.000').map((text) => ({ q: 0, text }));
  const decimals = String(thousandths).padStart(3, '0').replace(/0+$/, '');
  return fc.constant({ q: thousandths / 1000, text: `0.${decimals}` });
});
const element = fc.record({ name: codingName, weight: fc.option(qvalue, { nil: undefined }), before: ows, after: ows, inner: ows, qName: fc.constantFrom('q', 'Q') });
const header = fc.array(element, { maxLength: 8 }).chain((elements) =>
  fc.constantFrom(',', ', ', ' ,', ',\t').map((separator) => ({
    elements: elements.map(({ name, weight }) => ({ name, q: weight?.q })),
    text: elements.map(({ name, weight, before, after, inner, qName }) => `${before}${name}${weight === undefined ? '' : `${inner};${inner}${qName}=${weight.text}`}${after}`).join(separator),
  })),
);
const offeredCodings = fc.subarray([...ALL]).map((chosen) => ALL.filter((coding) => chosen.includes(coding)));

describe('negotiation, over generated headers', () => {
  it('chooses what the model of RFC 9110 §12.5.3 chooses, for headers of the grammar', () => {
    fc.assert(
      fc.property(header, offeredCodings, ({ elements, text }, offered) => {
        expect(negotiateContentCoding(text, offered)).toBe(modelChoice(elements, offered));
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws, and never picks a coding the header does not accept, whatever the string', () => {
    const anyHeader = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom('g', 'z', 'i', 'p', 'b', 'r', '*', ';', 'q', '=', '0', '1', '.', ',', ' ', '\t', '"', '-') }), header.map(({ text }) => text));
    fc.assert(
      fc.property(anyHeader, offeredCodings, (text, offered) => {
        const chosen = negotiateContentCoding(text, offered);
        if (chosen === 'identity') return;
        expect(offered).toContain(chosen);
        // Accepted: the header parses and weighs the coding (itself, x-gzip for gzip, or *) above 0.
        const weights = parseAcceptEncoding(text);
        expect(weights).toBeDefined();
        expect(weights?.get(chosen) ?? (chosen === 'gzip' ? weights?.get('x-gzip') : undefined) ?? weights?.get('*') ?? 0).toBeGreaterThan(0);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('createContentNegotiator', () => {
  it('answers as negotiateContentCoding, for values seen before or not, past its memo bound', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(header.map(({ text }) => text), fc.string(), fc.constant(undefined)), { minLength: 1, maxLength: 60 }), offeredCodings, (values, offered) => {
        const negotiate = createContentNegotiator(offered, 8);
        // Each value twice, apart: the second answer may come from the memo.
        for (const value of [...values, ...values]) expect(negotiate(value)).toBe(negotiateContentCoding(value, offered));
      }),
      { numRuns: 300 },
    );
  });

  it('answers a value longer than it remembers, and without a memo', () => {
    const long = `${'x-unknown;q=0.5, '.repeat(40)}gzip`;
    expect(createContentNegotiator(ALL)(long)).toBe('gzip');
    expect(createContentNegotiator(ALL)(long)).toBe('gzip');
    expect(createContentNegotiator(ALL, 0)('br')).toBe('br');
  });
});
