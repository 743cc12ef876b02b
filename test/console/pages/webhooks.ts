/** Page objects of webhook management (issue 31 items 7 and 10): the callbacks list with its bulk actions, a merchant's Webhooks tab. */
import type { Download, Locator, Page } from 'playwright-core';
import { saveScreenshot } from '../../support/screenshots.ts';

export class CallbacksScreen {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, query = ''): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/callbacks${query ? `?${query}` : ''}`);
    await this.page.getByRole('heading', { name: 'Callbacks', level: 1 }).waitFor();
    return this;
  }

  rows(): Locator {
    return this.page.getByRole('region', { name: 'Callback events, newest first' }).locator('tbody tr');
  }

  /** The row of a callback, found by the first eight characters of its id (its checkbox's name). */
  row(callbackId: string): Locator {
    return this.rows().filter({ has: this.page.getByRole('checkbox', { name: `Select callback ${callbackId.slice(0, 8)}` }) });
  }

  /** Fills the filter form as an operator does (a select for the state, text for the event) and applies it. */
  async filter(by: { state?: string; event?: string }): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Filter callbacks' });
    if (by.state !== undefined) await form.getByLabel('Delivery state').selectOption(by.state);
    if (by.event !== undefined) await form.getByLabel('Event').fill(by.event);
    await form.getByRole('button', { name: 'Filter' }).click();
  }

  async loadMore(): Promise<void> {
    await this.page.getByRole('button', { name: 'Load more' }).click();
  }

  async select(callbackId: string): Promise<void> {
    await this.page.getByRole('checkbox', { name: `Select callback ${callbackId.slice(0, 8)}` }).check();
  }

  /** Ticks rows, resends them from the bulk button and answers what the screen said it did. */
  async resendSelected(): Promise<string> {
    await this.page.getByRole('button', { name: /^Resend selected/ }).click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'Resend', exact: true }).click();
    await this.page.getByRole('dialog').waitFor({ state: 'hidden' });
    return this.notice();
  }

  async resendAllMatching(): Promise<string> {
    await this.page.getByRole('button', { name: 'Resend all matching…' }).click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'Resend all', exact: true }).click();
    await this.page.getByRole('dialog').waitFor({ state: 'hidden' });
    return this.notice();
  }

  async notice(): Promise<string> {
    const status = this.page.locator('p.notice[role=status]');
    await status.waitFor();
    return (await status.textContent()) ?? '';
  }

  async exportCsv(): Promise<string> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByRole('button', { name: 'Export CSV' }).click()]);
    return readDownload(download);
  }
}

export async function readDownload(download: Download): Promise<string> {
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class MerchantWebhooksTab {
  constructor(readonly page: Page) {}

  async open(baseUrl: string, merchantId: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/merchants/${merchantId}/webhooks`);
    await this.page.getByRole('heading', { name: 'Signing secret' }).waitFor();
    return this;
  }

  /** Sends a test callback and answers the screen's word on it once the first attempt is made. */
  async sendTest(): Promise<string> {
    await this.page.getByRole('button', { name: 'Send a test callback' }).click();
    const status = this.page.locator('p.notice[role=status]');
    await status.filter({ hasText: /delivered/ }).waitFor({ timeout: 30_000 });
    return (await status.textContent()) ?? '';
  }

  async revealSecret(): Promise<string> {
    await this.page.getByRole('button', { name: 'Reveal secret' }).click();
    return (await this.page.getByTestId('signing-secret').textContent()) ?? '';
  }

  async rotateSecret(): Promise<string> {
    await this.page.getByRole('button', { name: 'Rotate secret…' }).click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
    return (await this.page.getByTestId('shown-once').textContent()) ?? '';
  }
}

/** Screenshots of these screens for docs/operators/ (committed; written on one store only). */
export async function docShot(page: Page, name: string): Promise<void> {
  const { mkdirSync } = await import('node:fs');
  const path = await import('node:path');
  const dir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../docs/operators/console-screenshots');
  mkdirSync(dir, { recursive: true });
  await saveScreenshot(page, path.join(dir, `${name}.png`), { fullPage: false });
}
