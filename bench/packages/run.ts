/**
 * bench/packages: what a downstream app installs and bundles for @channel-graph/client and
 * @channel-graph/oauth2, beside openapi-fetch, graphql-request and ky alone, measured the same way
 * in one run (test/support/package-footprint.ts: packed tarballs installed into scratch projects from
 * the local npm cache, peers left out; consumer snippets bundled with esbuild, minified, gzipped
 * with node:zlib). The budgets are asserted by test/consumer/budgets.slow.test.ts; this prints the
 * table and records it in bench/results/packages.json.
 *
 *   npx tsx bench/packages/run.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FOOTPRINT_HEADER, footprintRows, measureFootprints } from '../../test/support/package-footprint.js';
import { packWorkspacePackages } from '../../test/support/packed-packages.js';
import { formatTable, saveResults } from '../lib/index.js';

const work = await mkdtemp(join(tmpdir(), 'channel-graph-bench-packages-'));
try {
  const footprints = await measureFootprints(work, await packWorkspacePackages(work));
  console.log(formatTable(FOOTPRINT_HEADER, footprintRows(footprints)));
  const saved = await saveResults('packages', {
    footprints: footprints.map(({ name, packages, installedBytes, diskBytes, bundles }) => ({
      name,
      packages,
      installedBytes,
      diskBytes,
      bundles: bundles.map(({ label, minifiedBytes, gzippedBytes }) => ({ label, minifiedBytes, gzippedBytes })),
    })),
  });
  console.log(`saved ${saved}`);
} finally {
  await rm(work, { recursive: true, force: true });
}
