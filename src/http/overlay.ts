/**
 * `/overlay`: the stream overlay of examples/overlay/ (a static page that follows GET /events and
 * shows the newest supporter), served by the app itself so that a creator points their streaming
 * tool at one URL. The files are read once, at start, into memory: a fixed set of three, so the
 * route costs no disk access and serves nothing else from the disk, whatever the path asks for.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Compression } from '../lib/compression.js';
import { TaggedBody } from '../lib/tagged-body.js';
import { problem, sendProblem } from '../lib/problem.js';

/** examples/overlay at the package root: two levels up from src/http/, three from dist/src/http/. */
export const OVERLAY_DIR = [new URL('../../examples/overlay', import.meta.url), new URL('../../../examples/overlay', import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, 'index.html')));

/** Path → file of the overlay directory and its media type. */
const FILES: ReadonlyArray<readonly [path: string, file: string, contentType: string]> = [
  ['/overlay', 'index.html', 'text/html; charset=utf-8'],
  ['/overlay/', 'index.html', 'text/html; charset=utf-8'],
  ['/overlay/overlay.js', 'overlay.js', 'text/javascript; charset=utf-8'],
  ['/overlay/overlay.css', 'overlay.css', 'text/css; charset=utf-8'],
];

/**
 * The page runs only its own script and stylesheet and talks only to this origin (GET /events):
 * injected markup (a supporter's name is platform data) could neither run nor send anything.
 */
export const OVERLAY_CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

const HEADERS = {
  'content-security-policy': OVERLAY_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export type OverlayHandler = ((request: IncomingMessage, response: ServerResponse) => boolean) & {
  /** The paths it serves (route labels of the request metrics). */
  readonly paths: ReadonlySet<string>;
};

export interface OverlayHandlerOptions {
  /** The overlay's files; default OVERLAY_DIR. */
  dir?: string | undefined;
  /** How the files are compressed (each once per coding); default never. */
  compression?: Compression;
}

/**
 * A request listener for the overlay's paths that returns false (and does nothing) for any other
 * path. Without the directory (a package installed without examples) the paths are not served.
 */
export function createOverlayHandler(options: OverlayHandlerOptions = {}): OverlayHandler {
  const { dir = OVERLAY_DIR, compression } = options;
  const bodies = new Map<string, TaggedBody>();
  // Revalidated at every load (a 304 while unchanged): an edited page shows on the next reload.
  const fields = [...Object.entries(HEADERS), ['cache-control', 'no-cache']] as const;
  if (dir !== undefined) for (const [path, file, contentType] of FILES) bodies.set(path, new TaggedBody(readFileSync(join(dir, file)), { fields, contentType, compression }));
  const handler = (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    const body = bodies.get(pathname);
    if (body === undefined) return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendProblem(response, problem(405, `${request.method ?? ''} is not allowed on ${pathname}; allowed: GET, HEAD`, pathname), { allow: 'GET, HEAD' });
      return true;
    }
    body.send(request, response);
    return true;
  };
  return Object.assign(handler, { paths: new Set(bodies.keys()) });
}
