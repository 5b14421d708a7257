import { describe, expect, it } from 'vitest';
import { DEFAULT_GRAPH_SETTINGS, readGraphSettings } from '../../src/graphql/graph-settings.js';

describe('readGraphSettings', () => {
  it('gives the documented defaults for an empty environment', () => {
    expect(readGraphSettings({})).toEqual(DEFAULT_GRAPH_SETTINGS);
    expect(DEFAULT_GRAPH_SETTINGS).toMatchObject({ maskErrors: false, trustedDocumentsOnly: false, responseCache: true, jit: true, graphiql: true, maxDepth: 8, maxAliases: 15, maxTokens: 1000, maxDirectives: 10, maxCost: 5000 });
  });

  it('NODE_ENV=production masks errors unless GRAPHQL_MASK_ERRORS says otherwise', () => {
    expect(readGraphSettings({ NODE_ENV: 'production' })).toMatchObject({ production: true, maskErrors: true });
    expect(readGraphSettings({ NODE_ENV: 'production', GRAPHQL_MASK_ERRORS: 'false' })).toMatchObject({ production: true, maskErrors: false });
    expect(readGraphSettings({ GRAPHQL_MASK_ERRORS: 'true' })).toMatchObject({ production: false, maskErrors: true });
  });

  it('reads every override', () => {
    expect(
      readGraphSettings({
        GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true',
        GRAPHQL_RESPONSE_CACHE: 'false',
        GRAPHQL_RESPONSE_CACHE_TTL_SECONDS: '30',
        GRAPHQL_GRAPHIQL: '0',
        GRAPHQL_JIT: '0',
        GRAPHQL_MAX_DEPTH: '4',
        GRAPHQL_MAX_ALIASES: '3',
        GRAPHQL_MAX_TOKENS: '200',
        GRAPHQL_MAX_DIRECTIVES: '2',
        GRAPHQL_MAX_COST: '100',
      }),
    ).toEqual({
      production: false,
      maskErrors: false,
      trustedDocumentsOnly: true,
      responseCache: false,
      responseCacheTtlSeconds: 30,
      graphiql: false,
      jit: false,
      maxDepth: 4,
      maxAliases: 3,
      maxTokens: 200,
      maxDirectives: 2,
      maxCost: 100,
    });
  });

  it('names the variable, what it expects and what it got on a bad value', () => {
    expect(() => readGraphSettings({ GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'yes' })).toThrow('GRAPHQL_TRUSTED_DOCUMENTS_ONLY: expected true or false, got "yes"');
    expect(() => readGraphSettings({ GRAPHQL_MAX_DEPTH: '0' })).toThrow('GRAPHQL_MAX_DEPTH: expected a positive integer, got "0"');
    expect(() => readGraphSettings({ GRAPHQL_MAX_COST: '1e3' })).toThrow('GRAPHQL_MAX_COST: expected a positive integer, got "1e3"');
  });
});
