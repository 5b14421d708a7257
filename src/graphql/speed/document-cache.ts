import { hash } from 'node:crypto';
import { TokenKind, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { createSecondOccurrenceGate } from '../../lib/second-occurrence.js';

/**
 * The caches of yoga's parserAndValidationCache (its option: parsed documents and parse errors by
 * text; validation results per schema and document, yoga's own WeakMap), bounded in entries and in
 * bytes. yoga's default caches are bounded in entries only (1,024 of any size): 1,024 documents of
 * 64 KiB, with their parsed forms, are hundreds of megabytes. Here:
 * - each cache holds at most `maxEntries`, weighing at most `maxBytes` in all: a document weighs its
 *   text plus an estimate of its parsed form and of the operation graphql-jit compiles from it (which
 *   lives exactly as long as the document object, speed/jit.ts); an error, its text and message;
 * - a text is kept from its second occurrence on (src/lib/second-occurrence.ts): the first leaves
 *   only a SHA-256 of it in a bounded list of recently seen keys, so a stream of distinct documents
 *   (hostile, or generated) neither fills the caches, evicting what clients repeat, nor gets compiled.
 */
export interface DocumentCacheOptions {
  /** Entries kept at most, in each cache. */
  maxEntries?: number;
  /** Sum of the weights kept at most, in each cache. */
  maxBytes?: number;
}

export const DEFAULT_DOCUMENT_CACHE_BOUNDS: Readonly<Required<DocumentCacheOptions>> = { maxEntries: 1000, maxBytes: 16 * 1024 * 1024 };

/** Keys of texts seen once, remembered per cache entry allowed (each ~100 bytes). */
const SEEN_KEYS_PER_ENTRY = 4;

/**
 * Heap bytes per lexical token of a parsed document (its token list, AST nodes and locations),
 * measured on documents of 50–1,000 tokens: 360–420 bytes.
 */
const PARSED_BYTES_PER_TOKEN = 400;

/**
 * Heap bytes per token that one compiled operation adds (resolve infos, closures and the bytecode of
 * the generated function once it has run): ~1,400 measured on a 487-token document.
 */
const COMPILED_BYTES_PER_TOKEN = 1500;

/** What yoga's parserAndValidationCache option takes as a cache. */
interface TextCache<T> {
  get(text: string): T | undefined;
  set(text: string, value: T): void;
}

export interface DocumentCache {
  /** yoga's `parserAndValidationCache` option. */
  readonly parserAndValidationCache: { documentCache: TextCache<DocumentNode>; errorCache: TextCache<Error>; validationCache: true };
  /** Whether this very document object is the one cached for its text (graphql-jit compiles only those). */
  holds(this: void, document: DocumentNode): boolean;
  /** Documents and parse errors kept, and their summed weight (for tests and benchmarks). */
  stats(): { documents: number; errors: number; bytes: number };
  /** Forgets every document: the schema they were compiled against was replaced (development). */
  clear(): void;
}

function countTokens(document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken.next; token && token.kind !== TokenKind.EOF; token = token.next) tokens += 1;
  return tokens;
}

export function createDocumentCache(options: DocumentCacheOptions = {}): DocumentCache {
  const { maxEntries, maxBytes } = { ...DEFAULT_DOCUMENT_CACHE_BOUNDS, ...options };
  // lru-cache drops the least recently used entries until both bounds hold, and never stores one
  // heavier than the whole budget.
  const documents = new LRUCache<string, DocumentNode>({
    max: maxEntries,
    maxSize: maxBytes,
    sizeCalculation: (document, text) => text.length + countTokens(document) * (PARSED_BYTES_PER_TOKEN + COMPILED_BYTES_PER_TOKEN),
  });
  const errors = new LRUCache<string, Error>({ max: maxEntries, maxSize: maxBytes, sizeCalculation: (error, text) => text.length + error.message.length + 1 });
  /** SHA-256 of texts seen once: 4,000 keys of 44 characters (~0.5 MB) at the defaults. */
  const admit = createSecondOccurrenceGate(SEEN_KEYS_PER_ENTRY * maxEntries);
  const admitted = <T extends object>(cache: LRUCache<string, T>): TextCache<T> => ({
    get: (text) => cache.get(text),
    set(text, value) {
      if (admit(hash('sha256', text, 'base64'))) cache.set(text, value);
    },
  });
  return {
    parserAndValidationCache: { documentCache: admitted(documents), errorCache: admitted(errors), validationCache: true },
    holds(document) {
      const text = document.loc?.source.body;
      return text !== undefined && documents.peek(text) === document;
    },
    stats: () => ({ documents: documents.size, errors: errors.size, bytes: documents.calculatedSize + errors.calculatedSize }),
    clear() {
      documents.clear();
      errors.clear();
    },
  };
}
