import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createMaskError } from '../../src/graphql/plugins/error-masking.js';

/** An error as graphql-jit makes them: named GraphQLError, with no `extensions` property at all. */
function extensionlessError(message: string): Error {
  const error = new Error(message);
  Object.defineProperty(error, 'name', { value: 'GraphQLError' });
  return error;
}

describe('createMaskError', () => {
  const production = createMaskError({ maskUnexpected: true, development: false });

  it('keeps a GraphQL error without extensions (graphql-jit\'s) as it is, instead of throwing', () => {
    const error = extensionlessError('Variable "$x" of required type "String!" was not provided.');
    expect(production(error, 'Unexpected error.')).toBe(error);
  });

  it('drops the original error of an intended error outside development', () => {
    const error = new GraphQLError('The request body is not JSON.', { extensions: { originalError: { name: 'SyntaxError', message: 'at position 3' }, http: { status: 400, spec: true } } });
    const masked = production(error, 'Unexpected error.') as GraphQLError;
    expect(masked.extensions).toEqual({ http: { status: 400, spec: false } });
  });

  it('masks an unexpected error, and an error it cannot even read, as "Unexpected error." (never throws)', () => {
    const unreadable = new Error('x');
    Object.defineProperty(unreadable, 'name', { get: () => { throw new Error('hostile getter'); } });
    for (const error of [new TypeError('at /work/secret.ts:1'), unreadable, undefined, 'a string']) {
      const masked = production(error, 'Unexpected error.') as GraphQLError;
      expect(masked.message).toBe('Unexpected error.');
      expect(JSON.stringify(masked)).not.toMatch(/secret|hostile/);
    }
  });
});
