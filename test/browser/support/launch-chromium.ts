import { type Browser, chromium } from 'playwright-core';
import { browserAvailable, CHROMIUM_PATH } from './browser-available';

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
