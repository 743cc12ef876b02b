/** Page object of the portal's Reports screen (issue 30): export now, schedule a report, the reports ready. */
import type { Download, Locator, Page } from 'playwright-core';

export class PortalReports {
  constructor(readonly page: Page, readonly baseUrl: string) {}

  async open(query = ''): Promise<void> {
    await this.page.goto(`${this.baseUrl}/portal/reports${query}`);
    await this.page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
  }

  get scheduleForm(): Locator {
    return this.page.getByRole('form', { name: 'Schedule a report' });
  }

  /** Fills and sends the schedule form, then waits for the page to say it is scheduled. */
  async schedule(opts: { report: string; every: string; delivery: string; keepDays?: string; savedView?: string }): Promise<void> {
    const form = this.scheduleForm;
    await form.getByLabel('Report', { exact: true }).selectOption({ label: opts.report });
    await form.getByLabel('Every').selectOption({ label: opts.every });
    await form.getByLabel('Delivery').selectOption({ label: opts.delivery });
    if (opts.keepDays) await form.getByLabel('Keep each report (days)').fill(opts.keepDays);
    if (opts.savedView) await form.getByLabel('Saved view').selectOption({ label: opts.savedView });
    await form.getByRole('button', { name: 'Schedule' }).click();
    await form.getByRole('status').waitFor();
  }

  get scheduled(): Locator {
    return this.page.getByRole('region', { name: 'Your scheduled reports', exact: true }).getByRole('row');
  }

  get ready(): Locator {
    return this.page.getByRole('region', { name: 'Reports ready for download', exact: true }).getByRole('row');
  }

  /** Clicks a ready report's download link (by its accessible name) and answers the file. */
  async download(name: string | RegExp): Promise<Download> {
    const [file] = await Promise.all([this.page.waitForEvent('download'), this.page.getByRole('link', { name }).click()]);
    return file;
  }
}
