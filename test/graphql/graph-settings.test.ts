import { describe, expect, it } from 'vitest';
import { DEFAULT_GRAPH_SETTINGS, readGraphSettings } from '../../src/graphql/graph-settings.js';

describe('readGraphSettings', () => {
  it('gives the documented defaults for an empty environment: production', () => {
    expect(readGraphSettings({})).toEqual(DEFAULT_GRAPH_SETTINGS);
    expect(DEFAULT_GRAPH_SETTINGS).toMatchObject({
      development: false,
      maskErrors: true,
      trustedDocumentsOnly: false,
      responseCache: true,
      jit: true,
      graphiql: false,
      maxDocumentBytes: 65536,
      maxDepth: 8,
      maxAliases: 15,
      maxTokens: 1000,
      maxDirectives: 10,
      maxCost: 5000,
    });
  });

  it('is production unless NODE_ENV=development: errors masked, GraphiQL off', () => {
    for (const NODE_ENV of [undefined, '', 'production', 'test', 'staging']) {
      expect(readGraphSettings({ NODE_ENV }), `NODE_ENV=${NODE_ENV}`).toMatchObject({ development: false, maskErrors: true, graphiql: false });
    }
  });

  it('NODE_ENV=development unmasks errors and turns GraphiQL on; GRAPHQL_MASK_ERRORS and GRAPHQL_GRAPHIQL override either way', () => {
    expect(readGraphSettings({ NODE_ENV: 'development' })).toMatchObject({ development: true, maskErrors: false, graphiql: true });
    expect(readGraphSettings({ NODE_ENV: 'development', GRAPHQL_MASK_ERRORS: 'true', GRAPHQL_GRAPHIQL: 'false' })).toMatchObject({ development: true, maskErrors: true, graphiql: false });
    expect(readGraphSettings({ GRAPHQL_MASK_ERRORS: 'false', GRAPHQL_GRAPHIQL: 'true' })).toMatchObject({ development: false, maskErrors: false, graphiql: true });
  });

  it('reads every override', () => {
    expect(
      readGraphSettings({
        GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true',
        GRAPHQL_RESPONSE_CACHE: 'false',
        GRAPHQL_RESPONSE_CACHE_TTL_SECONDS: '30',
        GRAPHQL_GRAPHIQL: '1',
        GRAPHQL_JIT: '0',
        GRAPHQL_MAX_DOCUMENT_BYTES: '4096',
        GRAPHQL_MAX_DEPTH: '4',
        GRAPHQL_MAX_ALIASES: '3',
        GRAPHQL_MAX_TOKENS: '200',
        GRAPHQL_MAX_DIRECTIVES: '2',
        GRAPHQL_MAX_COST: '100',
      }),
    ).toEqual({
      development: false,
      maskErrors: true,
      trustedDocumentsOnly: true,
      responseCache: false,
      responseCacheTtlSeconds: 30,
      graphiql: true,
      jit: false,
      maxDocumentBytes: 4096,
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
