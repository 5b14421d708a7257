import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { membersConfigSchema } from '../../src/channel/members-config.js';
import { startSandbox } from '../../src/sandbox/index.js';

const example: unknown = JSON.parse(readFileSync(new URL('../../members.example.json', import.meta.url), 'utf8'));

function issues(value: unknown): string[] {
  const result = membersConfigSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('members.json schema', () => {
  it('accepts the sandbox configuration', async () => {
    const sandbox = await startSandbox();
    await sandbox.close();
    expect(issues(sandbox.credentials.members)).toEqual([]);
  });

  it('has a placeholder for every field in members.example.json, and refuses it unchanged, field by field', () => {
    const paths = issues(example).map((line) => line.split(':')[0]);
    expect(paths).toEqual(
      expect.arrayContaining(['key', 'externalChannelId', 'context.client.clientVersion', 'headers.authorization', 'headers.cookie', 'referrer']),
    );
  });

  it('names the field and what is expected', () => {
    const copied = structuredClone(example) as { context: { client: Record<string, unknown> } };
    const valid = {
      ...copied,
      key: 'k',
      externalChannelId: 'UCabcdefghijklmnopqrstuv',
      referrer: 'https://studio.youtube.com/channel/x',
      context: { ...copied.context, client: { ...copied.context.client, clientVersion: '1.2' } },
      headers: { authorization: 'SAPISIDHASH x', cookie: 'a=b' },
    };
    expect(issues(valid)).toEqual([]);
    expect(issues({ ...valid, externalChannelId: 'my channel' })).toEqual(['externalChannelId: the channel id (UC followed by 22 characters)']);
    expect(issues({ ...valid, headers: { authorization: 'x' } })).toEqual(['headers.cookie: the cookie header of the dashboard request']);
    expect(issues({ ...valid, headers: { ...valid.headers, 'bad header': 'x' } })).toEqual(['headers.bad header: an HTTP header name (RFC 9110 token characters)']);
    expect(issues({ ...valid, referrer: 'ftp://x' })).toEqual(['referrer: the referrer URL of the dashboard request (http or https)']);
    expect(issues({ ...valid, context: { client: {} } })[0]).toMatch(/^context\.client\.clientName: /);
    expect(issues({ ...valid, keey: 'typo' })).toEqual([': Unrecognized key: "keey"']);
  });
});
