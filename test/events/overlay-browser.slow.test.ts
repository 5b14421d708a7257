import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { npmStart, type StartedServer } from '../support/npm-start.js';
import { copyProject, type ProjectCopy } from '../support/project-copy.js';
import { describeWithBinary } from '../support/system-binary.js';

/**
 * The overlay as a creator uses it: `npm start` (production defaults, sandbox mode) in a copy of the
 * project, `/overlay` opened in headless Chromium under the headers the server sends (its CSP
 * included), then a signed webhook through the sandbox (`/__sandbox/webhook`): the page shows the
 * newcomer's name, pushed over the event stream it already has open (no request of its own).
 */
interface Supporter {
  id: string;
  name: string;
}

async function sandboxWebhook(sandboxUrl: string, appUrl: string, event: 'members:pledge:create' | 'members:pledge:delete', memberId: string): Promise<void> {
  const answer = await fetch(`${sandboxUrl}/__sandbox/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${appUrl}/membership/webhook`, event, memberId }),
  });
  const body = (await answer.json()) as { status?: number };
  if (answer.status !== 200 || body.status !== 204) throw new Error(`the ${event} webhook was not delivered: ${answer.status} ${JSON.stringify(body)}`);
}

describeWithBinary(CHROMIUM, 'the overlay in headless Chromium, served by npm start', (executablePath) => {
  let copy: ProjectCopy;
  let server: StartedServer;
  let browser: Browser;
  let sandboxUrl: string;
  beforeAll(async () => {
    copy = await copyProject();
    // A stale copy builds first (prestart): minutes on a loaded machine.
    server = await npmStart(copy.dir, { timeoutMs: 300_000 });
    const announced = await server.outputMatching(/sandbox platforms at (http:\/\/127\.0\.0\.1:\d+)/);
    if (announced[1] === undefined) throw new Error(`npm start did not announce the sandbox:\n${server.output()}`);
    sandboxUrl = announced[1];
    browser = await launchChromium(executablePath);
  }, 360_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await copy?.remove();
  });

  it('a signed webhook → the page shows the new supporter over its open event stream, under the CSP, with no foreign request and no error', async () => {
    // A current patron leaves (before the page opens), then comes back while the page watches.
    const pledges = (await (await fetch(`${server.url}/membership/pledges`)).json()) as { users: Supporter[] };
    const newcomer = pledges.users.at(-1)!;
    await sandboxWebhook(sandboxUrl, server.url, 'members:pledge:delete', newcomer.id);

    const page = await browser.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      requested.push(request.url());
      if (new URL(request.url()).origin !== server.url) foreign.push(request.url());
    });
    const loaded = await page.goto(`${server.url}/overlay`);
    expect(loaded?.status()).toBe(200);
    expect(loaded?.headers()['content-security-policy']).toContain("default-src 'none'");
    // The EventSource is open: from here on every JOINED event reaches the page.
    await page.waitForSelector('main[data-state="live"]', { timeout: 10_000 });
    expect(await page.textContent('#name')).not.toBe(newcomer.name);

    const requestedBefore = requested.length;
    await sandboxWebhook(sandboxUrl, server.url, 'members:pledge:create', newcomer.id);
    await page.waitForFunction((name) => document.getElementById('name')?.textContent === name, newcomer.name, { timeout: 10_000, polling: 'raf' });
    expect(await page.textContent('#detail')).toMatch(/^New patron · \d+\.\d{2} a month$/);
    // Pushed over the stream opened before the webhook: the page asked for nothing since (no poll, no reload).
    expect(requested.slice(requestedBefore)).toEqual([]);

    expect(foreign).toEqual([]);
    // A CSP violation is reported on the console: none happened.
    expect(problems).toEqual([]);
  });
});
