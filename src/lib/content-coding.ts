/**
 * Content negotiation of Accept-Encoding (RFC 9110 §12.5.3): which content coding an answer is sent
 * in. Pure functions over the header's text; compression.ts applies the choice.
 *
 * The rules: each listed coding carries a weight (`;q=`, default 1; RFC 9110 §12.4.2); a weight of 0
 * refuses it; `*` weighs every coding the field does not list; unknown codings (deflate, compress…)
 * are ignored; `x-gzip` is `gzip` (§8.4.1.3). Among the acceptable codings the heaviest wins, the
 * server's order of preference breaking ties, unless `identity` is listed and weighs more. No
 * field, an empty one, or one that breaks the grammar (a weight above 1, a parameter other than q,
 * a stray character): identity. A client's mistake here never costs it an error answer, only the
 * compression.
 */

/** The content codings this service may apply (compression.ts orders them by preference). */
export const CONTENT_CODINGS = ['br', 'zstd', 'gzip'] as const;

export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** A content coding, or none (RFC 9110 §12.5.3 calls that `identity`). */
export type Coding = ContentCoding | 'identity';

/**
 * One element of the list: `codings [ weight ]`, where codings is a token (RFC 9110 §5.6.2) and
 * weight = OWS ";" OWS "q=" qvalue, qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
 * The parameter name is case-insensitive (§12.4.2).
 */
const ELEMENT = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]*;[ \t]*[qQ]=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?$/;

/**
 * The weights the field gives, by coding name in lower case; undefined when the field breaks the
 * grammar. Empty list elements are skipped (RFC 9110 §5.6.1). A coding listed twice keeps its lowest
 * weight: a refusal is never overridden.
 */
export function parseAcceptEncoding(value: string): Map<string, number> | undefined {
  const weights = new Map<string, number>();
  for (const element of value.split(',')) {
    const trimmed = element.replace(/^[ \t]+|[ \t]+$/g, '');
    if (trimmed === '') continue;
    const match = ELEMENT.exec(trimmed);
    if (match === null) return undefined;
    const coding = (match[1] as string).toLowerCase();
    const weight = match[2] === undefined ? 1 : Number(match[2]);
    const listed = weights.get(coding);
    weights.set(coding, listed === undefined ? weight : Math.min(listed, weight));
  }
  return weights;
}

/**
 * The coding to answer in, one of `offered` (in the server's order of preference) or `identity`.
 * An absent field (`undefined` or `null`) is identity: nothing says the client decodes anything.
 */
export function negotiateContentCoding(value: string | null | undefined, offered: readonly ContentCoding[]): Coding {
  if (value === undefined || value === null || offered.length === 0) return 'identity';
  const weights = parseAcceptEncoding(value);
  if (weights === undefined) return 'identity';
  const wildcard = weights.get('*');
  const weightOf = (coding: ContentCoding): number => weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? wildcard ?? 0;
  let best: ContentCoding | undefined;
  let bestWeight = 0;
  for (const coding of offered) {
    const weight = weightOf(coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  if (best === undefined) return 'identity';
  // Listed explicitly and preferred: `identity;q=1, gzip;q=0.5` asks for no coding.
  const identity = weights.get('identity');
  return identity !== undefined && identity > bestWeight ? 'identity' : best;
}

/** Field values remembered by a negotiator; a value longer than MEMO_MAX_VALUE_LENGTH is negotiated each time. */
const DEFAULT_MEMO_ENTRIES = 64;
const MEMO_MAX_VALUE_LENGTH = 256;

/**
 * negotiateContentCoding over `offered`, remembering the answer for the field values it has seen
 * (browsers send `gzip, deflate, br, zstd`, fetch `gzip, deflate`, curl none): a request whose value
 * was seen costs one map lookup. Bounded: at most `maxEntries` values (oldest forgotten first), each
 * at most 256 characters, so a client sending a new value every time costs a parse, not memory.
 */
export function createContentNegotiator(offered: readonly ContentCoding[], maxEntries = DEFAULT_MEMO_ENTRIES): (value: string | null | undefined) => Coding {
  const memo = new Map<string, Coding>();
  return (value) => {
    if (value === undefined || value === null) return 'identity';
    const known = memo.get(value);
    if (known !== undefined) return known;
    const coding = negotiateContentCoding(value, offered);
    if (value.length <= MEMO_MAX_VALUE_LENGTH && maxEntries > 0) {
      if (memo.size >= maxEntries) memo.delete(memo.keys().next().value as string);
      memo.set(value, coding);
    }
    return coding;
  };
}
