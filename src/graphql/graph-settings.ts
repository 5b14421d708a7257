/**
 * The channel graph's plugin settings: each has a documented default and an environment override,
 * declared once in GRAPH_SETTINGS (docs/graph.md's table is checked against it). Production behaviour is the default: development (stack
 * traces, GraphiQL) is chosen explicitly with `NODE_ENV=development` (src/lib/node-env.ts).
 */
import { isDevelopment } from '../lib/node-env.js';
import { boolean, type Environment, integer, readSettings, text, type Variables } from '../lib/settings.js';

export interface GraphSettings {
  /**
   * `NODE_ENV=development` (default false: any other value, or none, is production). Development adds
   * the original error (message and stack) to masked errors and turns GraphiQL on.
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

const inDevelopment = (variables: Environment): boolean => isDevelopment(variables.NODE_ENV);

/** Each setting once: variable, parse, default, description. docs/graph.md's table is checked against it. */
export const GRAPH_SETTINGS = {
  nodeEnv: text({
    name: 'NODE_ENV',
    description: '`development` chooses development mode (error details, GraphiQL); anything else, or none, is production; `production` also refuses to start on the sandbox unless SANDBOX=true.',
  }),
  maskErrors: boolean({
    name: 'GRAPHQL_MASK_ERRORS',
    default: { documented: '`true`, `false` in development', from: (variables) => !inDevelopment(variables) },
    description: 'Unexpected errors become "Unexpected error.".',
  }),
  trustedDocumentsOnly: boolean({ name: 'GRAPHQL_TRUSTED_DOCUMENTS_ONLY', default: false, description: 'Only documents of the codegen manifest run.' }),
  responseCache: boolean({ name: 'GRAPHQL_RESPONSE_CACHE', default: true, description: 'Whole responses cached until a snapshot changes.' }),
  responseCacheTtlSeconds: integer({ name: 'GRAPHQL_RESPONSE_CACHE_TTL_SECONDS', min: 1, default: 300, description: 'Upper bound on a cached response\'s life.' }),
  graphiql: boolean({ name: 'GRAPHQL_GRAPHIQL', default: { documented: '`false`, `true` in development', from: inDevelopment }, description: 'GraphiQL on GET /graphql from a browser.' }),
  jit: boolean({ name: 'GRAPHQL_JIT', default: true, description: 'Compile queries with graphql-jit.' }),
  maxDocumentBytes: integer({ name: 'GRAPHQL_MAX_DOCUMENT_BYTES', min: 1, default: 64 * 1024, description: 'Largest document (UTF-8 bytes), refused before it is lexed.' }),
  maxDepth: integer({ name: 'GRAPHQL_MAX_DEPTH', min: 1, default: 8, description: 'Deepest selection, fragments included.' }),
  maxAliases: integer({ name: 'GRAPHQL_MAX_ALIASES', min: 1, default: 15, description: 'Aliases in one document.' }),
  maxTokens: integer({ name: 'GRAPHQL_MAX_TOKENS', min: 1, default: 1000, description: 'Lexer tokens in one document.' }),
  maxDirectives: integer({ name: 'GRAPHQL_MAX_DIRECTIVES', min: 1, default: 10, description: 'Directives in one document.' }),
  maxCost: integer({ name: 'GRAPHQL_MAX_COST', min: 1, default: 5000, description: 'graphql-armor cost limit.' }),
} as const;

/** Reads the settings; throws SettingError (`GRAPHQL_X: expected …, got …`, with its source) on a bad value. */
export function readGraphSettings(variables: Environment | Variables): GraphSettings {
  const { nodeEnv, ...settings } = readSettings(GRAPH_SETTINGS, variables);
  return { development: isDevelopment(nodeEnv), ...settings };
}

/** What `npm start` runs with an empty environment: production. */
export const DEFAULT_GRAPH_SETTINGS: Readonly<GraphSettings> = Object.freeze(readGraphSettings({}));
