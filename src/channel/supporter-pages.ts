/**
 * Pages of a list of supporters with keyset cursors: a cursor is the sort key of the last supporter
 * of its page (src/lib/cursor.ts), and the next page starts after that key in the list as it is now.
 * A supporter joining or leaving before the cursor shifts no other supporter into or out of the next
 * page, and the one the cursor names may have left: the key, not the supporter, marks the place.
 */
import { CursorError, decodeCursor, encodeCursor } from '../lib/cursor.js';
import type { Supporter } from './models.js';
import type { SupporterOrder } from './order.js';

export { CursorError } from '../lib/cursor.js';

/** Supporters of one page at most (the REST `limit`, the graph's `first`). */
export const MAX_SUPPORTERS_PAGE = 1_000;

type Key = [amountCents: number, sinceMs: number, platform: string, id: string];

function keyOf(supporter: Supporter): Key {
  const since = Date.parse(supporter.since);
  return [supporter.amountCents, Number.isNaN(since) ? Number.MAX_VALUE : since, supporter.platform, supporter.id];
}

/** The order of orderSupporters (order.ts), then the platform: two platforms' supporters may share an id. */
function compareKeys(order: SupporterOrder, a: Key, b: Key): number {
  if (order === 'amount' && a[0] !== b[0]) return b[0] - a[0];
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  if (a[3] !== b[3]) return a[3] < b[3] ? -1 : 1;
  return a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
}

const listName = (order: SupporterOrder, scope: string): string => `supporters:${scope}:${order}`;

/** A page as a Relay connection: each supporter with its cursor, and the paging. */
export interface SupporterPage {
  edges: Array<{ node: Supporter; cursor: string }>;
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

/**
 * The page of `first` supporters of `ordered` (already in `order`) after `after`. `scope` names the
 * list (a platform, or both): a cursor of another list is refused. Throws CursorError.
 */
export function pageOfSupporters(ordered: readonly Supporter[], order: SupporterOrder, scope: string, first: number, after: string | undefined): SupporterPage {
  if (!Number.isSafeInteger(first) || first < 0 || first > MAX_SUPPORTERS_PAGE) throw new CursorError(`first (limit) must be a whole number from 0 to ${MAX_SUPPORTERS_PAGE}, got ${first}`);
  const name = listName(order, scope);
  let start = 0;
  if (after !== undefined) {
    const key = decodeCursor(name, after, ['number', 'number', 'string', 'string']) as Key;
    // The first supporter after the key (binary search: the list is sorted by the same comparison).
    let low = 0;
    let high = ordered.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareKeys(order, keyOf(ordered[middle] as Supporter), key) <= 0) low = middle + 1;
      else high = middle;
    }
    start = low;
  }
  const edges = ordered.slice(start, start + first).map((node) => ({ node, cursor: encodeCursor(name, keyOf(node)) }));
  return {
    edges,
    pageInfo: { startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: start + edges.length < ordered.length, hasPreviousPage: start > 0 },
  };
}
