import { type Page } from 'playwright-core';
import { ADMIN_PASSWORD } from '../../support/test-app';

/** How long a sign-in may take, from the click to the page it leads to, under CI's load. */
export const SIGN_IN_MS = 30_000;

/**
 * Signs in through the admin login form and waits for the dashboard. The password check and the
 * redirect have taken over the pages' 10 s default under the load of CI's two runs side by side,
 * so both waits are longer: the click's own (it waits for the navigation it starts) and the wait
 * for the dashboard.
 */
export async function logIn(
  page: Page,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<void> {
  await page.goto('/admin/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click({ timeout: SIGN_IN_MS });
  await page.waitForURL('**/admin', { timeout: SIGN_IN_MS });
}
