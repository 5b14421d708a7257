/**
 * A request is answered the same way however often it comes. The first occurrence of a document
 * goes through yoga's whole pipeline and its executor; from the second on the document is cached
 * and its query runs compiled by graphql-jit; once an answer is replayable, a repeat is answered by
 * its prepared operation or by the response cache. Each of these faster paths must give the bytes
 * the first path gave, and none may answer 5xx.
 *
 * fast-check writes documents over the channel schema whose variable names, aliases, operation
 * names and fragment names include the names of Object.prototype's properties (`__proto__`,
 * `constructor`, `toString`…) and `then`, with variables that are given, missing, null or of the
 * wrong type. Each is sent four times, to the app as `npm start` configures it (response cache
 * on) and to one without the response cache (so repeats reach the prepared operations).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { propertyOptions, rawExchange, type RawAnswer } from '../support/hostile-http.js';
import { startGraphApp } from './graph-harness.js';

type Started = Awaited<ReturnType<typeof startGraphApp>>;

/** Names JavaScript objects treat specially, beside ordinary ones. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'then'] as const;
const name = fc.constantFrom(...PROTOTYPE_NAMES, 'id', 'a', 'Q');
const alias = fc.option(name, { nil: undefined, freq: 2 });

/** A variable with the argument types it may stand for. */
type VariableType = 'String!' | 'String' | 'Platform' | 'SupporterOrder';
interface Variable {
  name: string;
  type: VariableType;
}

const SUPPORTER_FIELDS = ['id', 'name', 'platform', 'amountCents', 'since', '__typename'];
const TIER_FIELDS = ['id', 'title', 'platform', 'amountCents', '__typename'];

const aliased = (field: string, as: string | undefined): string => (as === undefined ? field : `${as}: ${field}`);
const scalarSelection = (fields: readonly string[]): fc.Arbitrary<string> =>
  fc.uniqueArray(fc.tuple(fc.constantFrom(...fields), alias), { minLength: 1, maxLength: 3, selector: ([field, as]) => as ?? field }).map((picked) => picked.map(([field, as]) => aliased(field, as)).join(' '));

/** A supporter's selection: its fields, a fragment spread, type conditions. */
const supporterSelection = (fragmentName: string): fc.Arbitrary<string> =>
  fc
    .tuple(scalarSelection(SUPPORTER_FIELDS), fc.boolean(), fc.option(fc.constantFrom('... on Patron { lifetimeCents }', '... on ChannelMember { daysAtTier }', 'tier { title }'), { nil: '' }))
    .map(([fields, spread, extra]) => `{ ${fields} ${spread ? `...${fragmentName}` : ''} ${extra} }`);

/** The argument of type `type`: a variable of that type when one is declared, else a literal. */
function argument(variables: readonly Variable[], types: readonly VariableType[], literal: string): fc.Arbitrary<string> {
  const fitting = variables.filter((variable) => types.includes(variable.type));
  return fitting.length === 0 ? fc.constant(literal) : fc.oneof(fc.constant(literal), fc.constantFrom(...fitting.map((variable) => `$${variable.name}`)));
}

function rootField(variables: readonly Variable[], fragmentName: string): fc.Arbitrary<string> {
  const platform = argument(variables, ['Platform'], 'MEMBERSHIP');
  return fc.oneof(
    fc.tuple(alias, platform, argument(variables, ['SupporterOrder'], 'AMOUNT'), supporterSelection(fragmentName)).map(([as, p, order, set]) => `${aliased('supporters', as)}(platform: ${p}, orderBy: ${order}) ${set}`),
    fc.tuple(alias, platform, supporterSelection(fragmentName)).map(([as, p, set]) => `${aliased('topSupporter', as)}(platform: ${p}) ${set}`),
    fc.tuple(alias, argument(variables, ['String!'], '"p-1"'), scalarSelection(['id', 'name', 'lifetimeCents'])).map(([as, id, set]) => `${aliased('patron', as)}(id: ${id}) { ${set} }`),
    fc.tuple(alias, argument(variables, ['String!'], '"m-1"'), scalarSelection(['id', 'name', 'daysAtTier'])).map(([as, id, set]) => `${aliased('member', as)}(id: ${id}) { ${set} }`),
    fc.tuple(alias, platform, scalarSelection(TIER_FIELDS)).map(([as, p, set]) => `${aliased('tiers', as)}(platform: ${p}) { ${set} supporters { id } }`),
    fc.tuple(alias, scalarSelection(['subscribers', 'stale', '__typename'])).map(([as, set]) => `${aliased('stats', as)} { ${set} }`),
  );
}

/** A variable's value in the request: absent, or something of the right type or not. */
const variableValue = (type: VariableType): fc.Arbitrary<unknown> =>
  fc.oneof(
    type === 'Platform' ? fc.constantFrom('MEMBERSHIP', 'VIDEO') : type === 'SupporterOrder' ? fc.constantFrom('SINCE', 'AMOUNT') : fc.constantFrom('p-1', 'm-1', 'nobody'),
    fc.constantFrom(null, 3, true, 'NOPE', [], {}),
  );

interface Request {
  document: string;
  operationName: string | undefined;
  variables: Record<string, unknown>;
}

const request: fc.Arbitrary<Request> = fc
  .tuple(
    fc.uniqueArray(fc.tuple(name, fc.constantFrom<VariableType>('String!', 'String', 'Platform', 'SupporterOrder')), { maxLength: 3, selector: ([variable]) => variable }),
    fc.option(name, { nil: undefined }),
    name,
  )
  .chain(([declared, operationName, fragmentName]) => {
    const variables = declared.map(([variable, type]) => ({ name: variable, type }));
    const definitions = variables.length === 0 ? '' : `(${variables.map((variable) => `$${variable.name}: ${variable.type}`).join(', ')})`;
    const values = fc.tuple(...variables.map((variable) => fc.option(variableValue(variable.type), { nil: undefined, freq: 3 })));
    return fc.tuple(fc.array(rootField(variables, fragmentName), { minLength: 1, maxLength: 3 }), values, fc.boolean()).map(([fields, given, named]): Request => {
      const head = operationName === undefined && definitions === '' && !named ? '' : `query ${operationName ?? ''}${definitions} `;
      // Written the way JSON.parse reads a body: `__proto__` an own property, not the prototype.
      const json = `{${variables.flatMap((variable, index) => (given[index] === undefined ? [] : [`${JSON.stringify(variable.name)}:${JSON.stringify(given[index])}`])).join(',')}}`;
      return {
        document: `${head}{ ${fields.join(' ')} }\nfragment ${fragmentName} on Supporter { id }`,
        operationName: named ? operationName : undefined,
        variables: JSON.parse(json) as Record<string, unknown>,
      };
    });
  });

/** The request body, with `variables` written as the request gave them (own `__proto__` key included). */
function bodyOf({ document, operationName, variables }: Request): string {
  const entries = Object.entries(variables).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
  return `{"query":${JSON.stringify(document)},"variables":{${entries.join(',')}}${operationName === undefined ? '' : `,"operationName":${JSON.stringify(operationName)}`}}`;
}

function comparable(answer: RawAnswer): { status: number; contentType: string | undefined; body: string } {
  return { status: answer.status, contentType: answer.headers['content-type'], body: answer.body };
}

const REPEATS = 4;

describe.each([
  { cache: 'the response cache on (production defaults)', responseCache: true },
  { cache: 'no response cache (repeats reach the prepared operations)', responseCache: false },
])('a request repeated, with $cache', ({ responseCache }) => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp({ responseCache });
  });
  afterAll(() => started.close());

  it('is answered byte for byte as the first time, never with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        const body = bodyOf(generated);
        const answers: RawAnswer[] = [];
        for (let index = 0; index < REPEATS; index += 1) {
          answers.push(await rawExchange(started.app.url, { method: 'POST', target: '/graphql', headers: [['Content-Type', 'application/json'], ['Accept', 'application/graphql-response+json']], body }));
        }
        const [first] = answers;
        expect(first?.status, `${body} → ${first?.body}`).toBeLessThan(500);
        for (const answer of answers.slice(1)) expect(comparable(answer), body).toEqual(comparable(first as RawAnswer));
      }),
      propertyOptions(),
    );
  });
});

describe('prototype names as variable names', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startGraphApp();
  });
  afterAll(() => started.close());

  async function answers(body: string): Promise<Array<{ status: number; body: unknown }>> {
    const answered = [];
    for (let index = 0; index < REPEATS; index += 1) {
      const answer = await rawExchange(started.app.url, { method: 'POST', target: '/graphql', headers: [['Content-Type', 'application/json']], body });
      answered.push({ status: answer.status, body: JSON.parse(answer.body) as unknown });
    }
    return answered;
  }

  const SERVED = PROTOTYPE_NAMES.filter((variable) => variable !== '__proto__');

  it.each(SERVED)('$%s given: its value is used, the same on every repeat', async (variable) => {
    const answered = await answers(`{"query":"query Q($${variable}: String!) { patron(id: $${variable}) { id } }","variables":{${JSON.stringify(variable)}:"nobody"}}`);
    expect(answered).toEqual(Array.from({ length: REPEATS }, () => ({ status: 200, body: { data: { patron: null } } })));
  });

  it.each(SERVED)('$%s missing: a request error naming it, the same on every repeat', async (variable) => {
    const answered = await answers(`{"query":"query Q($${variable}: String!) { patron(id: $${variable}) { id } }","variables":{}}`);
    const error = { message: `Variable "$${variable}" of required type "String!" was not provided.`, locations: [{ line: 1, column: 9 }] };
    expect(answered).toEqual(Array.from({ length: REPEATS }, () => ({ status: 400, body: { errors: [error] } })));
  });

  it('$__proto__: refused as a validation error that says why (JavaScript objects cannot hold it as a key), given or not', async () => {
    for (const variables of ['{"__proto__":"nobody"}', '{}']) {
      const answered = await answers(`{"query":"query Q($__proto__: String!) { patron(id: $__proto__) { id } }","variables":${variables}}`);
      const refusal = {
        errors: [
          {
            message: 'Variable "$__proto__" is not supported by this server: JavaScript objects cannot hold it as a key. Rename the variable.',
            locations: [{ line: 1, column: 9 }],
            extensions: { code: 'VARIABLE_NAME_NOT_SUPPORTED' },
          },
        ],
      };
      expect(answered).toEqual(Array.from({ length: REPEATS }, () => ({ status: 200, body: refusal })));
    }
  });

  it('a response key named __proto__ or constructor is kept in the answer on every repeat', async () => {
    const answered = await answers(JSON.stringify({ query: '{ stats { __proto__: subscribers constructor: stale } __proto__: stats { subscribers } }' }));
    const [first] = answered;
    expect(first?.status).toBe(200);
    const data = (first?.body as { data: Record<string, Record<string, unknown>> }).data;
    expect(Object.keys(data)).toEqual(['stats', '__proto__']);
    expect(Object.keys(data.stats ?? {})).toEqual(['__proto__', 'constructor']);
    expect(answered.slice(1)).toEqual(answered.slice(0, -1));
  });
});
