import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OVERLAY_CONTENT_SECURITY_POLICY, OVERLAY_DIR } from '../../src/http/overlay.js';
import { useSandboxApp } from './event-harness.js';

/** GET /overlay: the static page of examples/overlay/, from memory, with its security headers. */
const started = useSandboxApp();

describe('GET /overlay', () => {
  it.each([
    ['/overlay', 'index.html', 'text/html; charset=utf-8'],
    ['/overlay/', 'index.html', 'text/html; charset=utf-8'],
    ['/overlay/overlay.js', 'overlay.js', 'text/javascript; charset=utf-8'],
    ['/overlay/overlay.css', 'overlay.css', 'text/css; charset=utf-8'],
  ])('%s serves examples/overlay/%s as it is (nothing injected, so no secret), with CSP, nosniff and an ETag', async (path, file, contentType) => {
    const answer = await fetch(`${started.url}${path}?platform=membership`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(contentType);
    expect(answer.headers.get('content-security-policy')).toBe(OVERLAY_CONTENT_SECURITY_POLICY);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(Buffer.from(await answer.arrayBuffer()).equals(await readFile(`${OVERLAY_DIR!}/${file}`))).toBe(true);
    const revalidated = await fetch(`${started.url}${path}`, { headers: { 'if-none-match': answer.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
  });

  it('the page loads only same-origin resources and follows GET /events; the policy allows nothing else', async () => {
    // Every directive with every source it allows, as served: one more origin anywhere fails this.
    const served = (await fetch(`${started.url}/overlay`)).headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(served.split(';').map((directive) => directive.trim().split(/\s+/)).map(([name = '', ...sources]) => [name, sources.sort()]));
    expect(directives).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'connect-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
    });
  });

  it('refuses other methods with 405, and any other path under /overlay with 404 (nothing else is read from the disk)', async () => {
    const post = await fetch(`${started.url}/overlay`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    for (const path of ['/overlay/index.html', '/overlay/../package.json', '/overlay/%2e%2e/package.json', '/overlay/overlay.js/']) {
      expect((await fetch(`${started.url}${path}`)).status, path).toBe(404);
    }
    const head = await fetch(`${started.url}/overlay`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
