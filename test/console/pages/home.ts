/** The console's home (issue 31 item 5) as an operator reads it: the range form, headline tiles, charts, the table per group. */
import type { Locator, Page } from 'playwright-core';

export class HomePage {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, query = ''): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/${query ? `?${query}` : ''}`);
    await this.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await this.figures.waitFor();
    return this;
  }

  get figures(): Locator {
    return this.page.getByRole('region', { name: 'Payment figures' });
  }

  /** The headline figure and its "previous ..." line, e.g. tile('Approval rate') -> { current: '66.7 %', previous: 'previous 0.0 %' }. */
  async tile(label: string): Promise<{ current: string; previous: string }> {
    const tile = this.page.locator('.tile').filter({ has: this.page.locator('dt', { hasText: new RegExp(`^${label}$`) }) });
    return { current: (await tile.locator('dd strong').textContent())!.trim(), previous: (await tile.locator('dd small').textContent())!.trim() };
  }

  chart(title: string | RegExp): Locator {
    return this.page.getByRole('figure', { name: title });
  }

  async splitBy(label: 'Merchant' | 'MID' | 'Connector'): Promise<void> {
    await this.page.getByLabel('Split by').selectOption({ label });
    await this.page.waitForURL(new RegExp(`by=${label === 'Merchant' ? 'merchant' : label === 'MID' ? 'mid' : 'connector'}`));
  }

  async range(from: string, to: string): Promise<void> {
    await this.page.getByLabel('From (UTC day)').fill(from);
    await this.page.getByLabel('To (UTC day)').fill(to);
    await this.page.waitForURL(new RegExp(`from=${from}.*to=${to}|to=${to}.*from=${from}`));
  }

  groupRow(name: string): Locator {
    return this.page.getByRole('region', { name: /^Figures per / }).getByRole('row').filter({ has: this.page.getByRole('rowheader', { name }) });
  }
}
