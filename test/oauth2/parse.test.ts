import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuth2Client, SnakyHash } from '@channel-graph/oauth2';
import { startServer, type TestServer } from './support/servers.js';

/** `/body?type=<content type>&body=<raw body>` answers exactly that body with that content type. */
let server: TestServer;
let client: OAuth2Client;

beforeAll(async () => {
  server = await startServer((request, response) => {
    response.writeHead(200, { 'content-type': request.query.get('type') ?? '' }).end(request.query.get('body') ?? '');
  });
  client = new OAuth2Client('id', 'secret', { site: server.url });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const fetchBody = (type: string, body: string, options: Parameters<OAuth2Client['request']>[2] = {}) =>
  client.request('get', 'body', { ...options, params: { type, body } });

describe('OAuth2Response.parsed', () => {
  it('form-urlencoded → hash-like object', async () => {
    const response = await fetchBody('application/x-www-form-urlencoded', 'access_token=a&expiresIn=3600');
    expect(response.parsed).toBeInstanceOf(SnakyHash);
    expect(response.parsed).toEqual(SnakyHash.build({ access_token: 'a', expires_in: '3600' }));
    expect(response.body).toBe('access_token=a&expiresIn=3600');
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'text/javascript',
    'application/vnd.api+json',
    'application/vdn.api+json',
    'application/vnd.collection+json',
    'application/hal+json',
    'application/problem+json',
  ])('%s object → hash with snake_case keys (recursively)', async (type) => {
    const response = await fetchBody(type, JSON.stringify({ accessToken: 'x', nestedThing: { HTTPStatus: 1, items: [{ someKey: true }] } }));
    const parsed = response.parsed as Record<string, unknown>;
    expect(parsed.access_token).toBe('x');
    expect(parsed.nested_thing).toEqual(SnakyHash.build({ http_status: 1, items: [SnakyHash.build({ some_key: true })] }));
    expect(response.contentType).toBe(type);
  });

  it('JSON array → array', async () => {
    const response = await fetchBody('application/json', '[1,{"aB":2}]');
    expect(Array.isArray(response.parsed)).toBe(true);
    expect(response.parsed).toEqual([1, SnakyHash.build({ a_b: 2 })]);
  });

  it('any other content type → the body string', async () => {
    expect((await fetchBody('text/plain', 'hello=world')).parsed).toBe('hello=world');
    expect((await fetchBody('text/html', '<p>hi</p>')).parsed).toBe('<p>hi</p>');
    expect((await fetchBody('application/json', 'not json')).parsed).toBe('not json');
  });

  it('snaky: false keeps the original keys in a plain object', async () => {
    const response = await fetchBody('application/json', '{"accessToken":"x","Nested":{"innerKey":1}}', { snaky: false });
    expect(response.parsed).toEqual({ accessToken: 'x', Nested: { innerKey: 1 } });
    expect(response.parsed).not.toBeInstanceOf(SnakyHash);
  });

  it('parse override: force json / form / text, or a function', async () => {
    expect((await fetchBody('text/plain', '{"a":1}', { parse: 'json' })).parsed).toEqual(SnakyHash.build({ a: 1 }));
    expect((await fetchBody('text/plain', 'a=1', { parse: 'form' })).parsed).toEqual(SnakyHash.build({ a: '1' }));
    expect((await fetchBody('application/json', '{"a":1}', { parse: 'text' })).parsed).toBe('{"a":1}');
    expect((await fetchBody('text/csv', 'a,b', { parse: (body) => ({ columns: body.split(',') }) })).parsed).toEqual(SnakyHash.build({ columns: ['a', 'b'] }));
  });

  it('a custom hash class: value and hash hooks, dump and load', async () => {
    class UpcaseHash extends SnakyHash {
      static override convertValue(value: unknown): unknown {
        return typeof value === 'string' ? value.toUpperCase() : value;
      }
      static override convertHash(hash: SnakyHash): SnakyHash {
        hash.converted = true;
        return hash;
      }
    }
    const response = await fetchBody('application/json', '{"tokenType":"bearer"}', { hashClass: UpcaseHash });
    expect(response.parsed).toBeInstanceOf(UpcaseHash);
    expect(response.parsed).toMatchObject({ token_type: 'BEARER', converted: true });
    const dumped = UpcaseHash.dump(response.parsed as UpcaseHash);
    const loaded = UpcaseHash.load(dumped);
    expect(loaded).toBeInstanceOf(UpcaseHash);
    expect(loaded.token_type).toBe('BEARER');
    expect(() => UpcaseHash.load('[1]')).toThrow(/serialized object/);
  });

  it('getToken takes a hash class, snaky and parse, and reads a form-encoded token response', async () => {
    const tokenServer = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('accessToken=form-token&expiresIn=60&Extra=1');
    });
    const c = new OAuth2Client('id', 'secret', { site: tokenServer.url });
    try {
      const token = await c.clientCredentials.getToken({}, { parse: 'form' });
      expect(token.token).toBe('form-token');
      expect(token.expiresIn).toBe(60);
      expect(token.params).toEqual({ extra: '1' });
      const raw = await c.clientCredentials.getToken({}, { parse: 'form', snaky: false });
      expect(raw.token).toBe('form-token'); // found through the accessToken key
      expect(raw.params).toEqual({ expiresIn: '60', Extra: '1' });
    } finally {
      await c.close();
      await tokenServer.close();
    }
  });
});
