import { describe, expect, it } from 'vitest';
import type { Supporter } from '../../src/channel/models.js';
import { isSupporterOrder, orderSupporters } from '../../src/channel/order.js';

function supporter(id: string, amountCents: number, since: string): Supporter {
  return { id, platform: 'membership', name: id, tierId: null, amountCents, since };
}

const list: Supporter[] = [
  supporter('c', 500, '2021-03-01T00:00:00Z'),
  supporter('a', 1000, '2022-01-01T00:00:00Z'),
  supporter('b', 500, '2020-06-01T00:00:00.000Z'),
  supporter('d', 1000, '2019-01-01T00:00:00+02:00'),
  supporter('e', 500, '2021-03-01T00:00:00.000Z'),
];

describe('orderSupporters', () => {
  it('since: oldest first, ties by id, whatever the ISO-8601 spelling', () => {
    expect(orderSupporters(list, 'since').map((s) => s.id)).toEqual(['d', 'b', 'c', 'e', 'a']);
  });

  it('amount: highest first, ties oldest first', () => {
    expect(orderSupporters(list, 'amount').map((s) => s.id)).toEqual(['d', 'a', 'b', 'c', 'e']);
  });

  it('leaves the input untouched', () => {
    const before = list.map((s) => s.id);
    orderSupporters(list, 'amount');
    expect(list.map((s) => s.id)).toEqual(before);
  });

  it('recognises only the two orders', () => {
    expect(isSupporterOrder('since')).toBe(true);
    expect(isSupporterOrder('amount')).toBe(true);
    expect(isSupporterOrder('name')).toBe(false);
  });
});
