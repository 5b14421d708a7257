import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { negotiateContentCoding, type Coding, type ContentCoding } from '../../lib/content-coding.js';

/**
 * GraphiQL as separate, cacheable files instead of one ~9 MB inline page. The built files of
 * @graphql-yoga/render-graphiql (its script, stylesheet, three Monaco workers and favicon) are served
 * under `<endpoint>/graphiql/<name>.<hash>.<ext>`: the content hash in the name lets them be cached
 * for a year as immutable, and a new release changes the URL. Each file is compressed once, at
 * start-up (gzip, and brotli at quality 6: 8.8 MB → 1.9 MB); a request gets the coding its
 * Accept-Encoding prefers (src/lib/content-coding.ts) among those the server offers (none with
 * COMPRESSION=false). The page itself is under 2 KB, references the files, and loads nothing
 * from anywhere else.
 *
 * The package exports the files as JavaScript strings: loaded in the server, its 9 MB module stays in
 * the heap for good (~70 MB of RSS with the compression). So a worker thread loads, hashes and
 * compresses them, hands over the bytes (~13 MB) and exits, taking the module and the compressors'
 * memory with it; the ~1.5 s of CPU stays off the event loop.
 */

interface Asset {
  contentType: string;
  bodies: Partial<Record<Coding, Uint8Array<ArrayBuffer>>> & { identity: Uint8Array<ArrayBuffer> };
  /** The codings it is offered in: those it was compressed in that made it smaller, and that the server offers. */
  codings: ContentCoding[];
}

interface Assets {
  byPath: Map<string, Asset>;
  /** URL paths of the files the page references. */
  urls: { script: string; stylesheet: string; favicon: string; workers: Record<'editorWorkerService' | 'json' | 'graphql', string> };
}

/** What the worker sends back for each export of the package: the bytes, their hash, compressed. */
interface BuiltFile {
  exportName: string;
  hash: string;
  identity: Uint8Array<ArrayBuffer>;
  br: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The worker (CommonJS, evaluated): a data: URL (the favicon) is decoded, any other export is UTF-8 text. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { brotliCompressSync, gzipSync, constants } = require('node:zlib');
const files = require(workerData.modulePath);
parentPort.postMessage(workerData.exportNames.map((exportName) => {
  const text = files[exportName];
  const identity = text.startsWith('data:') ? Buffer.from(text.slice(text.indexOf(',') + 1), 'base64') : Buffer.from(text);
  return {
    exportName,
    hash: createHash('sha256').update(identity).digest('hex').slice(0, 12),
    identity,
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzip: gzipSync(identity),
  };
}));
`;

/** The package's exports: file name, extension and media type of each. */
const FILES = {
  js: ['graphiql', 'js', 'text/javascript; charset=utf-8'],
  css: ['graphiql', 'css', 'text/css; charset=utf-8'],
  favicon: ['favicon', 'ico', 'image/x-icon'],
  editorWorkerService: ['editor.worker', 'js', 'text/javascript; charset=utf-8'],
  jsonWorker: ['json.worker', 'js', 'text/javascript; charset=utf-8'],
  graphqlWorker: ['graphql.worker', 'js', 'text/javascript; charset=utf-8'],
} as const;

type ExportName = keyof typeof FILES;

function buildInWorker(): { worker: Worker; built: Promise<BuiltFile[]> } {
  const modulePath = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql/graphiql');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, exportNames: Object.keys(FILES) } });
  const built = new Promise<BuiltFile[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the GraphiQL assets worker exited (${code}) before answering`)));
  });
  return { worker, built };
}

/** An encoding that does not make the file smaller, or that the server does not offer, is not offered. */
function assetOf(file: BuiltFile, contentType: string, offered: readonly ContentCoding[]): Asset {
  const { identity } = file;
  const bodies: Asset['bodies'] = { identity };
  for (const coding of ['br', 'gzip'] as const) if (offered.includes(coding) && file[coding].length < identity.length) bodies[coding] = file[coding];
  return { contentType, bodies, codings: offered.filter((coding) => bodies[coding] !== undefined) };
}

async function collectAssets(base: string, built: Promise<BuiltFile[]>, offered: readonly ContentCoding[]): Promise<Assets> {
  const byPath = new Map<string, Asset>();
  const paths = new Map<ExportName, string>();
  for (const file of await built) {
    const [name, extension, contentType] = FILES[file.exportName as ExportName];
    const path = `${base}/${name}.${file.hash}.${extension}`;
    byPath.set(path, assetOf(file, contentType, offered));
    paths.set(file.exportName as ExportName, path);
  }
  const path = (exportName: ExportName): string => paths.get(exportName) ?? '';
  return {
    byPath,
    urls: {
      script: path('js'),
      stylesheet: path('css'),
      favicon: path('favicon'),
      workers: { editorWorkerService: path('editorWorkerService'), json: path('jsonWorker'), graphql: path('graphqlWorker') },
    },
  };
}

/** JSON that is safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function renderPage({ urls }: Assets, options: GraphiQLOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
<link rel="icon" href="${urls.favicon}">
<link rel="stylesheet" href="${urls.stylesheet}">
</head>
<body id="body" class="no-focus-outline">
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script>
const workerUrls = ${scriptJson(urls.workers)};
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workerUrls[label] };
</script>
<script src="${urls.script}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${scriptJson(options)});</script>
</body>
</html>
`;
}

export interface GraphiQLAssets {
  /** Serves the files; register on the yoga instance. */
  plugin: Plugin;
  /** yoga's `renderGraphiQL`: the page that loads the files. */
  render: (options?: GraphiQLOptions) => Promise<string>;
}

export interface GraphiQLAssetsOptions {
  /** The content codings the server offers (compression.ts; none with COMPRESSION=false): br and gzip by default. */
  codings?: readonly ContentCoding[];
}

/**
 * Starts building the files now, in a worker; `endpoint` is the GraphQL endpoint (e.g. /graphql).
 * Requests for the page or a file wait for it (~2 s after start-up).
 */
export function createGraphiQLAssets(endpoint: string, options: GraphiQLAssetsOptions = {}): GraphiQLAssets {
  const base = `${endpoint}/graphiql`;
  const { worker, built } = buildInWorker();
  // The worker must not keep a process alive that is otherwise done.
  worker.unref();
  const offered = options.codings ?? ['br', 'gzip'];
  const loading = collectAssets(base, built, offered);
  // Unhandled until the first request awaits it: a failure to load must not crash the process first.
  loading.catch(() => undefined);
  return {
    render: async (options = {}) => renderPage(await loading, options),
    plugin: {
      onRequest(payload) {
        const { request, fetchAPI } = payload;
        const { url } = request;
        const pathStart = url.indexOf('/', url.indexOf('//') + 2);
        if (pathStart === -1 || !url.startsWith(`${base}/`, pathStart)) return undefined;
        const queryStart = url.indexOf('?', pathStart);
        const path = url.slice(pathStart, queryStart === -1 ? undefined : queryStart);
        if (request.method !== 'GET' && request.method !== 'HEAD') {
          payload.endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
          return undefined;
        }
        return loading.then(({ byPath }) => {
          const asset = byPath.get(path);
          if (asset === undefined) {
            payload.endResponse(new fetchAPI.Response(null, { status: 404 }));
            return;
          }
          const encoding = negotiateContentCoding(request.headers.get('accept-encoding'), asset.codings);
          const body = asset.bodies[encoding] ?? asset.bodies.identity;
          payload.endResponse(
            new fetchAPI.Response(request.method === 'HEAD' ? null : body, {
              headers: {
                'content-type': asset.contentType,
                'content-length': String(body.length),
                'cache-control': IMMUTABLE,
                ...(offered.length > 0 && { vary: 'Accept-Encoding' }),
                ...(encoding !== 'identity' && { 'content-encoding': encoding }),
              },
            }),
          );
        });
      },
      onDispose: async () => {
        await worker.terminate();
      },
    },
  };
}
