/**
 * Introspection rules of the reference document ("Introspection types"): the type list, wrapper
 * types, enum values, interfaces and `__type(name:)`, asked of the Star Wars example graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStarWars, type RunningGraph } from './graph-client.js';

let graph: RunningGraph;
beforeAll(async () => {
  graph = await startStarWars();
});
afterAll(() => graph.close());

describe('__schema', () => {
  it('lists the user types, the built-in scalars in use and every double-underscore type', async () => {
    const { body } = await graph.post({ query: '{ __schema { types { name kind } } }' });
    const types = (body.data as { __schema: { types: Array<{ name: string; kind: string }> } }).__schema.types;
    expect(types.map((type) => type).sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([
      { name: 'Boolean', kind: 'SCALAR' },
      { name: 'Character', kind: 'INTERFACE' },
      { name: 'Droid', kind: 'OBJECT' },
      { name: 'Episode', kind: 'ENUM' },
      { name: 'Human', kind: 'OBJECT' },
      { name: 'Query', kind: 'OBJECT' },
      { name: 'String', kind: 'SCALAR' },
      { name: '__Directive', kind: 'OBJECT' },
      { name: '__DirectiveLocation', kind: 'ENUM' },
      { name: '__EnumValue', kind: 'OBJECT' },
      { name: '__Field', kind: 'OBJECT' },
      { name: '__InputValue', kind: 'OBJECT' },
      { name: '__Schema', kind: 'OBJECT' },
      { name: '__Type', kind: 'OBJECT' },
      { name: '__TypeKind', kind: 'ENUM' },
    ]);
    // Int, Float and ID are built in but unused by this schema, so they are not listed.
    expect(types.map((type) => type.name)).not.toContain('Int');
  });

  it('names the root query type', async () => {
    const { body } = await graph.post({ query: '{ __schema { queryType { name kind } } }' });
    expect(body).toEqual({ data: { __schema: { queryType: { name: 'Query', kind: 'OBJECT' } } } });
  });

  it('describes every user type, field, argument and enum value (the example documents itself)', async () => {
    const { body } = await graph.post({
      query: `{ __schema { types { name description
                 fields { name description args { name description } }
                 enumValues { name description } } } }`,
    });
    type Described = { name: string; description: string | null };
    type TypeInfo = Described & { fields: Array<Described & { args: Described[] }> | null; enumValues: Described[] | null };
    const userTypes = (body.data as { __schema: { types: TypeInfo[] } }).__schema.types.filter(
      (type) => !type.name.startsWith('__') && !['String', 'Boolean'].includes(type.name),
    );
    expect(userTypes.map((type) => type.name).sort()).toEqual(['Character', 'Droid', 'Episode', 'Human', 'Query']);
    const undocumented = userTypes.flatMap((type) => [
      ...(type.description ? [] : [type.name]),
      ...(type.fields ?? []).flatMap((field) => [
        ...(field.description ? [] : [`${type.name}.${field.name}`]),
        ...field.args.filter((arg) => !arg.description).map((arg) => `${type.name}.${field.name}(${arg.name})`),
      ]),
      ...(type.enumValues ?? []).filter((value) => !value.description).map((value) => `${type.name}.${value.name}`),
    ]);
    expect(undocumented).toEqual([]);
  });

  it('answers introspection through GET as well', async () => {
    const { body } = await graph.get({ query: '{ __schema { queryType { name } } }' });
    expect(body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });
});

describe('__type', () => {
  it('describes an object type: kind, description and fields with their types', async () => {
    const { body } = await graph.post({
      query: '{ __type(name: "Droid") { name kind description fields { name type { name kind } } } }',
    });
    expect(body).toEqual({
      data: {
        __type: {
          name: 'Droid',
          kind: 'OBJECT',
          description: 'A mechanical creature in the Star Wars universe.',
          fields: [
            { name: 'id', type: { name: null, kind: 'NON_NULL' } },
            { name: 'name', type: { name: 'String', kind: 'SCALAR' } },
            { name: 'friends', type: { name: null, kind: 'LIST' } },
            { name: 'appearsIn', type: { name: null, kind: 'LIST' } },
            { name: 'primaryFunction', type: { name: 'String', kind: 'SCALAR' } },
          ],
        },
      },
    });
  });

  it('gives wrapper types (NON_NULL, LIST) a null name and an ofType naming the wrapped type', async () => {
    const { body } = await graph.post({
      query: `{ __type(name: "Human") { fields { name type { name kind ofType { name kind ofType { name } } } } } }`,
    });
    const fields = (body.data as { __type: { fields: Array<{ name: string; type: unknown }> } }).__type.fields;
    const typeOf = (field: string): unknown => fields.find((candidate) => candidate.name === field)?.type;
    expect(typeOf('id')).toEqual({ name: null, kind: 'NON_NULL', ofType: { name: 'String', kind: 'SCALAR', ofType: null } });
    expect(typeOf('friends')).toEqual({ name: null, kind: 'LIST', ofType: { name: 'Character', kind: 'INTERFACE', ofType: null } });
    expect(typeOf('appearsIn')).toEqual({ name: null, kind: 'LIST', ofType: { name: 'Episode', kind: 'ENUM', ofType: null } });
    expect(typeOf('homePlanet')).toEqual({ name: 'String', kind: 'SCALAR', ofType: null });
  });

  it('lists the values of an enum', async () => {
    const { body } = await graph.post({ query: '{ __type(name: "Episode") { kind enumValues { name description } } }' });
    expect(body).toEqual({
      data: {
        __type: {
          kind: 'ENUM',
          enumValues: [
            { name: 'NEW_HOPE', description: 'Star Wars: Episode IV – A New Hope (1977).' },
            { name: 'EMPIRE', description: 'Star Wars: Episode V – The Empire Strikes Back (1980).' },
            { name: 'JEDI', description: 'Star Wars: Episode VI – Return of the Jedi (1983).' },
          ],
        },
      },
    });
  });

  it('lists the interfaces an object type implements, and the implementations of an interface', async () => {
    const { body } = await graph.post({
      query: `{ human: __type(name: "Human") { interfaces { name kind } }
                 droid: __type(name: "Droid") { interfaces { name } }
                 character: __type(name: "Character") { kind possibleTypes { name } } }`,
    });
    expect(body).toEqual({
      data: {
        human: { interfaces: [{ name: 'Character', kind: 'INTERFACE' }] },
        droid: { interfaces: [{ name: 'Character' }] },
        character: { kind: 'INTERFACE', possibleTypes: [{ name: 'Human' }, { name: 'Droid' }] },
      },
    });
  });

  it('describes the root fields with their arguments', async () => {
    const { body } = await graph.post({
      query: '{ __type(name: "Query") { fields { name args { name type { kind name ofType { name } } } type { name } } } }',
    });
    expect(body).toEqual({
      data: {
        __type: {
          fields: [
            { name: 'hero', args: [{ name: 'episode', type: { kind: 'ENUM', name: 'Episode', ofType: null } }], type: { name: 'Character' } },
            { name: 'human', args: [{ name: 'id', type: { kind: 'NON_NULL', name: null, ofType: { name: 'String' } } }], type: { name: 'Human' } },
            { name: 'droid', args: [{ name: 'id', type: { kind: 'NON_NULL', name: null, ofType: { name: 'String' } } }], type: { name: 'Droid' } },
          ],
        },
      },
    });
  });

  it('is null, without an error, for a name that is not a type of the schema', async () => {
    const { body } = await graph.post({ query: '{ __type(name: "Wookiee") { name } }' });
    expect(body).toEqual({ data: { __type: null } });
  });

  it('describes the introspection types themselves', async () => {
    const { body } = await graph.post({ query: '{ __type(name: "__TypeKind") { kind enumValues { name } } }' });
    const values = (body.data as { __type: { kind: string; enumValues: Array<{ name: string }> } }).__type;
    expect(values.kind).toBe('ENUM');
    expect(values.enumValues.map((value) => value.name)).toEqual(
      expect.arrayContaining(['SCALAR', 'OBJECT', 'INTERFACE', 'ENUM', 'LIST', 'NON_NULL']),
    );
  });
});
