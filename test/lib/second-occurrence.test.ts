import { describe, expect, it } from 'vitest';
import { createSecondOccurrenceGate } from '../../src/lib/second-occurrence.js';

describe('createSecondOccurrenceGate', () => {
  it('admits a key on its second occurrence only, then forgets it', () => {
    const admit = createSecondOccurrenceGate(10);
    expect(admit('a')).toBe(false);
    expect(admit('a')).toBe(true);
    // Admitted keys leave the list: the cache that admitted them holds them now.
    expect(admit('a')).toBe(false);
    expect(admit('a')).toBe(true);
  });

  it('remembers at most maxKeys keys seen once, forgetting the least recently offered', () => {
    const admit = createSecondOccurrenceGate(3);
    for (const key of ['a', 'b', 'c', 'd']) expect(admit(key)).toBe(false);
    expect(admit('a')).toBe(false); // pushed out by d: seen "once" again
    expect(admit('d')).toBe(true);
    expect(admit('c')).toBe(true);
  });

  it('never admits a stream of distinct keys', () => {
    const admit = createSecondOccurrenceGate(100);
    let admitted = 0;
    for (let i = 0; i < 10_000; i++) if (admit(`key ${i}`)) admitted += 1;
    expect(admitted).toBe(0);
  });
});
