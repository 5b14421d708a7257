import type { Supporter } from './models.js';

/**
 * The one supporter ordering shared by the REST endpoints and the GraphQL graph, so both always
 * list the same ids in the same order.
 * - `since`: oldest supporter first; ties by id.
 * - `amount`: highest amount first; ties oldest first, then by id.
 */
export type SupporterOrder = 'since' | 'amount';

export const SUPPORTER_ORDERS: readonly SupporterOrder[] = ['since', 'amount'];

export function isSupporterOrder(value: string): value is SupporterOrder {
  return (SUPPORTER_ORDERS as readonly string[]).includes(value);
}

/** Milliseconds since the epoch; an unparseable date sorts last (as if it were the newest). */
function sinceMs(supporter: Supporter): number {
  const ms = Date.parse(supporter.since);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Returns a new, ordered array; the input is left as it is (snapshots are shared and immutable). */
export function orderSupporters(list: readonly Supporter[], order: SupporterOrder): Supporter[] {
  // Parse each date once (decorate-sort-undecorate): 100,000 supporters sort in tens of ms.
  const keyed = list.map((supporter) => ({ supporter, since: sinceMs(supporter) }));
  keyed.sort((a, b) => {
    if (order === 'amount' && a.supporter.amountCents !== b.supporter.amountCents) {
      return b.supporter.amountCents - a.supporter.amountCents;
    }
    if (a.since !== b.since) return a.since < b.since ? -1 : 1;
    return compareIds(a.supporter.id, b.supporter.id);
  });
  return keyed.map((entry) => entry.supporter);
}
