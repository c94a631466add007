import { type Page } from 'playwright-core';
import { ADMIN_PASSWORD } from '../../support/test-app';

/**
 * Signs in through the admin login form and waits for the dashboard. The password check and the
 * redirect have taken over the pages' 10 s default under the load of CI's two runs side by side,
 * so the wait for the dashboard is longer.
 */
export async function logIn(
  page: Page,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<void> {
  await page.goto('/admin/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/admin', { timeout: 30_000 });
}
