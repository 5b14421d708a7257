/**
 * The channel graph's plugin settings: each has a documented default and an environment override.
 * The table in the README is this list. Production behaviour is the default: development (stack
 * traces, field suggestions, GraphiQL) is chosen explicitly with `NODE_ENV=development`.
 */
export interface GraphSettings {
  /**
   * `NODE_ENV=development` (default false: any other value, or none, is production). Development adds
   * the original error (message and stack) to masked errors, keeps "Did you mean …?" suggestions and
   * turns GraphiQL on.
   */
  development: boolean;
  /** `GRAPHQL_MASK_ERRORS` (default: not development). Unexpected errors become "Unexpected error.". */
  maskErrors: boolean;
  /** `GRAPHQL_TRUSTED_DOCUMENTS_ONLY` (default false). Only documents of the codegen manifest run. */
  trustedDocumentsOnly: boolean;
  /** `GRAPHQL_RESPONSE_CACHE` (default true). Whole responses cached until a snapshot changes. */
  responseCache: boolean;
  /** `GRAPHQL_RESPONSE_CACHE_TTL_SECONDS` (default 300): an upper bound on top of change invalidation. */
  responseCacheTtlSeconds: number;
  /** `GRAPHQL_GRAPHIQL` (default: development). GraphiQL on GET /graphql from a browser. */
  graphiql: boolean;
  /** `GRAPHQL_JIT` (default true: ~2× the throughput in bench/graph). Compile queries with graphql-jit. */
  jit: boolean;
  /**
   * `GRAPHQL_MAX_DOCUMENT_BYTES` (default 65536). Largest document (UTF-8 bytes), refused before it
   * is lexed; the POST body limit is this plus an allowance for variables and extensions.
   */
  maxDocumentBytes: number;
  /** `GRAPHQL_MAX_DEPTH` (default 8). Deepest selection, fragments included. */
  maxDepth: number;
  /** `GRAPHQL_MAX_ALIASES` (default 15). Aliases in one document. */
  maxAliases: number;
  /** `GRAPHQL_MAX_TOKENS` (default 1000). Lexer tokens in one document; parsing stops past it. */
  maxTokens: number;
  /** `GRAPHQL_MAX_DIRECTIVES` (default 10). Directives in one document. */
  maxDirectives: number;
  /** `GRAPHQL_MAX_COST` (default 5000). graphql-armor's cost (objects 2, scalars 1, ×1.5 per level). */
  maxCost: number;
}

/** What `npm start` runs with an empty environment: production. */
export const DEFAULT_GRAPH_SETTINGS: Readonly<GraphSettings> = {
  development: false,
  maskErrors: true,
  trustedDocumentsOnly: false,
  responseCache: true,
  responseCacheTtlSeconds: 300,
  graphiql: false,
  jit: true,
  maxDocumentBytes: 64 * 1024,
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1000,
  maxDirectives: 10,
  maxCost: 5000,
};

type Env = Record<string, string | undefined>;

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name}: expected true or false, got ${JSON.stringify(value)}`);
}

function readPositiveInteger(env: Env, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new Error(`${name}: expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** Reads the settings from the environment; throws `Error('GRAPHQL_X: expected …, got …')` on a bad value. */
export function readGraphSettings(env: Env): GraphSettings {
  const d = DEFAULT_GRAPH_SETTINGS;
  const development = env.NODE_ENV === 'development';
  return {
    development,
    maskErrors: readBoolean(env, 'GRAPHQL_MASK_ERRORS', !development),
    trustedDocumentsOnly: readBoolean(env, 'GRAPHQL_TRUSTED_DOCUMENTS_ONLY', d.trustedDocumentsOnly),
    responseCache: readBoolean(env, 'GRAPHQL_RESPONSE_CACHE', d.responseCache),
    responseCacheTtlSeconds: readPositiveInteger(env, 'GRAPHQL_RESPONSE_CACHE_TTL_SECONDS', d.responseCacheTtlSeconds),
    graphiql: readBoolean(env, 'GRAPHQL_GRAPHIQL', development),
    jit: readBoolean(env, 'GRAPHQL_JIT', d.jit),
    maxDocumentBytes: readPositiveInteger(env, 'GRAPHQL_MAX_DOCUMENT_BYTES', d.maxDocumentBytes),
    maxDepth: readPositiveInteger(env, 'GRAPHQL_MAX_DEPTH', d.maxDepth),
    maxAliases: readPositiveInteger(env, 'GRAPHQL_MAX_ALIASES', d.maxAliases),
    maxTokens: readPositiveInteger(env, 'GRAPHQL_MAX_TOKENS', d.maxTokens),
    maxDirectives: readPositiveInteger(env, 'GRAPHQL_MAX_DIRECTIVES', d.maxDirectives),
    maxCost: readPositiveInteger(env, 'GRAPHQL_MAX_COST', d.maxCost),
  };
}
