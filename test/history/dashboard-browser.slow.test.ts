/**
 * /dashboard in headless Chromium, on PGlite and on PostgreSQL: the page the app renders from its
 * own graph shows the members and monthly amount per platform, the subscribers, the goal bars and
 * the latest changes; the values plotted (read from the SVG) are the recorded ones. The screenshot is
 * kept under test-artifacts/. Off in production unless DASHBOARD=true.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createChannelApp } from '../../src/app.js';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { describeOnDatabases } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { isCi } from '../support/system-binary.js';
import { makeDataDir, silentLogger, testConfig } from '../http/harness.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

describeOnDatabases('the dashboard in headless Chromium', (backend) => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (CHROMIUM.path === undefined) {
      if (isCi()) throw new Error(`${CHROMIUM.name} not found (${CHROMIUM.install})`);
      return;
    }
    browser = await launchChromium(CHROMIUM.path);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('plots the recorded history, the goals and the latest changes', async (context) => {
    if (browser === undefined) return context.skip();
    const dataDir = await makeDataDir();
    const database = await backend.fresh();
    if (database.dataDir !== undefined) {
      await mkdir(join(dataDir.path, 'sandbox'), { recursive: true });
      await cp(database.dataDir, join(dataDir.path, 'sandbox', 'database'), { recursive: true });
    }
    const goals = [
      { id: 'ten', title: 'Ten patrons', measure: 'members' as const, platform: 'membership' as const, target: 10 },
      { id: 'far', title: 'A million a month', measure: 'monthlyCents' as const, platform: null, target: 100_000_000 },
    ];
    const app = await createChannelApp(
      testConfig(dataDir.path, { mode: 'sandbox' }, { history: true, dashboard: true, goals, ...(database.url === undefined ? {} : { databaseUrl: database.url }) }),
      { logger: silentLogger, sandbox: { patrons: 30 } },
    );
    try {
      const history = app.history;
      if (history === undefined || app.sandbox === undefined) throw new Error('no history');
      await eventually('the first recordings', async () => {
        await history.recorder.settled();
        return history.health().state === 'open' && history.recorder.backlog.length === 0 && app.store.current('membership') !== null;
      }, { timeoutMs: 60_000 });
      app.sandbox.datasets.membership.override(0, { patronStatus: 'former_patron' });
      await app.store.refresh('membership');
      await history.recorder.settled();
      const members = app.store.current('membership')?.data.supporters.length ?? -1;

      const page = await browser.newPage({ viewport: { width: 760, height: 1100 } });
      const answer = await page.goto(`${app.url}/dashboard?days=1`);
      expect(answer?.status()).toBe(200);
      const plotted = await page.$$eval('svg#members circle[data-series="membership"]', (circles) => circles.map((circle) => Number(circle.getAttribute('data-value'))));
      expect(plotted.at(-1)).toBe(members);
      const monthly = await page.$$eval('svg#monthly circle[data-series="membership"]', (circles) => circles.map((circle) => Number(circle.getAttribute('data-value'))));
      expect(monthly.at(-1)).toBe(app.store.current('membership')?.data.supporters.reduce((sum, supporter) => sum + supporter.amountCents, 0));
      expect(await page.$$eval('svg#subscribers circle', (circles) => circles.length)).toBeGreaterThan(0);
      const bars = await page.$$eval('li.goal', (items) => items.map((item) => ({ id: item.getAttribute('data-goal'), value: Number(item.getAttribute('data-value')), width: Number(item.querySelector('rect.bar')?.getAttribute('width')) })));
      expect(bars).toEqual([
        { id: 'ten', value: members, width: 320 },
        { id: 'far', value: expect.any(Number) as number, width: expect.any(Number) as number },
      ]);
      expect(bars[1]?.width).toBeLessThan(1);
      expect(await page.$$eval('#changes tr', (rows) => rows.map((row) => row.textContent ?? ''))).toEqual([expect.stringContaining('left')]);
      await mkdir(ARTIFACTS, { recursive: true });
      const screenshot = join(ARTIFACTS, `dashboard-${backend.name.toLowerCase()}.png`);
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(existsSync(screenshot)).toBe(true);
      await page.close();
    } finally {
      await app.close();
      await dataDir.remove();
    }
  }, 120_000);

  it('is not served in production without DASHBOARD=true', async () => {
    const dataDir = await makeDataDir();
    const app = await createChannelApp(testConfig(dataDir.path, { mode: 'sandbox' }, { dashboard: false }), { logger: silentLogger });
    try {
      expect((await fetch(`${app.url}/dashboard`)).status).toBe(404);
    } finally {
      await app.close();
      await dataDir.remove();
    }
  });
});
