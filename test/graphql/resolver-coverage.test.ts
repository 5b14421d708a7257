/**
 * A schema field without a resolver: createExecutableSchema refuses it by default (the
 * production behaviour) and warns, naming it, when asked to; the channel graph has none, and its
 * introspection agrees with the SDL on every description, the DateTime scalar's included.
 */
import { readFile } from 'node:fs/promises';
import { buildSchema, type GraphQLNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fieldsWithoutResolvers, MissingResolversError } from '../../src/graphql/schema/resolver-coverage.js';
import { createExecutableSchema } from '../../src/graphql/schema/executable-schema.js';
import { query, startGraphApp } from './graph-harness.js';

const typeDefs = 'type Query { hero: Hero }\ntype Hero { name: String! height: Float }';
const resolvers = { Query: { hero: () => ({ name: 'R2-D2' }) }, Hero: { name: (hero: { name: string }) => hero.name } };

describe('createExecutableSchema', () => {
  it('refuses a field without a resolver by default, naming it', () => {
    expect(() => createExecutableSchema({ typeDefs }, resolvers)).toThrow(MissingResolversError);
    expect(() => createExecutableSchema({ typeDefs }, resolvers)).toThrow(/1 schema field\(s\) have no resolver, so they would always be null: Hero\.height\./);
  });

  it('warns loudly instead when asked to, and serves the schema', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const schema = createExecutableSchema({ typeDefs }, resolvers, 'warn');
      expect(fieldsWithoutResolvers(schema)).toEqual(['Hero.height']);
      expect(warn).toHaveBeenCalledOnce();
      expect(warn.mock.calls[0]?.[0]).toMatch(/!!! WARNING: .*Hero\.height/);
    } finally {
      warn.mockRestore();
    }
  });

  it('accepts a schema whose every field has a resolver', () => {
    const schema = createExecutableSchema({ typeDefs }, { ...resolvers, Hero: { ...resolvers.Hero, height: () => 0.96 } });
    expect(fieldsWithoutResolvers(schema)).toEqual([]);
  });
});

describe('the channel graph', () => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  it('introspects every type, field and the DateTime scalar with the SDL descriptions', async () => {
    const sdl = buildSchema(await readFile('schema/channel.graphql', 'utf8'));
    const { data } = await query(started.app.url, '{ __schema { types { name description fields { name description } } } }');
    const served = (data as { __schema: { types: Array<{ name: string; description: string | null; fields: Array<{ name: string; description: string | null }> | null }> } }).__schema.types;
    const userTypes = Object.values(sdl.getTypeMap()).filter((type: GraphQLNamedType) => !type.name.startsWith('__') && type.astNode !== undefined);
    expect(userTypes.map((type) => type.name)).toContain('DateTime');
    for (const type of userTypes) {
      const introspected = served.find((candidate) => candidate.name === type.name);
      expect({ type: type.name, description: introspected?.description }).toEqual({ type: type.name, description: type.description });
      const fields = 'getFields' in type ? Object.values(type.getFields()) : [];
      for (const field of fields) {
        expect(introspected?.fields?.find((candidate) => candidate.name === field.name)?.description).toBe(field.description);
      }
    }
  });
});
