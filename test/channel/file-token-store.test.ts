/**
 * FileTokenStore (src/channel/file-token-store.ts) over src/lib/atomic-file.ts: what an interrupted save
 * left behind is removed by recover() (which the keeper runs before its first load), and the token read is the last complete one.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/channel/file-token-store.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'token-store-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

describe('FileTokenStore', () => {
  it('recover() removes the torn temporary file of a save killed during its write, and the saved token is read', async () => {
    const path = join(directory, 'membership-token.json');
    await new FileTokenStore(path).save({ access_token: 'a1', refresh_token: 'r1' });
    await writeFile(`${path}.4194305.0123456789ab.tmp`, '{"access_token":"a2","refr');
    const store = new FileTokenStore(path);
    await store.recover();
    expect(await store.load()).toMatchObject({ access_token: 'a1', refresh_token: 'r1' });
    expect(await readdir(directory)).toEqual(['membership-token.json']);
  });
});
