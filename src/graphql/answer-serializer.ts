/**
 * Whether graphql-jit's compiled serializer (`customJSONSerializer`: fast-json-stringify over a JSON
 * schema of the operation) writes an operation's results exactly as `JSON.stringify` does, which is
 * what yoga writes. For objects of one type it does: their fields come in the order execution wrote
 * them, and its string, number and boolean writers match JSON.stringify's (escapes included). For an
 * abstract type it does not always: graphql-jit builds one object schema for it, merging the fields
 * of every possible type in `getPossibleTypes` order (first appearance decides a field's place, the
 * last type's schema its content), while execution writes each object in the order of its own type's
 * selection. So
 * - `... on A { a b } ... on B { b a }` (valid GraphQL) would write a B as `{"a":…,"b":…}`, out of the
 *   selection's order (GraphQL serialises a result map in field order);
 * - `... on A { x: tier { title } } ... on B { x: tier { amountCents } } }` would write an A's `x`
 *   with B's fields, that is without its `title`.
 * The serializer is used only for operations where neither can happen (checked here, once per
 * operation): within every abstract type, each possible type's fields come in the merged order, and a
 * field of an object type that several possible types select is selected by the same nodes in each.
 */
import {
  Kind,
  type FieldNode, type FragmentDefinitionNode, type GraphQLAbstractType, type GraphQLCompositeType, type GraphQLNamedType, type GraphQLObjectType,
  type GraphQLOutputType, type GraphQLSchema, type NamedTypeNode, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

/**
 * A schema type's class by its tag (graphql's types name themselves), not by `instanceof` as
 * graphql's `isAbstractType` and the like: the schema may come from the other copy of graphql (its
 * CommonJS build, which graphql-jit and @graphql-tools load, beside the ES module one), where
 * those throw ("from another module or realm").
 */
function classOf(type: unknown): string {
  return Object.prototype.toString.call(type).slice('[object '.length, -1);
}

function isAbstract(type: unknown): type is GraphQLAbstractType {
  const name = classOf(type);
  return name === 'GraphQLInterfaceType' || name === 'GraphQLUnionType';
}

function isComposite(type: unknown): type is GraphQLCompositeType {
  return isAbstract(type) || classOf(type) === 'GraphQLObjectType';
}

/** The type under its list and non-null wrappers. */
function namedTypeOf(type: GraphQLOutputType): GraphQLNamedType {
  let named: GraphQLOutputType = type;
  while ('ofType' in named) named = named.ofType;
  return named;
}

/** graphql-js's doesFragmentConditionMatch: no condition, the type itself, or an abstract type it belongs to. */
function applies(schema: GraphQLSchema, condition: NamedTypeNode | undefined, type: GraphQLObjectType): boolean {
  if (condition === undefined || condition.name.value === type.name) return true;
  const conditionType = schema.getType(condition.name.value);
  return isAbstract(conditionType) && schema.isSubType(conditionType, type);
}

/**
 * The response names the selection sets give an object of `type`, in the order execution writes
 * them (first appearance, as graphql-js's and graphql-jit's collectFields), each with its field
 * nodes. `@skip` and `@include` are not evaluated: graphql-jit places every field it may write.
 */
function collectFields(schema: GraphQLSchema, fragments: Fragments, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visitedFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        const nodes = fields.get(name);
        if (nodes === undefined) fields.set(name, [selection]);
        else nodes.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(schema, selection.typeCondition, type)) visit(selection.selectionSet);
      } else if (!visitedFragments.has(selection.name.value)) {
        visitedFragments.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined && applies(schema, fragment.typeCondition, type)) visit(fragment.selectionSet);
      }
    }
  };
  selectionSets.forEach(visit);
  return fields;
}

/** Each order's names appear in the first-appearance merge of all of them in the same relative order. */
function mergeKeepsEachOrder(orders: ReadonlyArray<readonly string[]>): boolean {
  const position = new Map<string, number>();
  for (const order of orders) for (const name of order) if (!position.has(name)) position.set(name, position.size);
  return orders.every((order) => order.every((name, index) => index === 0 || (position.get(name) ?? 0) > (position.get(order[index - 1] ?? '') ?? 0)));
}

function sameNodes(a: readonly FieldNode[], b: readonly FieldNode[]): boolean {
  return a.length === b.length && a.every((node, index) => node === b[index]);
}

function keepsOrder(schema: GraphQLSchema, fragments: Fragments, type: GraphQLCompositeType, selectionSets: readonly SelectionSetNode[]): boolean {
  const objectTypes = isAbstract(type) ? schema.getPossibleTypes(type) : [type as GraphQLObjectType];
  const collected = objectTypes.map((objectType) => ({ objectType, fields: collectFields(schema, fragments, objectType, selectionSets) }));
  if (isAbstract(type)) {
    if (!mergeKeepsEachOrder(collected.map(({ fields }) => [...fields.keys()]))) return false;
    // A composite field several possible types write must be one selection, the same in each.
    const composite = new Map<string, FieldNode[]>();
    for (const { objectType, fields } of collected) {
      for (const [name, nodes] of fields) {
        const definition = objectType.getFields()[nodes[0]?.name.value ?? ''];
        if (definition === undefined || !isComposite(namedTypeOf(definition.type))) continue;
        const seen = composite.get(name);
        if (seen === undefined) composite.set(name, nodes);
        else if (!sameNodes(seen, nodes)) return false;
      }
    }
  }
  for (const { objectType, fields } of collected) {
    for (const nodes of fields.values()) {
      const definition = objectType.getFields()[nodes[0]?.name.value ?? ''];
      const fieldType = definition === undefined ? undefined : namedTypeOf(definition.type);
      if (fieldType === undefined || !isComposite(fieldType)) continue;
      const subSelections = nodes.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet]));
      if (!keepsOrder(schema, fragments, fieldType, subSelections)) return false;
    }
  }
  return true;
}

/** True when graphql-jit's compiled serializer writes every result of `operation` as JSON.stringify does. */
export function compiledSerializerKeepsOrder(schema: GraphQLSchema, fragmentDefinitions: readonly FragmentDefinitionNode[], operation: OperationDefinitionNode): boolean {
  const root = schema.getRootType(operation.operation);
  if (root === undefined || root === null) return false;
  const fragments = new Map(fragmentDefinitions.map((fragment) => [fragment.name.value, fragment]));
  return keepsOrder(schema, fragments, root, [operation.selectionSet]);
}
