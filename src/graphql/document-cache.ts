import { hash } from 'node:crypto';
import { TokenKind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { BoundedLru, type LruBounds } from './bounded-lru.js';

/**
 * The parse and validation cache of a graph server, in place of yoga's (which keys entries by the
 * whole document text and keeps parse failures too, so distinct large documents grow memory without
 * a bound). Here:
 * - the key is the SHA-256 of the document text, never the text;
 * - only documents that parsed AND validated are kept, so a hostile stream of distinct invalid
 *   documents costs work per request but no memory;
 * - a document is kept from its second occurrence on: the first only leaves its key in a bounded
 *   list of recently seen keys, so a stream of distinct valid documents cannot fill the cache (and
 *   evict the documents clients do repeat) nor make graphql-jit compile what runs only once;
 * - the cache is bounded in entries and in bytes, each entry weighing its text plus an estimate of
 *   its parsed form (and whatever is charged to it later: graphql-jit's compiled operations);
 * - a cached document skips parsing and every validation rule, limits included: the schema and the
 *   rules are fixed for the server's lifetime, so a document that validated once always does.
 */
export type DocumentCacheOptions = Partial<LruBounds>;

export const DEFAULT_DOCUMENT_CACHE_BOUNDS: Readonly<LruBounds> = { maxEntries: 1000, maxBytes: 16 * 1024 * 1024 };

/** Keys of documents seen once, remembered per cache entry allowed (each ~100 bytes). */
const SEEN_KEYS_PER_ENTRY = 4;

/**
 * Heap bytes per lexical token of a parsed document (its token list, AST nodes and locations),
 * measured on documents of 50–1,000 tokens: 360–420 bytes.
 */
const PARSED_BYTES_PER_TOKEN = 400;

/** One cached document; other plugins key the work they derive from it on this object. */
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
  /** Adds `bytes` to the weight of a cached entry (work derived from it); may evict it or others. */
  charge(entry: CachedDocument, bytes: number): void;
  /** Entries and summed weight held (for tests and benchmarks). */
  stats(): { entries: number; bytes: number };
}

function countTokens(document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken.next; token && token.kind !== TokenKind.EOF; token = token.next) tokens += 1;
  return tokens;
}

function sourceText(source: unknown): string {
  return typeof source === 'string' ? source : String(source);
}

export function createDocumentCache(options: DocumentCacheOptions = {}): DocumentCache {
  const bounds = { ...DEFAULT_DOCUMENT_CACHE_BOUNDS, ...options };
  const lru = new BoundedLru<string, CachedDocument>(bounds);
  /** Keys of valid documents seen once: bounded by count (4,000 keys of 44 characters, ~0.5 MB, at the defaults). */
  const seenOnce = new BoundedLru<string, true>({ maxEntries: SEEN_KEYS_PER_ENTRY * bounds.maxEntries, maxBytes: Number.POSITIVE_INFINITY });
  /** Cache key of each document object that was cached (stale once evicted: checked against the LRU). */
  const keys = new WeakMap<DocumentNode, string>();
  /** Key and text length of documents parsed this request, until they validate. */
  const parsed = new WeakMap<DocumentNode, { key: string; length: number }>();

  const entryOf = (document: DocumentNode): CachedDocument | undefined => {
    const key = keys.get(document);
    if (key === undefined) return undefined;
    const entry = lru.peek(key);
    return entry?.document === document ? entry : undefined;
  };

  const plugin: Plugin = {
    onParse({ params, setParsedDocument }) {
      const text = sourceText(params.source);
      const key = hash('sha256', text, 'base64');
      const cached = lru.get(key);
      if (cached !== undefined) {
        setParsedDocument(cached.document);
        return undefined;
      }
      return ({ result }) => {
        // envelop types the result as any: a DocumentNode, or the parser's error.
        if (result !== null && !(result instanceof Error)) parsed.set(result as DocumentNode, { key, length: text.length });
      };
    },
    onValidate({ params, setResult }) {
      const documentAST = params.documentAST as DocumentNode;
      if (keys.has(documentAST)) {
        setResult([]);
        return undefined;
      }
      const source = parsed.get(documentAST);
      if (source === undefined) return undefined;
      return ({ valid }) => {
        if (!valid) return;
        if (seenOnce.peek(source.key) === undefined) {
          seenOnce.set(source.key, true, 1);
          return;
        }
        seenOnce.delete(source.key);
        const entry: CachedDocument = { document: documentAST, tokens: countTokens(documentAST) };
        if (lru.set(source.key, entry, source.length + entry.tokens * PARSED_BYTES_PER_TOKEN)) keys.set(documentAST, source.key);
      };
    },
  };

  return {
    plugin,
    entryOf,
    charge(entry, bytes) {
      const key = keys.get(entry.document);
      if (key !== undefined && lru.peek(key) === entry) lru.charge(key, bytes);
    },
    stats: () => ({ entries: lru.size, bytes: lru.bytes }),
  };
}
