/** Page objects of the console's lists (issue 31 item 4): payments and callbacks with their merchant picker, the audit log. */
import type { Locator, Page } from 'playwright-core';

/** The merchant picker (names.tsx): the search box narrows the list, the list gives the form the id. */
export async function pickMerchant(page: Page, find: string, id: string): Promise<void> {
  await page.getByLabel('Find merchant').fill(find);
  await page.getByLabel('Merchant', { exact: true }).selectOption(id);
}

export class PaymentsList {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, query = ''): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/payments${query ? `?${query}` : ''}`);
    await this.page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    return this;
  }

  /** The row of the payment with this order id. */
  row(orderId: string): Locator {
    return this.page.getByRole('row').filter({ has: this.page.getByRole('link', { name: orderId, exact: true }) });
  }

  async filterByMerchant(find: string, id: string): Promise<void> {
    await this.page.getByText('More filters').click();
    await pickMerchant(this.page, find, id);
    await this.page.getByRole('button', { name: 'Search' }).click();
    await this.page.waitForURL(new RegExp(`merchant_id=${id}`));
  }
}

export class CallbacksList {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, query = ''): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/callbacks${query ? `?${query}` : ''}`);
    await this.page.getByRole('heading', { name: 'Callbacks', level: 1 }).waitFor();
    return this;
  }

  rows(): Locator {
    return this.page.getByRole('region', { name: 'Callback events, newest first' }).locator('tbody tr');
  }
}
