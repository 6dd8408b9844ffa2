/**
 * The Publish form filled as a user does, in English, for the loopback and the NAT lab e2e: open
 * the page (empty), add a service, fill it, open the advanced part for the ports. Saving is left to
 * the test (a screenshot of the form comes first).
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { pickOption } from './harness';

export interface PublishForm {
  target: string;
  name: string;
  /** The DDNS task's label in the picker: `<name> (<provider>)`. */
  task: string;
  mapRouter: boolean;
  httpsPort: number;
  httpPort: number;
  upnpUrl?: string;
}

export async function fillPublishForm(page: Page, f: PublishForm): Promise<void> {
  await page.getByTestId('lang-switch').selectOption('en_US');
  await page.locator('[data-testid="left-menu"] [data-menu="publish"]').click();
  await expect.poll(() => page.title()).toBe('Lucky | Publish');
  await page.getByTestId('publish-empty').waitFor();

  await page.getByTestId('publish-add').click();
  await page.getByTestId('publish-name').fill('Home Assistant');
  await page.getByTestId('publish-target').fill(f.target);
  await page.getByTestId('publish-names').fill(f.name);
  await pickOption(page, page.getByTestId('publish-dnstask'), f.task);
  // Asking the router is the default.
  if ((await page.getByTestId('publish-maprouter').isChecked()) !== f.mapRouter) await page.getByTestId('publish-maprouter').dispatchEvent('click');
  await page.getByTestId('publish-advanced').click();
  await page.getByTestId('publish-https-port').fill(String(f.httpsPort));
  await page.getByTestId('publish-http-port').fill(String(f.httpPort));
  if (f.upnpUrl !== undefined) await page.getByTestId('publish-upnp-url').fill(f.upnpUrl);
}
