/**
 * The oracle of the property-based tests can fail: each answer the product forbids is refused.
 */
import { describe, expect, it } from 'vitest';
import { expectSafeAnswer, type RawAnswer } from './hostile-http.js';

const json = (status: number, body: unknown, contentType = 'application/json'): RawAnswer => ({ status, headers: { 'content-type': contentType }, body: JSON.stringify(body) });

describe('expectSafeAnswer', () => {
  it('passes answers that say what was wrong', () => {
    expectSafeAnswer(json(400, { errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.' }] }), 'graphql', 'graphql 400');
    expectSafeAnswer(json(200, { data: { stats: null }, errors: [{ message: 'upstream unavailable' }] }), 'graphql', 'partial');
    expectSafeAnswer(json(400, { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'query parameter "sort" must be…' }, 'application/problem+json'), 'problem', 'problem 400');
    expectSafeAnswer({ status: 405, headers: {}, body: '' }, 'problem', 'HEAD', 'HEAD');
    const multipart = '---\r\nContent-Type: application/json\r\n\r\n{"errors":[{"message":"Bad"}]}\r\n-----\r\n';
    expectSafeAnswer({ status: 400, headers: { 'content-type': 'multipart/mixed; boundary="-"' }, body: multipart }, 'graphql', 'multipart');
  });

  it.each([
    ['a 500', json(500, { errors: [{ message: 'Unexpected error.' }] }), 'graphql'],
    ['a 503', json(503, { detail: 'upstream' }, 'application/problem+json'), 'problem'],
    ['a stack frame', json(400, { errors: [{ message: 'boom\n    at parse (index.js:1:2)' }] }), 'graphql'],
    ['an absolute path', json(400, { errors: [{ message: 'cannot open /work/app/data.json' }] }), 'graphql'],
    ['a source location', json(400, { detail: 'failed in rest-handler.ts:42' }, 'application/problem+json'), 'problem'],
    ['node_modules', json(400, { detail: 'from node_modules/yoga' }, 'application/problem+json'), 'problem'],
    ['an empty error body', { status: 431, headers: { connection: 'close' }, body: '' }, 'graphql'],
    ['an error without a message', json(400, { errors: [{ message: '' }] }), 'graphql'],
    ['a problem without a detail', json(400, { type: 'about:blank', title: 'Bad Request', status: 400 }, 'application/problem+json'), 'problem'],
    ['a REST error that is not problem+json', json(400, { detail: 'x' }), 'problem'],
    ['a path in a header', { status: 200, headers: { 'x-debug': '/work/wt/src/app.ts' }, body: '{}' }, 'problem'],
  ] as const)('refuses %s', (_name, answer, kind) => {
    expect(() => expectSafeAnswer(answer, kind, 'example')).toThrow();
  });
});
