import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

/**
 * GraphiQL as separate, cacheable files instead of one ~9 MB inline page. The built files of
 * @graphql-yoga/render-graphiql (its script, stylesheet, three Monaco workers and favicon) are served
 * under `<endpoint>/graphiql/<name>.<hash>.<ext>`: the content hash in the name lets them be cached
 * for a year as immutable, and a new release changes the URL. Each file is compressed once, at
 * start-up and in the background (gzip, and brotli at quality 6: ~1 s of CPU off the event loop for
 * 8.8 MB → 1.9 MB); a request gets the smallest encoding its Accept-Encoding allows. The page itself
 * is ~1 KB, references the files, and loads nothing from anywhere else.
 */

type Encoding = 'br' | 'gzip' | 'identity';

interface Asset {
  contentType: string;
  bodies: Partial<Record<Encoding, Buffer>> & { identity: Buffer };
}

interface Assets {
  byPath: Map<string, Promise<Asset>>;
  /** URL paths of the files the page references. */
  urls: { script: string; stylesheet: string; favicon: string; workers: Record<'editorWorkerService' | 'json' | 'graphql', string> };
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

const compressGzip = promisify(gzip);
const compressBrotli = promisify(brotliCompress);

/** Compresses once; an encoding that does not make the file smaller is not offered. */
async function precompress(contentType: string, identity: Buffer): Promise<Asset> {
  const [br, gz] = await Promise.all([
    compressBrotli(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 6, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    compressGzip(identity),
  ]);
  return {
    contentType,
    bodies: { identity, ...(br.length < identity.length && { br }), ...(gz.length < identity.length && { gzip: gz }) },
  };
}

/** The codings an Accept-Encoding allows (RFC 9110 §12.5.3), best first; identity always last. */
export function acceptedEncodings(header: string | null): Encoding[] {
  const allowed = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [coding = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    allowed.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  const wildcard = allowed.get('*');
  const accepts = (coding: string): boolean => (allowed.get(coding) ?? wildcard ?? 0) > 0;
  return [...(['br', 'gzip'] as const).filter(accepts), 'identity'];
}

async function loadAssets(base: string): Promise<Assets> {
  const files = await import('@graphql-yoga/render-graphiql/graphiql');
  const byPath = new Map<string, Promise<Asset>>();
  const add = (name: string, extension: string, contentType: string, content: Buffer): string => {
    const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
    const path = `${base}/${name}.${hash}.${extension}`;
    byPath.set(path, precompress(contentType, content));
    return path;
  };
  const javascript = 'text/javascript; charset=utf-8';
  const favicon = Buffer.from(files.favicon.slice(files.favicon.indexOf(',') + 1), 'base64');
  return {
    byPath,
    urls: {
      script: add('graphiql', 'js', javascript, Buffer.from(files.js)),
      stylesheet: add('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(files.css)),
      favicon: add('favicon', 'ico', 'image/x-icon', favicon),
      workers: {
        editorWorkerService: add('editor.worker', 'js', javascript, Buffer.from(files.editorWorkerService)),
        json: add('json.worker', 'js', javascript, Buffer.from(files.jsonWorker)),
        graphql: add('graphql.worker', 'js', javascript, Buffer.from(files.graphqlWorker)),
      },
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

/** Starts loading and compressing the files now; `endpoint` is the GraphQL endpoint (e.g. /graphql). */
export function createGraphiQLAssets(endpoint: string): GraphiQLAssets {
  const base = `${endpoint}/graphiql`;
  const loading = loadAssets(base);
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
        return loading.then(async ({ byPath }) => {
          const pending = byPath.get(path);
          if (pending === undefined) {
            payload.endResponse(new fetchAPI.Response(null, { status: 404 }));
            return;
          }
          const asset = await pending;
          const encoding = acceptedEncodings(request.headers.get('accept-encoding')).find((coding) => asset.bodies[coding] !== undefined) ?? 'identity';
          const body = asset.bodies[encoding] ?? asset.bodies.identity;
          payload.endResponse(
            // Buffers from Buffer.from and zlib never share memory, as BodyInit requires.
            new fetchAPI.Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
              headers: {
                'content-type': asset.contentType,
                'content-length': String(body.length),
                'cache-control': IMMUTABLE,
                vary: 'Accept-Encoding',
                ...(encoding !== 'identity' && { 'content-encoding': encoding }),
              },
            }),
          );
        });
      },
    },
  };
}
