/**
 * The hostile documents of bench/memory: every one distinct (its index is in it) and exactly the
 * maximum size, valid and invalid mixed, each with the status the server must answer it with.
 */

export type DocumentKind = 'valid' | 'valid-heavy' | 'syntax-error' | 'invalid-field' | 'token-limit' | 'too-large';

export interface HostileDocument {
  kind: DocumentKind;
  method: 'GET' | 'POST';
  query: string;
  /** What the server must answer (GET and POST alike, but a document over the limit: 414 / 413). */
  expectedStatus: number;
}

export const DOCUMENT_KINDS: readonly DocumentKind[] = ['valid', 'valid-heavy', 'syntax-error', 'invalid-field', 'token-limit', 'too-large'];

const HEAVY_TIER =
  'id title platform amountCents supporters { __typename id name platform amountCents since tier { id title platform amountCents } ' +
  '... on Patron { lifetimeCents } ... on ChannelMember { daysAtTier } }';

/** `text` padded with a comment (one token, lexed whole) to exactly `bytes` bytes. */
function padded(text: string, bytes: number, index: number): string {
  const head = `${text}\n# ${index} `;
  return head + '.'.repeat(bytes - head.length);
}

function documentText(kind: DocumentKind, index: number, maxBytes: number): string {
  switch (kind) {
    case 'valid':
      return padded(`{ stats { subscribers } d${index}: tiers { title amountCents } }`, maxBytes, index);
    case 'valid-heavy':
      // 602 tokens at the alias limit (15), depth 4: a heavy parsed and compiled form, within every
      // limit (graphql-js's own validation budget refuses e.g. hundreds of repeats of one field).
      return padded(`{ ${Array.from({ length: 15 }, (_, alias) => `a${alias}: tiers { ${HEAVY_TIER} }`).join(' ')} }`, maxBytes, index);
    case 'syntax-error':
      return `${padded(`{ stats { subscribers } d${index}: tiers { title }`, maxBytes - 2, index)}\n{`;
    case 'invalid-field':
      return padded(`{ stats { subscribers nothing${index} } }`, maxBytes, index);
    case 'token-limit': {
      const head = `{ stats${index} `;
      return `${head}${'a '.repeat((maxBytes - head.length - 1) / 2)}`.padEnd(maxBytes, ' ');
    }
    case 'too-large':
      return padded(`{ stats { subscribers } d${index}: tiers { title } }`, maxBytes + 1, index);
  }
}

/** `count` documents: the kinds in turn, every other one sent as a GET. */
export function hostileDocuments(count: number, maxBytes: number): HostileDocument[] {
  return Array.from({ length: count }, (_, index) => {
    const kind = DOCUMENT_KINDS[index % DOCUMENT_KINDS.length]!;
    const method = Math.floor(index / DOCUMENT_KINDS.length) % 2 === 0 ? 'POST' : 'GET';
    const query = documentText(kind, index, maxBytes);
    const expectedStatus = kind === 'valid' || kind === 'valid-heavy' ? 200 : kind === 'too-large' ? (method === 'GET' ? 414 : 413) : 400;
    return { kind, method, query, expectedStatus };
  });
}
