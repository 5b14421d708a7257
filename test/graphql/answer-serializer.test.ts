/**
 * compiledSerializerKeepsOrder (src/graphql/answer-serializer.ts): graphql-jit's compiled serializer
 * is used only for operations whose results it writes as JSON.stringify does. Each case runs the
 * operation with graphql-jit over objects of both possible types and compares its serializer with
 * JSON.stringify, so the check is held to what the serializer really does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as GraphQL from 'graphql';
import type { FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { compiledSerializerKeepsOrder } from '../../src/graphql/answer-serializer.js';

// The copy of graphql that graphql-jit loads (its CommonJS build; vitest gives this file the ES module one).
const { buildSchema, Kind, parse, validate } = createRequire(import.meta.url)('graphql') as typeof GraphQL;

const schema = buildSchema(`
  interface Item { id: ID! tier: Tier }
  type Tier { title: String amountCents: Int }
  type A implements Item { id: ID! tier: Tier a: Int b: String }
  type B implements Item { id: ID! tier: Tier a: Int b: String c: Boolean }
  union Either = A | B
  type Query { items: [Item!]! either: [Either!]! one: A }
`);
const items = [
  { __typename: 'A', id: '1', a: 1, b: 'é "quoted"', tier: { title: 'Gold', amountCents: 500 } },
  { __typename: 'B', id: '2', a: 3, b: '\ud800', c: true, tier: { title: 'Silver', amountCents: 300 } },
];
const root = { items, either: items, one: items[0] };

async function verdict(query: string): Promise<{ keepsOrder: boolean; sameBytes: boolean }> {
  const document = parse(query);
  expect(validate(schema, document)).toEqual([]);
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION);
  const compiled = compileQuery(schema, document, undefined, { customJSONSerializer: true });
  if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled.errors));
  const result = await compiled.query(root, {}, {});
  expect(result.errors).toBeUndefined();
  return { keepsOrder: compiledSerializerKeepsOrder(schema, fragments, operation), sameBytes: compiled.stringify(result) === JSON.stringify(result) };
}

describe('compiledSerializerKeepsOrder', () => {
  it.each([
    '{ items { __typename id tier { title } ... on B { c } } }',
    '{ items { id ... on A { a b } ... on B { a b c } } }',
    '{ either { ... on A { id a } ... on B { id a c } } }',
    '{ one { b a id tier { amountCents title } } }',
    'fragment I on Item { id tier { title } } { items { ...I ... on B { c } } }',
  ])('accepts %s, whose results the serializer writes byte for byte as JSON.stringify', async (query) => {
    expect(await verdict(query)).toEqual({ keepsOrder: true, sameBytes: true });
  });

  it.each([
    // B's fields in another order than A's: the merged schema writes a B in A's order.
    '{ items { ... on A { a b } ... on B { b a } } }',
    '{ either { ... on A { id a } ... on B { a id } } }',
    // The same response name with different selections: the merged schema writes an A's `t` with B's fields.
    '{ items { id ... on A { t: tier { title } } ... on B { t: tier { amountCents } } } }',
  ])('refuses %s, whose results the serializer writes differently', async (query) => {
    expect(await verdict(query)).toEqual({ keepsOrder: false, sameBytes: false });
  });

  it('is conservative: the same selection written out twice is refused, though the serializer would write it right', async () => {
    // JSON.stringify then writes these results, which is always right.
    expect(await verdict('{ items { id ... on A { t: tier { title } } ... on B { t: tier { title } } } }')).toEqual({ keepsOrder: false, sameBytes: true });
  });

  it('refuses an operation whose selections could be written out of order even where this data does not show it', async () => {
    // The fields each type selects in its own order, apart from the shared ones: b before a for B only.
    const { keepsOrder } = await verdict('{ items { id ... on B { b } ... on A { a b } ... on B { a } } }');
    expect(keepsOrder).toBe(false);
  });

  it("accepts the channel graph's issue query and the variables query (the bench's), so their answers are written by the compiled serializer", () => {
    const sdl = readdirSync('schema').filter((name) => name.endsWith('.graphql')).map((name) => readFileSync(join('schema', name), 'utf8')).join('\n');
    const channelSchema = buildSchema(sdl);
    for (const query of ['{ supporters { __typename id name amountCents tier { title } ... on Patron { lifetimeCents } } }', 'query($p: Platform) { supporters(platform: $p) { id name } }']) {
      const operation = parse(query).definitions[0] as OperationDefinitionNode;
      expect(compiledSerializerKeepsOrder(channelSchema, [], operation), query).toBe(true);
    }
  });
});
