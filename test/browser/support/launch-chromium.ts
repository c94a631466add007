import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Whether this machine can run the browser suites. Without Chromium they are skipped, unless
 * REQUIRE_BROWSER is set (CI sets it), where a missing browser must fail instead.
 */
export const browserAvailable = existsSync(CHROMIUM_PATH) || Boolean(process.env.REQUIRE_BROWSER);

export const BROWSER_MISSING =
  'Browser tests skipped: Chromium is not installed (apt-get install -y chromium).';

/** `describe` for suites that drive a browser; skipped, with one line saying why, without one. */
export function describeWithBrowser(name: string, suite: () => void): void {
  // Looked up at call time: global setup imports this module where jest's globals do not exist.
  (browserAvailable ? describe : describe.skip)(name, suite);
}

/** The system's Chromium (apt-get install chromium), headless; tests never download a browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
