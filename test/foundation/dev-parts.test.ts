/**
 * Parts of `npm run dev` that need no running loop: the lock that keeps a second one out of a tree
 * (and takes over the lock of one that is gone), and the hint that names a missing resolver from the
 * compiler's words.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDevLock } from '../../scripts/dev-lock.js';
import { missingResolverHint } from '../../scripts/missing-resolvers.js';

describe('the dev lock', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dev-lock-'));
    path = join(dir, '.dev-loop', 'dev.lock');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is taken by the first, refused to the second with the owner, and free again once released', async () => {
    const first = acquireDevLock(path);
    expect(first.acquired).toBe(true);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    const second = acquireDevLock(path);
    expect(second).toEqual({ acquired: false, owner: { pid: process.pid, since: expect.any(String) } });
    if (first.acquired) first.release();
    expect(acquireDevLock(path).acquired).toBe(true);
  });

  it('takes over the lock of a process that is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid ?? 0;
    await new Promise((resolve) => gone.once('exit', resolve));
    acquireDevLock(path); // creates the directory
    await writeFile(path, JSON.stringify({ pid, since: '2026-01-01T00:00:00.000Z' }));
    const lock = acquireDevLock(path);
    expect(lock.acquired).toBe(true);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('takes over an unreadable lock (cut short when written)', async () => {
    acquireDevLock(path);
    await writeFile(path, '{"pid":');
    expect(acquireDevLock(path).acquired).toBe(true);
  });
});

describe('missingResolverHint', () => {
  it('names the field and the place of one missing resolver (TS2741)', () => {
    const line =
      "examples/starwars/resolvers.ts(31,3): error TS2741: Property 'heightInMeters' is missing in type '{ id: PropertyResolver<\"id\">; homePlanet: PropertyResolver<...>; }' but required in type 'HumanResolvers<StarWarsContext, HumanRecord>'.";
    expect(missingResolverHint(line)).toBe('no resolver for Human.heightInMeters: add it to the Human resolvers at examples/starwars/resolvers.ts:31:3');
  });

  it('names several (TS2739) and a long list (TS2740)', () => {
    const several = "src/graphql/schema/resolvers.ts(153,5): error TS2739: Type '{ supporters: () => never[]; }' is missing the following properties from type 'QueryResolvers<ChannelGraphContext, {}>': probe, other";
    expect(missingResolverHint(several)).toBe('no resolver for Query.probe, Query.other: add them to the Query resolvers at src/graphql/schema/resolvers.ts:153:5');
    const many = "a.ts(1,1): error TS2740: Type '{}' is missing the following properties from type 'TierResolvers<Ctx, Tier>': a, b, c, d, and 2 more.";
    expect(missingResolverHint(many)).toBe('no resolver for Tier.a, Tier.b, Tier.c, Tier.d, 2 more: add them to the Tier resolvers at a.ts:1:1');
  });

  it('says nothing of other errors', () => {
    expect(missingResolverHint("src/a.ts(88,14): error TS2322: Type 'string' is not assignable to type 'number'.")).toBeUndefined();
    expect(missingResolverHint("src/a.ts(1,1): error TS2741: Property 'x' is missing in type '{}' but required in type 'Options'.")).toBeUndefined();
    expect(missingResolverHint('12:24:46 PM - Found 0 errors. Watching for file changes.')).toBeUndefined();
  });
});
