/** Page objects of a payment's timeline, refunds with a reason and notes, bulk refunds and the audit log's export (issue 31 items 6 and 10). */
import type { Locator, Page } from 'playwright-core';
import { readDownload } from './webhooks.ts';

export class PaymentScreen {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, id: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/payments/${id}`);
    await this.timeline().getByRole('list', { name: 'Timeline steps' }).waitFor();
    return this;
  }

  timeline(): Locator {
    return this.page.getByRole('region', { name: 'Timeline' });
  }

  /** The status in words at the timeline's head ("Partially refunded. 2.00 EUR of 8.00 EUR refunded."). */
  async statusWords(): Promise<string> {
    return (await this.timeline().locator('.status-words').textContent()) ?? '';
  }

  async steps(): Promise<string[]> {
    return this.timeline().getByRole('list', { name: 'Timeline steps' }).locator('li.step').allTextContents();
  }

  /** Waits until a step with this text is on the timeline. */
  async waitForStep(text: string | RegExp): Promise<void> {
    await this.timeline().locator('li.step').filter({ hasText: text }).first().waitFor();
  }

  async refund(amount: string, reason: string, detail = ''): Promise<void> {
    await this.page.getByRole('region', { name: 'Actions' }).getByRole('button', { name: 'Refund…' }).click();
    const dialog = this.page.getByRole('dialog');
    await dialog.getByLabel(/^Amount to refund/).fill(amount);
    await dialog.getByLabel(/^Reason/).selectOption(reason);
    if (detail) await dialog.getByLabel('Details (optional)').fill(detail);
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  /** Resends a callback from the payment's Callbacks section, found by its event ("sale (settled)"). */
  async resendCallback(event: string): Promise<void> {
    await this.page.getByRole('article', { name: `Callback ${event}` }).first().getByRole('button', { name: 'Resend' }).click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'Resend', exact: true }).click();
    await this.page.getByRole('dialog').waitFor({ state: 'hidden' });
  }

  async addNote(text: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add an internal note' });
    await form.getByLabel(/^Internal note/).fill(text);
    await form.getByRole('button', { name: 'Add note' }).click();
    await form.getByText('Note added.').waitFor();
  }
}

export class PaymentsBulk {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, query = ''): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/payments${query ? `?${query}` : ''}`);
    await this.page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    return this;
  }

  async select(orderId: string): Promise<void> {
    await this.page.getByRole('checkbox', { name: `Select ${orderId}` }).check();
  }

  /** Refunds the ticked payments with a reason; answers the screen's summary of what happened. */
  async refundSelected(reason: string): Promise<string> {
    await this.page.getByRole('button', { name: /^Refund selected/ }).click();
    const dialog = this.page.getByRole('dialog');
    await dialog.getByLabel(/^Reason/).selectOption(reason);
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    const status = this.page.locator('div.notice[role=status]');
    await status.waitFor();
    return (await status.textContent()) ?? '';
  }
}

export class AuditLogScreen {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, query = ''): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/audit${query ? `?${query}` : ''}`);
    await this.page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    return this;
  }

  async exportCsv(): Promise<string> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByRole('button', { name: 'Export CSV' }).click()]);
    return readDownload(download);
  }
}
