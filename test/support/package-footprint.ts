/**
 * What a downstream app pays for @channel-graph/client and @channel-graph/oauth2, beside
 * openapi-fetch, graphql-request and ky alone, all measured the same way in one run: each installed
 * alone into a scratch project (the workspace packages from their packed tarballs), its installed
 * packages and bytes counted (peer dependencies left out), and consumer snippets bundled with
 * esbuild (minified ESM) and gzipped with node:zlib (level 9). Used by the budget test
 * (test/consumer/budgets.slow.test.ts) and the bench that records the figures (bench/packages).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { installedFootprint, installScratchProject, type PackedPackage, type WorkspacePackage } from './packed-packages.js';
import { projectRoot } from './project-copy.js';

export interface Snippet {
  label: string;
  /** An ES module importing the package as an app does. */
  code: string;
  platform: 'browser' | 'node';
}

export interface Bundle {
  label: string;
  minifiedBytes: number;
  gzippedBytes: number;
  /** The files esbuild put in the bundle (paths relative to the scratch project). */
  inputs: string[];
}

export interface Footprint {
  name: string;
  /** The installed packages (itself and what it brings; peers left out). */
  packages: string[];
  installedBytes: number;
  /** The same on the disk (allocated blocks, as `du` counts them). */
  diskBytes: number;
  bundles: Bundle[];
}

/** The text of one shipped operation, from the persisted-documents manifest. */
async function operationText(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(projectRoot, 'generated', 'client', 'persisted-documents.json'), 'utf8')) as Record<string, string>;
  const text = Object.values(manifest).find((document) => document.includes(`query ${name}`));
  if (text === undefined) throw new Error(`no operation ${name} in the manifest`);
  return text;
}

/** What is measured: each package, how it is installed, the snippets bundled. */
export async function footprintSubjects(packed: Record<WorkspacePackage, PackedPackage>): Promise<Array<{ name: string; specs: string[]; snippets: Snippet[] }>> {
  const supporters = JSON.stringify(await operationText('Supporters'));
  return [
    {
      name: '@channel-graph/client',
      specs: [packed.client.tarball],
      snippets: [
        {
          label: 'REST call',
          platform: 'browser',
          code: `import { createChannelApiClient } from '@channel-graph/client/rest';
const { data, error } = await createChannelApiClient(location.origin).GET('/video/stats');
console.log(data?.subscribers, error);`,
        },
        {
          label: 'GraphQL operation with fetch',
          platform: 'browser',
          code: `import { request, SupportersDocument } from '@channel-graph/client/graphql';
const { supporters } = await request(location.origin + '/graphql', SupportersDocument, { orderBy: 'AMOUNT' });
console.log(supporters.length);`,
        },
        {
          label: 'the document alone',
          platform: 'browser',
          code: `import { SupportersDocument } from '@channel-graph/client/graphql';
console.log(SupportersDocument);`,
        },
      ],
    },
    {
      name: '@channel-graph/oauth2',
      specs: [packed.oauth2.tarball],
      snippets: [
        {
          label: 'getToken, client credentials',
          platform: 'node',
          code: `import { OAuth2Client } from '@channel-graph/oauth2';
const client = new OAuth2Client('id', 'secret', { site: process.env.SITE });
console.log((await client.clientCredentials.getToken()).token);`,
        },
      ],
    },
    {
      name: 'openapi-fetch',
      specs: ['openapi-fetch@0.17.0'],
      snippets: [
        {
          label: 'REST call',
          platform: 'browser',
          code: `import createClient from 'openapi-fetch';
const { data, error } = await createClient({ baseUrl: location.origin }).GET('/video/stats');
console.log(data?.subscribers, error);`,
        },
      ],
    },
    {
      name: 'graphql-request',
      specs: ['graphql-request@7.4.0'],
      snippets: [
        {
          label: 'GraphQL operation with fetch',
          platform: 'browser',
          code: `import { request } from 'graphql-request';
const { supporters } = await request(location.origin + '/graphql', ${supporters}, { orderBy: 'AMOUNT' });
console.log(supporters.length);`,
        },
      ],
    },
    {
      name: 'ky',
      specs: ['ky@1.14.3'],
      snippets: [
        {
          label: 'getToken, client credentials',
          platform: 'node',
          code: `import ky from 'ky';
const token = await ky.post(process.env.SITE + '/oauth/token', { body: new URLSearchParams({ grant_type: 'client_credentials' }), headers: { authorization: 'Basic ' + btoa('id:secret') } }).json();
console.log(token.access_token);`,
        },
      ],
    },
  ];
}

/** Bundles `snippet` against the scratch project `dir` (minified ESM) and gzips it. */
export async function bundleSnippet(dir: string, snippet: Snippet): Promise<Bundle> {
  const result = await build({
    stdin: { contents: snippet.code, resolveDir: dir, loader: 'js', sourcefile: 'snippet.js' },
    absWorkingDir: dir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: snippet.platform,
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${snippet.label}`);
  return {
    label: snippet.label,
    minifiedBytes: output.contents.byteLength,
    gzippedBytes: gzipSync(output.contents, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** Installs and measures every subject, each in its own scratch project under `work`. */
export async function measureFootprints(work: string, packed: Record<WorkspacePackage, PackedPackage>): Promise<Footprint[]> {
  const footprints: Footprint[] = [];
  for (const subject of await footprintSubjects(packed)) {
    const dir = join(work, subject.name.replace(/\W+/g, '-'));
    await installScratchProject(dir, subject.specs);
    const installed = await installedFootprint(dir);
    const bundles: Bundle[] = [];
    for (const snippet of subject.snippets) bundles.push(await bundleSnippet(dir, snippet));
    footprints.push({ name: subject.name, packages: installed.packages, installedBytes: installed.bytes, diskBytes: installed.diskBytes, bundles });
  }
  return footprints;
}

/** One line per bundle: package, installed packages and size, the snippet and its min / min+gzip size. */
export function footprintRows(footprints: readonly Footprint[]): string[][] {
  const kb = (bytes: number): string => (bytes / 1024).toFixed(1);
  return footprints.flatMap((footprint) =>
    footprint.bundles.map((bundle) => [
      footprint.name,
      String(footprint.packages.length),
      (footprint.installedBytes / 2 ** 20).toFixed(2),
      (footprint.diskBytes / 2 ** 20).toFixed(2),
      bundle.label,
      kb(bundle.minifiedBytes),
      kb(bundle.gzippedBytes),
    ]),
  );
}

export const FOOTPRINT_HEADER = ['package', 'installed packages', 'installed MB', 'on the disk MB', 'consumer bundle', 'min KB', 'min+gzip KB'];
