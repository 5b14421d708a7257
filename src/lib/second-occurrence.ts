import { LRUCache } from 'lru-cache';

/**
 * Admission from the second occurrence, for caches exposed to anyone: a key is admitted the second
 * time it is offered, while it is still among the `maxKeys` most recently offered once. Keys seen
 * once cost one entry of a list bounded by count (give hashes, never unbounded texts), so a stream of
 * distinct keys (hostile or merely varied) is never admitted: it can neither fill a cache nor evict
 * what clients do repeat. (A "doorkeeper", as in TinyLFU.)
 */
export type SecondOccurrenceGate = (key: string) => boolean;

export function createSecondOccurrenceGate(maxKeys: number): SecondOccurrenceGate {
  const seenOnce = new LRUCache<string, true>({ max: maxKeys });
  return (key) => {
    if (seenOnce.delete(key)) return true;
    seenOnce.set(key, true);
    return false;
  };
}
