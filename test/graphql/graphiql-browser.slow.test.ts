import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { describeWithBinary } from '../support/system-binary.js';
import { query, startGraphApp } from './graph-harness.js';

/**
 * GraphiQL in a real browser (headless Debian Chromium driven by playwright-core): the page served
 * on GET /graphql loads with no network beyond our server, runs a query typed into its editor, and
 * shows the result. The screenshot is kept under test-artifacts/.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const SCREENSHOT = `${ARTIFACTS}graphiql.png`;

describeWithBinary(CHROMIUM, 'GraphiQL in headless Chromium', (executablePath) => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  let browser: Browser;
  beforeAll(async () => {
    started = await startGraphApp({ graphiql: true });
    browser = await launchChromium(executablePath);
  });
  afterAll(async () => {
    await browser?.close();
    await started?.close();
  });

  it('opens GraphiQL, runs a typed query and shows its result', async () => {
    const expected = (await query(started.app.url, '{ topSupporter { name amountCents } stats { subscribers } }')).data!;
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const foreign: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'blob:' && url.origin !== started.app.url) foreign.push(request.url());
    });

    await page.goto(`${started.app.url}/graphql`);
    await page.waitForSelector('.graphiql-execute-button', { timeout: 20_000 });
    await page.click('.graphiql-query-editor');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ topSupporter { name amountCents } stats { subscribers } }');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${started.app.url}/graphql`) && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('topSupporter'), { timeout: 10_000 }),
      page.click('.graphiql-execute-button'),
    ]);
    expect(await response.json()).toEqual({ data: expected });

    // The editor renders spaces as U+00A0; compare with whitespace collapsed.
    const paneText = async () => ((await page.locator('.graphiql-response').textContent()) ?? '').replace(/\s+/g, ' ');
    await expect.poll(paneText, { timeout: 10_000 }).toContain(`"subscribers": ${expected.stats.subscribers}`);
    expect(await paneText()).toContain(`"name": "${expected.topSupporter.name}"`);
    expect(foreign).toEqual([]);

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
