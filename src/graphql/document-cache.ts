import { hash } from 'node:crypto';
import { TokenKind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { skippableByRepeats } from './skippable-plugins.js';
import { LRUCache } from 'lru-cache';
import { createSecondOccurrenceGate } from '../lib/second-occurrence.js';

/**
 * The parse and validation cache of a graph server, in place of yoga's (which keeps parse failures
 * too, so distinct large documents grow memory without a bound). Here:
 * - only documents that parsed AND validated are kept, so a hostile stream of distinct invalid
 *   documents costs work per request but no memory;
 * - a document is kept from its second occurrence on (src/lib/second-occurrence.ts): the first only
 *   leaves the SHA-256 of its text in a bounded list of recently seen keys, so a stream of distinct
 *   valid documents cannot fill the cache (and evict the documents clients do repeat) nor make
 *   graphql-jit compile what runs only once;
 * - the cache is bounded in entries and in bytes, each entry weighing its text plus an estimate of
 *   its parsed form (and whatever is charged to it later: graphql-jit's compiled operations);
 * - a cached document is found by its text (a Map lookup: no hash is computed on the hot path; the
 *   text is held by the parsed document's location anyway, and weighed) and skips parsing and every
 *   validation rule, limits included: the schema and the rules are fixed for the server's lifetime,
 *   so a document that validated once always does (a development server that swaps its schema
 *   clears the cache with it).
 */
export interface DocumentCacheOptions {
  /** Documents kept at most. */
  maxEntries?: number;
  /** Sum of the documents' weights (text, parsed form, compiled operations) kept at most. */
  maxBytes?: number;
}

export const DEFAULT_DOCUMENT_CACHE_BOUNDS: Readonly<Required<DocumentCacheOptions>> = { maxEntries: 1000, maxBytes: 16 * 1024 * 1024 };

/** Keys of documents seen once, remembered per cache entry allowed (each ~100 bytes). */
const SEEN_KEYS_PER_ENTRY = 4;

/**
 * Heap bytes per lexical token of a parsed document (its token list, AST nodes and locations),
 * measured on documents of 50–1,000 tokens: 360–420 bytes.
 */
const PARSED_BYTES_PER_TOKEN = 400;

export interface CachedDocument {
  readonly document: DocumentNode;
  /** Lexical tokens of the document (the unit derived work is weighed in). */
  readonly tokens: number;
}

export interface DocumentCache {
  /** The parse and validation hooks; register once, on one server. */
  readonly plugin: Plugin;
  /** The entry holding this very document object, while it is cached. */
  entryOf(document: DocumentNode): CachedDocument | undefined;
  /** The cached (parsed and validated) document of this text, as a request with it would find it. */
  documentOf: (text: string) => DocumentNode | undefined;
  /** Adds `bytes` to the weight of a cached entry (work derived from it); may evict it or others. */
  charge(entry: CachedDocument, bytes: number): void;
  /** Entries and summed weight held (for tests and benchmarks). */
  stats(): { entries: number; bytes: number };
  /** Forgets every document: the schema they were validated against was replaced (development). */
  clear(): void;
}

function countTokens(document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken.next; token && token.kind !== TokenKind.EOF; token = token.next) tokens += 1;
  return tokens;
}

function sourceText(source: unknown): string {
  return typeof source === 'string' ? source : String(source);
}

/** What the LRU holds: the entry (whose identity other plugins key on) and its weight so far. */
interface Slot {
  readonly entry: CachedDocument;
  readonly bytes: number;
}

export function createDocumentCache(options: DocumentCacheOptions = {}): DocumentCache {
  const bounds = { ...DEFAULT_DOCUMENT_CACHE_BOUNDS, ...options };
  // lru-cache drops the least recently used slots until both bounds hold, and never stores (or
  // deletes, when re-set) a slot heavier than the whole byte budget.
  const lru = new LRUCache<string, Slot>({ max: bounds.maxEntries, maxSize: bounds.maxBytes, sizeCalculation: (slot) => slot.bytes });
  /** SHA-256 of valid documents seen once: bounded by count (4,000 keys of 44 characters, ~0.5 MB, at the defaults). */
  const admit = createSecondOccurrenceGate(SEEN_KEYS_PER_ENTRY * bounds.maxEntries);
  /**
   * Text (the cache key) of each document object that was cached (stale once evicted: checked against
   * the LRU). A new map on `clear()`: a document parsed before it must be validated again.
   */
  let keys = new WeakMap<DocumentNode, string>();
  /** Text of documents parsed this request, until they validate. */
  const parsed = new WeakMap<DocumentNode, string>();

  const slotOf = (document: DocumentNode): Slot | undefined => {
    const key = keys.get(document);
    if (key === undefined) return undefined;
    const slot = lru.peek(key);
    return slot?.entry.document === document ? slot : undefined;
  };

  // The layers that answer repeated requests look their documents up in it themselves (skippable-plugins.ts).
  const plugin: Plugin = skippableByRepeats({
    onParse({ params, setParsedDocument }) {
      const text = sourceText(params.source);
      const cached = lru.get(text);
      if (cached !== undefined) {
        setParsedDocument(cached.entry.document);
        return undefined;
      }
      return ({ result }) => {
        // envelop types the result as any: a DocumentNode, or the parser's error.
        if (result !== null && !(result instanceof Error)) parsed.set(result as DocumentNode, text);
      };
    },
    onValidate({ params, setResult }) {
      const documentAST = params.documentAST as DocumentNode;
      if (keys.has(documentAST)) {
        setResult([]);
        return undefined;
      }
      const text = parsed.get(documentAST);
      if (text === undefined) return undefined;
      return ({ valid }) => {
        if (!valid || !admit(hash('sha256', text, 'base64'))) return;
        const entry: CachedDocument = { document: documentAST, tokens: countTokens(documentAST) };
        const bytes = text.length + entry.tokens * PARSED_BYTES_PER_TOKEN;
        if (bytes > bounds.maxBytes) return;
        lru.set(text, { entry, bytes });
        keys.set(documentAST, text);
      };
    },
  });

  return {
    plugin,
    entryOf: (document) => slotOf(document)?.entry,
    documentOf: (text) => lru.get(text)?.entry.document,
    charge(entry, bytes) {
      const slot = slotOf(entry.document);
      // A new slot object: lru-cache re-weighs a key only when its value changes.
      if (slot !== undefined) lru.set(keys.get(entry.document) as string, { entry, bytes: slot.bytes + bytes });
    },
    stats: () => ({ entries: lru.size, bytes: lru.calculatedSize }),
    clear() {
      lru.clear();
      keys = new WeakMap();
    },
  };
}
