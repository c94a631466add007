import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Whether this machine can run the browser suites. Without Chromium they are skipped, unless
 * REQUIRE_BROWSER is set (CI sets it), where a missing browser must fail instead.
 */
export const browserAvailable = existsSync(CHROMIUM_PATH) || Boolean(process.env.REQUIRE_BROWSER);

export const BROWSER_MISSING =
  'Browser tests skipped: Chromium is not installed (apt-get install -y chromium).';
