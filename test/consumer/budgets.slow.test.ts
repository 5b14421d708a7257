/**
 * The packages' budgets, as a downstream app meets them: the packed tarballs installed into scratch
 * projects from the local npm cache, their installed packages and bytes counted (peers left out),
 * consumer snippets bundled with esbuild and gzipped (test/support/package-footprint.ts, shared with
 * bench/packages, which records the figures). openapi-fetch, graphql-request and ky alone are
 * measured the same way in the same run, and the table printed.
 *
 * | package               | installed packages | installed size | min+gzip of a consumer bundle |
 * | @channel-graph/client | ≤ 5                | ≤ 2 MB         | REST call ≤ 8 KB; one GraphQL operation with fetch ≤ 4 KB + the document, no graphql-js |
 * | @channel-graph/oauth2 | ≤ 3                | ≤ 1 MB, on the disk too (`du`) | getToken (client credentials) ≤ 15 KB |
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/lib/table.js';
import { FOOTPRINT_HEADER, footprintRows, measureFootprints, type Footprint } from '../support/package-footprint.js';
import { packWorkspacePackages } from '../support/packed-packages.js';

const KB = 1024;
const MB = 2 ** 20;

let work: string;
let footprints: Footprint[];

function footprint(name: string): Footprint {
  const found = footprints.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`${name} was not measured`);
  return found;
}

function bundle(name: string, label: string) {
  const found = footprint(name).bundles.find((candidate) => candidate.label === label);
  if (found === undefined) throw new Error(`no bundle "${label}" of ${name}`);
  return found;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'channel-graph-budgets-'));
  footprints = await measureFootprints(work, await packWorkspacePackages(work));
  console.info(formatTable(FOOTPRINT_HEADER, footprintRows(footprints)));
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('@channel-graph/client', () => {
  it('installs at most 5 packages, at most 2 MB, none of the server', () => {
    const { packages, installedBytes } = footprint('@channel-graph/client');
    expect(packages).toContain('@channel-graph/client');
    expect(packages.length).toBeLessThanOrEqual(5);
    expect(installedBytes).toBeLessThanOrEqual(2 * MB);
    expect(packages.filter((name) => /yoga|ioredis|pino|prom-client|^ws$|graphql-jit|undici/.test(name))).toEqual([]);
  });

  it('a REST call bundles to at most 8 KB min+gzip', () => {
    expect(bundle('@channel-graph/client', 'REST call').gzippedBytes).toBeLessThanOrEqual(8 * KB);
  });

  it('one GraphQL operation sent with fetch: at most 4 KB min+gzip beyond the document, and no graphql-js', () => {
    const operation = bundle('@channel-graph/client', 'GraphQL operation with fetch');
    const document = bundle('@channel-graph/client', 'the document alone');
    expect(operation.gzippedBytes).toBeLessThanOrEqual(4 * KB + document.gzippedBytes);
    expect(operation.inputs.filter((input) => input.includes('node_modules/graphql/'))).toEqual([]);
  });
});

describe('@channel-graph/oauth2', () => {
  it('installs at most 3 packages, at most 1 MB of files and of disk: no JWT library, no undici', () => {
    const { packages, installedBytes, diskBytes } = footprint('@channel-graph/oauth2');
    expect(packages).toContain('@channel-graph/oauth2');
    expect(packages.length).toBeLessThanOrEqual(3);
    expect(installedBytes).toBeLessThanOrEqual(1 * MB);
    expect(diskBytes).toBeLessThanOrEqual(1 * MB);
    expect(packages.filter((name) => name === 'jose' || name === 'undici')).toEqual([]);
  });

  it('getToken with client credentials bundles to at most 15 KB min+gzip', () => {
    expect(bundle('@channel-graph/oauth2', 'getToken, client credentials').gzippedBytes).toBeLessThanOrEqual(15 * KB);
  });
});

it('measures openapi-fetch, graphql-request and ky alone the same way', () => {
  for (const name of ['openapi-fetch', 'graphql-request', 'ky']) {
    const measured = footprint(name);
    expect(measured.packages).toContain(name);
    expect(measured.bundles.every((each) => each.gzippedBytes > 0)).toBe(true);
  }
});
