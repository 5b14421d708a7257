/**
 * FileTokenStore (src/oauth2/token-store.ts) over src/lib/atomic-file.ts: what an interrupted save
 * left behind is removed when the store loads, and the token read is the last complete one.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/oauth2/index.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'token-store-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

describe('FileTokenStore', () => {
  it('removes the temporary file of a save killed before its rename when it loads, and reads the saved token', async () => {
    const path = join(directory, 'membership-token.json');
    await new FileTokenStore(path).save({ access_token: 'a1', refresh_token: 'r1' });
    await writeFile(`${path}.4194305.0123456789ab.tmp`, '{"access_token":"a2","refr');
    expect(await new FileTokenStore(path).load()).toMatchObject({ access_token: 'a1', refresh_token: 'r1' });
    expect(await readdir(directory)).toEqual(['membership-token.json']);
  });
});
