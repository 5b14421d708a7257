import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OAuth2Client } from '@channel-graph/oauth2';
import { signJwt } from '@channel-graph/oauth2/assertion';
import { json, type Recorded, startServer, type TestServer } from './support/servers.js';

/**
 * The wire requests the library sends conform to openapi/oauth2.yaml, the contract its types come
 * from (that the types do: contract-types.ts, checked by the typecheck).
 */
const contract = parse(readFileSync(new URL('../../openapi/oauth2.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...contract, $id: 'oauth2.yaml' });
const validate = (schema: string, value: unknown): string => {
  const check = ajv.getSchema(`oauth2.yaml#/components/schemas/${schema}`);
  if (check === undefined) throw new Error(`no schema ${schema}`);
  return check(value) ? 'valid' : ajv.errorsText(check.errors);
};

let server: TestServer;
let client: OAuth2Client;
beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.path === '/oauth/revoke') response.writeHead(200).end();
    else json(response, 200, { access_token: 'a', token_type: 'Bearer', expires_in: 60, refresh_token: 'r', id_token: 'x.y.z', extension: 1 });
  });
  client = new OAuth2Client('id', 'secret', { site: server.url, redirectUri: 'https://app.test/cb', authScheme: 'request_body', signJwt });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
const lastForm = (): Record<string, string> => Object.fromEntries((server.requests.at(-1) as Recorded).form);

describe('contract conformance (openapi/oauth2.yaml)', () => {
  it('every grant the library sends is a valid TokenRequest, and the contract lists exactly those grants', async () => {
    const sent = new Set<string>();
    const send = async (call: () => Promise<unknown>) => {
      await call();
      const form = lastForm();
      expect(validate('TokenRequest', form)).toBe('valid');
      sent.add(form.grant_type ?? '');
    };
    await send(() => client.authCode.getToken('code', { codeVerifier: 'v' }));
    await send(() => client.password.getToken('u', 'p', { scope: 's' }));
    await send(() => client.clientCredentials.getToken({ scope: 's' }));
    await send(async () => (await client.clientCredentials.getToken()).refresh());
    await send(() => client.assertion.getToken({ claims: { iss: 'i' }, algorithm: 'HS256', key: 'k'.repeat(32) }));
    const schemas = (contract.components as { schemas: Record<string, { properties?: { grant_type?: { const?: string } } }> }).schemas;
    const listed = Object.values(schemas).flatMap((schema) => schema.properties?.grant_type?.const ?? []);
    expect([...sent].sort()).toEqual([...listed].sort());
  });

  it('revocation requests are valid RevocationRequests; the test server answer is a valid TokenResponse', async () => {
    const token = await client.clientCredentials.getToken();
    await token.revoke({ tokenTypeHint: 'refresh_token' });
    expect(validate('RevocationRequest', lastForm())).toBe('valid');
    expect(validate('TokenResponse', { access_token: 'a', token_type: 'Bearer', id_token: 'x', extension: 1 })).toBe('valid');
    expect(validate('TokenErrorResponse', { error: 'invalid_grant', error_description: 'd' })).toBe('valid');
  });
});
