/**
 * Headless Chromium for the browser tests: playwright-core drives the system's Chromium (no browser
 * download). CHROMIUM is looked for like every system program (`describeWithBinary`: the suite is
 * skipped on a developer machine without it, and fails under CI=true).
 *
 *   describeWithBinary(CHROMIUM, 'GraphiQL in headless Chromium', (executablePath) => {
 *     beforeAll(async () => { browser = await launchChromium(executablePath); });
 *   });
 */
import { chromium, type Browser } from 'playwright-core';
import { findSystemBinary } from './system-binary.js';

export const CHROMIUM = findSystemBinary({ name: 'Chromium', command: '/usr/bin/chromium', envVar: 'CHROMIUM_PATH', install: 'apt-get install chromium' });

/** Headless; no sandbox (containers have no user namespaces); nothing fetched but what the page asks for. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
